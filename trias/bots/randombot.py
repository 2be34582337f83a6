"""The random legal player: a random kind of move, then a random move of that kind.

Choosing the kind first keeps it from drifting at every chance (there are far
more drifts than moves on the list) and lets it skip listing every drift.
"""

from __future__ import annotations

from ..draws import below, shuffle
from ..legal import drift_landscape, random_drift
from ..listing import birth_places, move_command, move_options, rescue_command, rescue_options
from ..state import State


def _pl(p: tuple) -> list:
    return [p[0], p[1]]


def random_action(state: State, rng) -> dict:
    """A legal command for the seat to play, drawn at random."""
    seat, phase = state.current, state.phase
    if phase == "place":
        herds = state.herds
        vacant = [p for p in state.tiles if p not in herds or not sum(herds[p])]
        return {"type": "place", "at": _pl(vacant[below(rng, len(vacant))])}
    if phase == "start":
        if state.deck and rng.random() < 0.5:
            return {"type": "draw"}
        found = random_drift(state, seat, drift_landscape(state), rng)
        return {"type": "play", "tile": _pl(found[0]), "to": _pl(found[1])} if found else {"type": "play"}
    if phase == "drift":
        tile, place = random_drift(state, seat, drift_landscape(state), rng)
        return {"type": "drift", "tile": _pl(tile), "to": _pl(place)}
    return random_turn_action(state, rng)


_KINDS = ("move", "reproduce", "rescue", "end_turn")
_KINDS_DRIFT = _KINDS + ("drift",)


def random_turn_action(state: State, rng) -> dict:
    """A random phase-2 action (T12), ending the turn as one choice among the kinds: a kind drawn
    evenly among those with a move (listing 1, state.LISTING: the first such of the kinds shuffled;
    listing 2: a kind drawn at a time, dropped if it has none, one draw a kind tried)."""
    kinds = list(_KINDS_DRIFT if state.ap >= 3 else _KINDS)
    if state.listing == 1:
        shuffle(rng, kinds)
        return _first_of(state, kinds, rng)
    while True:
        found = _first_of(state, (kinds.pop(below(rng, len(kinds))),), rng)
        if found is not None:
            return found


def _first_of(state: State, kinds, rng) -> dict | None:
    """A random move of the first of `kinds` that has one (None if none has)."""
    for kind in kinds:
        if kind == "end_turn":
            return {"type": "end_turn"}
        if kind == "drift":
            found = random_drift(state, state.current, None, rng)
            if found:
                return {"type": "drift", "tile": _pl(found[0]), "to": _pl(found[1])}
            continue
        # The options as plain tuples, and a command made for the one drawn: the same draw as
        # from the listed commands (rng.choice looks only at the length), without making them all.
        if kind == "move":
            options = move_options(state)
            if options:
                return move_command(*options[below(rng, len(options))])
        elif kind == "reproduce":
            options = birth_places(state)
            if options:
                at = options[below(rng, len(options))]
                return {"type": "reproduce", "at": [at[0], at[1]]}
        else:
            options = rescue_options(state)
            if options:
                return rescue_command(options[below(rng, len(options))])
    return None
