"""The engine: a command in, events out, or a named error and nothing changed.

`handle` decides on a private copy of the state, emitting events and folding
each one at once so later checks in the same command see its effect; the
caller's state is never touched.
"""

from __future__ import annotations

from . import fold
from .fold import FOLDS
from .hexes import label, parse
from .legal import any_drift, check
from .scoring import final_scores, herds_on, interim_part, majority_points, presence, winners
from .state import CAPACITY, METEORITE, State


class Work:
    """The working copy of one command and the events it has emitted so far."""

    __slots__ = ("state", "events")

    def __init__(self, state: State):
        self.state = state.copy()
        self.events: list = []

    def emit(self, event: dict) -> None:
        """Record an event and fold it into the working copy."""
        FOLDS[event["type"]](self.state, event)
        self.events.append(event)

    def put(self, event: dict, folds, *args) -> None:
        """Record an event and fold it with `folds(state, *args)`: the fold of its kind given the places
        the engine holds rather than read back from the event (the same fold, fold.py)."""
        folds(self.state, *args)
        self.events.append(event)


def handle(state: State, command: dict) -> tuple:
    """Decide `command` for the seat to play: (events, new state), or raise a TriasError."""
    cmd = check(state, command)
    work = Work(state)
    DECIDE[cmd["type"]](work, cmd)
    return work.events, work.state


def _pl(place: tuple) -> list:
    return [place[0], place[1]]


def _place(work: Work, cmd: dict) -> None:
    s = work.state
    at = cmd["at"]
    work.put({"type": "placed", "player": s.current, "at": _pl(at), "herds": 2}, fold.placed, s.current, at, 2)
    if s.placements == 2 * s.players:
        # T8: the last seat to place starts, and play goes clockwise from there.
        order = [0] + list(range(s.players - 1, 0, -1))
        start_turn(work, order[-1])


def start_turn(work: Work, seat: int) -> None:
    """Begin `seat`'s turn: phase 1 normally, straight to 2 action points in the last round (T9, T17)."""
    s = work.state
    if s.last_round is not None:
        work.emit({"type": "turn_started", "player": seat, "phase": "actions", "ap": s.rules.last_round_points})
    else:
        work.emit({"type": "turn_started", "player": seat, "phase": "start", "ap": s.rules.action_points})


def _play(work: Work, cmd: dict) -> None:
    s = work.state
    seat = s.current
    # A mirror game plays the card the table shows; otherwise the engine knows the hand.
    work.emit({"type": "card_played", "player": seat, "card": cmd["card"] if s.mirror else s.hands[seat]})
    if "tile" in cmd:
        drift(work, cmd["tile"], cmd["to"], cost=0)
    else:
        work.emit({"type": "drift_skipped", "player": seat, "reason": "no legal drift (T11)"})
    work.emit({"type": "phase", "phase": "actions", "ap": s.rules.action_points})


def _draw(work: Work, cmd: dict) -> None:
    s = work.state
    seat, card = s.current, (cmd["card"] if s.mirror else s.deck[0])
    work.emit({"type": "card_drawn", "player": seat, "card": card})
    if card == METEORITE:
        # T9/T17: this turn is the first of the last round; no drift, 2 action points.
        work.emit({"type": "last_round", "first": seat, "turns": s.players - 1})
        work.emit({"type": "phase", "phase": "actions", "ap": s.rules.last_round_points})
    elif any_drift(s, seat):  # T11: another landscape will do if the card's cannot drift
        work.emit({"type": "phase", "phase": "drift", "card": card})
    else:
        work.emit({"type": "drift_skipped", "player": seat, "reason": "no legal drift (T11)"})
        work.emit({"type": "phase", "phase": "actions", "ap": s.rules.action_points})


def _meteorite_drawn(work: Work, cmd: dict) -> None:
    """Mirror, T15: the previous seat's phase-4 card was the Meteorite Impact, shown at once.

    This seat's turn, already begun, becomes the first of the last round: no
    phase 1 and 2 action points (T17); every other seat, the drawer last, has one more.
    """
    s = work.state
    work.emit({"type": "hand_shown", "player": cmd["player"], "card": METEORITE})
    work.emit({"type": "last_round", "first": s.current, "turns": s.players - 1})
    work.emit({"type": "phase", "phase": "actions", "ap": s.rules.last_round_points})


def _drift(work: Work, cmd: dict) -> None:
    s = work.state
    if s.phase == "drift":
        drift(work, cmd["tile"], cmd["to"], cost=0)
        work.emit({"type": "phase", "phase": "actions", "ap": s.rules.action_points})
    else:
        drift(work, cmd["tile"], cmd["to"], cost=3)  # T12: an action drift costs 3 points
        _maybe_end(work)


