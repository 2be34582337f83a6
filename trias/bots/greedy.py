"""The greedy player: tries every legal move once and keeps the one the heuristic likes best.

Phase 1 is the one choice with a chance in it: drawing is worth the best drift
of each landscape, weighted by how many of its cards are still unseen.

Anytime: with `seconds`, the moves are judged in a random order until the time is up
and the best judged so far is played (judging every move of a 4-player turn
can take seconds on a loaded machine; no level may think over 2 s).
"""

from __future__ import annotations

import time
from collections import Counter

from ..engine import advance
from ..legal import drift_pairs
from ..listing import legal_actions
from ..state import LANDSCAPES, METEORITE, State
from .heuristic import evaluate


def _pl(p: tuple) -> list:
    return [p[0], p[1]]


def greedy_action(state: State, rng, unseen=None, seconds: float | None = None) -> dict:
    """The legal command with the best one-step heuristic value for the seat to play
    (among those judged within `seconds`, when given: at least one is always judged)."""
    seat = state.current
    deadline = None if seconds is None else time.perf_counter() + seconds
    if state.phase == "start":
        return _phase_one(state, rng, unseen, deadline)
    best, best_value = None, None
    actions = legal_actions(state)
    rng.shuffle(actions)
    for action in actions:
        if best is not None and _late(deadline):
            break
        _, after = advance(state, action)
        value = evaluate(after, seat)
        if action["type"] == "end_turn":
            value += 1e-6  # no gain: keep the points rather than wander
        if best_value is None or value > best_value:
            best, best_value = action, value
    return best


def _late(deadline: float | None) -> bool:
    return deadline is not None and time.perf_counter() > deadline


def _phase_one(state: State, rng, unseen, deadline: float | None = None) -> dict:
    """T9: play the hand card's best drift, or draw when the unseen cards promise more on average."""
    choice, _ = phase_one_choice(state, unseen, deadline)
    return choice


def phase_one_choice(state: State, unseen, deadline: float | None = None) -> tuple:
    """(command, {landscape: (value, drift)}): the phase-1 choice and the best drift of each kind.

    The drifts the hand card allows (T9, T11) are judged first, so that the answer is legal
    whenever time runs out, however soon (on a short budget greedy played a mountain
    tile with a steppe card, the move was refused and the computer seat froze the table). The
    other landscapes' drifts are judged next, only to price a draw. Within each group the listing's
    order is kept, so that a game replays the same when no time runs out (a seeded game's computer
    moves stay the same: every drift is then judged, and ties go to the first listed as before).
    """
    seat = state.current
    allowed = drift_pairs(state, seat, state.hands[seat])  # T9, T11: what the hand card may drift
    best = {}  # landscape -> (value, (tile, place)), of every drift judged
    for tile, place in _allowed_first(allowed, drift_pairs(state, seat, None)):
        if best and _late(deadline):  # the first judged is one the card allows
            break
        kind = state.tiles[tile]
        _, after = advance(state, {"type": "play", "tile": tile, "to": place})
        value = evaluate(after, seat)
        if kind not in best or value > best[kind][0]:
            best[kind] = (value, (tile, place))
    if not best:  # T11 Decision: no drift at all; the card is played without one
        return {"type": "play"}, best
    overall = max(best.values())
    # With drifts of its own landscape the card must take one of them, all judged before any other
    # kind; with none, T11 lets it take any, and every drift judged is allowed.
    hand = best.get(state.hands[seat], overall)
    pool = Counter(unseen or [])
    total = sum(pool.values())
    if state.deck and total:
        now = evaluate(state, seat)  # the impact: no drift, and the last round begins (T9)
        expect = (sum(best.get(k, overall)[0] * pool[k] for k in LANDSCAPES) + now * pool[METEORITE]) / total
        if expect > hand[0]:
            return {"type": "draw"}, best
    tile, place = hand[1]
    return {"type": "play", "tile": _pl(tile), "to": _pl(place)}, best


def _allowed_first(allowed: list, every: list) -> list:
    """The drifts the card allows, then every other drift, each group in the listing's order."""
    legal = set(allowed)
    return list(allowed) + [pair for pair in every if pair not in legal]
