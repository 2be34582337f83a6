"""Listing every legal move of the current seat, built on the checks of legal.py."""

from __future__ import annotations

from .hexes import NEIGHBOURS
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
        herds = state.herds
        return [{"type": "place", "at": _cmd_place(p)} for p in state.tiles if p not in herds or not sum(herds[p])]
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


_LEAST = min(CAPACITY.values())  # the smallest capacity (T2)


def full_tiles(state: State) -> set:
    """Tiles at (or above) capacity: no herd enters, crosses or is born there (T13)."""
    kind_of = state.tiles.get
    full = set()
    for p, c in state.herds.items():
        k = sum(c)
        if k >= _LEAST:  # (fewer herds fill no tile: no need to look the place up)
            kind = kind_of(p)
            if kind is not None and k >= CAPACITY[kind]:
                full.add(p)
    return full


def open_tiles(state: State) -> set:
    """Tiles a herd may enter: below capacity (T13)."""
    full = full_tiles(state)
    return {p for p in state.tiles if p not in full}


def move_options(state: State) -> list:
    """T12 moves as (from, to, fresh) in the listing's order; `moves` makes them commands."""
    seat, found = state.current, []
    tiles, herds, spent, near = state.tiles, state.herds, state.spent, NEIGHBOURS
    kind_of, herds_at = tiles.get, herds.get
    for a, counts in herds.items():
        own = counts[seat]
        if not own or a not in tiles:
            continue
        used = spent.get(a, 0)
        both = 0 < used < own  # a 'fresh' variant makes a difference (T12)
        for b in near[a]:
            kind = kind_of(b)
            if kind is not None:
                there = herds_at(b)
                if there is None or sum(there) < CAPACITY[kind]:  # not full (full_tiles)
                    found.append((a, b, False))
                    if both:
                        found.append((a, b, True))
    return found


def move_command(a: tuple, b: tuple, fresh: bool) -> dict:
    """One move as a command."""
    move = {"type": "move", "from": [a[0], a[1]], "to": [b[0], b[1]]}
    if fresh:
        move["fresh"] = True
    return move


def moves(state: State) -> list:
    """T12 moves of one herd one step; a 'fresh' variant where it makes a difference."""
    return [move_command(a, b, fresh) for a, b, fresh in move_options(state)]


def birth_places(state: State) -> list:
    """T12/T13 births as places in the listing's order; `reproductions` makes them commands."""
    seat = state.current
    if not state.stock[seat]:
        return []
    kind_of, spent = state.tiles.get, state.spent
    return [a for a, counts in state.herds.items()
            if counts[seat] and (kind := kind_of(a)) is not None and sum(counts) < CAPACITY[kind]  # a tile, not full
            and counts[seat] - spent.get(a, 0) > 0]


def reproductions(state: State) -> list:
    """T12/T13 births: a fresh herd on a tile below capacity, with a herd in stock."""
    return [{"type": "reproduce", "at": [a[0], a[1]]} for a in birth_places(state)]


def rescue_options(state: State) -> list:
    """T12 rescues as tuples of (from, to) pairs in the listing's order; `rescues` makes them commands."""
    seat, tiles = state.current, state.tiles
    options = []  # one (from, to) per swimmer, so that repeats stay within the herds there
    for a, counts in state.herds.items():
        if counts[seat] and a not in tiles:
            steps = [(a, b) for b in NEIGHBOURS[a] if b in tiles]
            if steps:
                options.append((a, counts[seat], steps))
    if not options:
        return []
    pairs = [pair for _, _, steps in options for pair in steps]
    have = {a: k for a, k, _ in options}
    herds = state.herds
    room = {}  # place -> herds it may still take in (T13)
    for _, b in pairs:
        if b not in room:
            c = herds.get(b)
            room[b] = CAPACITY[tiles[b]] - (sum(c) if c else 0)
    # Every choice of up to 3 pairs (with repeats) whose swimmers and places suffice, in the order of
    # combinations_with_replacement(pairs, 1, 2, 3): a choice whose first ones do not fit does
    # not fit with another added, so the triples grow from the pairs that fit.
    n = len(pairs)
    froms = [a for a, _ in pairs]
    tos = [b for _, b in pairs]
    one = [k for k in range(n) if room[tos[k]] >= 1]  # (every pair's place holds a swimmer of the seat's)
    found = [(pairs[k],) for k in one]
    two = []
    for i in one:
        ai, bi = froms[i], tos[i]
        for j in one:
            if j >= i:
                aj, bj = froms[j], tos[j]
                if have[aj] >= 1 + (ai == aj) and room[bj] >= 1 + (bi == bj):
                    two.append((i, j))
    found += [(pairs[i], pairs[j]) for i, j in two]
    for i, j in two:
        ai, bi, aj, bj = froms[i], tos[i], froms[j], tos[j]
        for k in one:
            if k >= j:
                ak, bk = froms[k], tos[k]
                if have[ak] >= 1 + (ai == ak) + (aj == ak) and room[bk] >= 1 + (bi == bk) + (bj == bk):
                    found.append((pairs[i], pairs[j], pairs[k]))
    return found


def rescue_command(combo) -> dict:
    """One rescue as a command."""
    return {"type": "rescue", "herds": [[[a[0], a[1]], [b[0], b[1]]] for a, b in combo]}


def rescues(state: State) -> list:
    """T12 rescues: every choice of up to 3 own swimmers, each onto a tile next to it."""
    return [rescue_command(combo) for combo in rescue_options(state)]


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
