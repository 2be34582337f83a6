"""Listing every legal move of the current seat, built on the checks of legal.py."""

from __future__ import annotations

from itertools import combinations_with_replacement

from .hexes import neighbours
from .errors import IllegalMove
from .legal import DRIFT_COST, drift_landscape, drift_pairs
from .mirror import check_meteorite_drawn, possible_cards
from .state import CAPACITY, State


def _cmd_place(p: tuple) -> list:
    return [p[0], p[1]]


def legal_drifts(state: State, card: str | None = None) -> list:
    """Every legal drift now, as {"tile", "to"} (T10, T11; T12 for an action drift).

    `card`: in a mirror game's phase 1, the hand card the table shows (the engine does not know it).
    """
    if state.phase not in ("start", "drift", "actions"):
        return []
    if state.phase == "actions" and state.ap < DRIFT_COST:
        return []
    pairs = drift_pairs(state, state.current, drift_landscape(state, card))
    return [{"tile": _cmd_place(a), "to": _cmd_place(b)} for a, b in pairs]


def legal_actions(state: State) -> list:
    """Every command the current seat may send now; each passes `legal.check`."""
    phase = state.phase
    if phase == "place":
        return [{"type": "place", "at": _cmd_place(p)} for p in state.tiles if not state.total(p)]
    if phase == "start" and state.mirror:
        return _mirror_start(state)
    if phase == "start":
        drifts = legal_drifts(state)
        plays = [dict(d, type="play") for d in drifts] or [{"type": "play"}]
        return plays + ([{"type": "draw"}] if state.deck else [])
    if phase == "drift":
        return [dict(d, type="drift") for d in legal_drifts(state)]
    if phase != "actions":
        return []
    actions = [dict(d, type="drift") for d in legal_drifts(state)]
    if state.ap >= 1:
        actions += moves(state) + reproductions(state) + rescues(state)
    actions.append({"type": "end_turn"})
    return actions


def open_tiles(state: State) -> set:
    """Tiles a herd may enter: below capacity (T13)."""
    return {p for p, kind in state.tiles.items() if state.total(p) < CAPACITY[kind]}


def moves(state: State) -> list:
    """T12 moves of one herd one step; a 'fresh' variant where it makes a difference."""
    seat, found = state.current, []
    enterable = open_tiles(state)
    for a, counts in state.herds.items():
        if not counts[seat] or a not in state.tiles:
            continue
        spent = state.spent.get(a, 0)
        variants = [False, True] if 0 < spent < counts[seat] else [False]
        for b in neighbours(a):
            if b in enterable:
                for fresh in variants:
                    move = {"type": "move", "from": _cmd_place(a), "to": _cmd_place(b)}
                    if fresh:
                        move["fresh"] = True
                    found.append(move)
    return found


def reproductions(state: State) -> list:
    """T12/T13 births: a fresh herd on a tile below capacity, with a herd in stock."""
    seat = state.current
    if not state.stock[seat]:
        return []
    enterable = open_tiles(state)
    return [{"type": "reproduce", "at": _cmd_place(a)} for a, counts in state.herds.items()
            if a in enterable and counts[seat] - state.spent.get(a, 0) > 0]


def rescues(state: State) -> list:
    """T12 rescues: every choice of up to 3 own swimmers, each onto a tile next to it."""
    seat = state.current
    options = []  # one (from, to) per swimmer, so that repeats stay within the herds there
    for a, counts in state.herds.items():
        if counts[seat] and a not in state.tiles:
            steps = [(a, b) for b in neighbours(a) if b in state.tiles]
            if steps:
                options.append((a, counts[seat], steps))
    if not options:
        return []
    pairs = [pair for _, _, steps in options for pair in steps]
    have = {a: k for a, k, _ in options}
    found = []
    for size in (1, 2, 3):
        for combo in combinations_with_replacement(pairs, size):
            if _rescue_fits(state, combo, have):
                found.append({"type": "rescue", "herds": [[_cmd_place(a), _cmd_place(b)] for a, b in combo]})
    return found


def _rescue_fits(state: State, combo, have: dict) -> bool:
    used, added = {}, {}
    for a, b in combo:
        used[a] = used.get(a, 0) + 1
        added[b] = added.get(b, 0) + 1
        if used[a] > have[a]:
            return False
        if state.total(b) + added[b] > CAPACITY[state.tiles[b]]:
            return False
    return True


def _mirror_start(state: State) -> list:
    """Mirror phase 1: a play for each card the table may show, each card it may draw, and T15's meteorite."""
    found = []
    for card in possible_cards(state, "play"):
        drifts = legal_drifts(state, card)
        found += [dict(d, type="play", card=card) for d in drifts] or [{"type": "play", "card": card}]
    if state.deck:
        found += [{"type": "draw", "card": card} for card in possible_cards(state, "draw")]
    try:
        check_meteorite_drawn(state, {})
        found.append({"type": "meteorite_drawn"})
    except IllegalMove:
        pass
    return found
