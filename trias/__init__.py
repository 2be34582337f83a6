"""Trias: a pure engine for Ralf Lehmkuhl's board game, with computer opponents.

Rules are cited as T1-T21 from docs/rules/trias.md. The shape mirrors bank/:

    state, events = trias.new_game(players=4, seed=7)   # the shuffles are events
    trias.legal_actions(state)                          # every command the seat to play may send
    events, state = trias.handle(state, {"type": "draw"})  # or a TriasError, nothing changed
    state = trias.apply(state, event)                   # the one fold, live and on replay
    trias.replay(all_events) == state                   # a journal always folds to the same state
    trias.view(state, seat)                             # JSON for one seat: no other hand, no deck order
    trias.bots.choose(view, "hard", budget, rng)        # a command for the seat to play

Commands and events are plain JSON-serialisable dicts; places are [q, r] in
axial hex coordinates with the South Pole at [0, 0]. Seats are 0..N-1 in
clockwise order; seat 0 is the start player. Commands act for the seat to
play (`state.current`); an optional "player" field is checked against it.

Commands: place {at}; play {tile, to} (hand card plus its drift, or {} when no
drift is possible); draw; drift {tile, to}; move {from, to, fresh?};
rescue {herds: [[from, to], ...]}; reproduce {at}; end_turn.
Mirror games (`new_game(n, seed, mirror=True)`, a physical table's own cards):
play and draw also carry {card}, and meteorite_drawn records T15 (README.md).
"""

from . import bots
from .engine import handle
from .errors import BadCommand, IllegalMove, TriasError
from .fold import apply, replay
from .legal import check
from .listing import legal_actions, legal_drifts
from .scoring import final_scores
from .setup import new_game
from .state import State
from .view import public_event, view

__all__ = ["new_game", "handle", "apply", "replay", "check", "is_legal", "legal_actions", "legal_drifts",
           "final_scores", "view", "public_event", "bots", "State", "TriasError", "IllegalMove", "BadCommand"]


def is_legal(state: State, command: dict) -> bool:
    """Whether `command` is legal now (the same checks `handle` makes)."""
    try:
        check(state, command)
    except TriasError:
        return False
    return True