def drift(work: Work, tile: tuple, place: tuple, cost: int) -> None:
    """Move the tile (its herds stay, swimming) and score a new land mass if T16 says so."""
    s = work.state
    part = interim_part(s, tile, place) if s.rules.interim_scoring else None
    work.put({"type": "drifted", "player": s.current, "tile": _pl(tile), "to": _pl(place),
              "kind": s.tiles[tile], "cost": cost}, fold.drifted, tile, place, cost)
    if part:
        counts = herds_on(s, part)
        work.emit({"type": "scored", "reason": "interim", "rule": "T16", "tiles": sorted(label(p) for p in part),
                   "herds": counts, "points": majority_points(counts)})


def _move(work: Work, cmd: dict) -> None:
    s = work.state
    a, b = cmd["from"], cmd["to"]
    event = {"type": "moved", "player": s.current, "from": _pl(a), "to": _pl(b), "cost": 1}
    if cmd["fresh"]:
        event["fresh"] = True
    work.put(event, fold.moved, s.current, a, b, cmd["fresh"], 1)
    _maybe_end(work)


def _rescue(work: Work, cmd: dict) -> None:
    s = work.state
    work.emit({"type": "rescued", "player": s.current, "herds": [[_pl(a), _pl(b)] for a, b in cmd["herds"]], "cost": 1})
    _maybe_end(work)


def _reproduce(work: Work, cmd: dict) -> None:
    seat, at = work.state.current, cmd["at"]
    work.put({"type": "born", "player": seat, "at": _pl(at), "cost": 1}, fold.born, seat, at, 1)
    _maybe_end(work)


def _end_turn(work: Work, cmd: dict) -> None:
    end_turn(work)


def _maybe_end(work: Work) -> None:
    # With no action point left nothing remains to decide, so phases 3 and 4 follow at once.
    if work.state.ap == 0:
        end_turn(work)


def end_turn(work: Work) -> None:
    """Phases 3 and 4 (T14, T15), then the next turn or final scoring (T17, T18)."""
    s = work.state
    seat = s.current
    # Only this seat's places change below, one event each, so their counts can be read now.
    herds, tiles = s.herds, s.tiles
    back = []  # (place, herds returned, why): swimmers, and herds over a tile's capacity
    for place, counts in herds.items():
        own = counts[seat]
        if own:
            kind = tiles.get(place)
            if kind is None:
                back.append((place, own, "swimming"))
            else:
                excess = sum(counts) - CAPACITY[kind]
                if excess > 0:
                    back.append((place, min(own, excess), "overpopulation"))
    if back:
        back.sort()  # the places' order
        for place, count, why in back:
            work.put({"type": "returned", "player": seat, "at": _pl(place), "count": count, "reason": why, "rule": "T14"},
                     fold.returned, seat, place, count)
    if s.played_hand and s.deck:
        card = s.deck[0]
        work.emit({"type": "hand_drawn", "player": seat, "card": card})
        if card == METEORITE and s.last_round is None:
            # T15: shown at once; every seat, this one included, has one last turn.
            work.emit({"type": "last_round", "first": (seat + 1) % s.players, "turns": s.players})
    work.emit({"type": "turn_ended", "player": seat})
    if s.last_round == 0:
        finish(work)
    else:
        start_turn(work, (seat + 1) % s.players)


def finish(work: Work) -> None:
    """T18 final scoring, then T19 winners."""
    s = work.state
    final = final_scores(s)
    work.emit({"type": "scored", "reason": "final", "rule": "T18", "points": final["points"]})
    won = winners(s.score, s.stock, presence(s))
    work.emit({"type": "game_over", "winners": won, "scores": list(s.score), "table": final["table"]})


DECIDE = {
    "place": _place,
    "play": _play,
    "draw": _draw,
    "meteorite_drawn": _meteorite_drawn,
    "drift": _drift,
    "move": _move,
    "rescue": _rescue,
    "reproduce": _reproduce,
    "end_turn": _end_turn,
}


def advance(state: State, command: dict) -> tuple:
    """Apply a command already known to be legal (from `legal_actions`), skipping the checks.

    For bots that try many listed moves; anything from outside goes through `handle`.
    """
    cmd = dict(command)
    for key in ("tile", "to", "from", "at"):
        if key in cmd:
            cmd[key] = parse(cmd[key])  # the place's one tuple (hexes.PLACES), as `check` gives
    if "herds" in cmd:
        cmd["herds"] = [(parse(a), parse(b)) for a, b in cmd["herds"]]
    cmd.setdefault("fresh", False)
    work = Work(state)
    DECIDE[cmd["type"]](work, cmd)
    return work.events, work.state
