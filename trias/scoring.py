"""Scoring: interim scoring after a drift (T16), final scoring (T18) and the winners (T19)."""

from __future__ import annotations

from .bitboard import BIT, NEAR, POLE_BIT, BitGeometry, places
from .hexes import NEIGHBOURS, POLE, label
from .state import State


def herds_on(state: State, places) -> list:
    """Herds of each seat on the tiles at `places`."""
    totals = [0] * state.players
    for place in places:
        counts = state.herds.get(place)
        if counts:
            for seat, k in enumerate(counts):
                totals[seat] += k
    return totals


def interim_part(state: State, tile: tuple, place: tuple):
    """T16: the tiles to score if `tile` drifts to `place`, or None when nothing scores.

    A drift scores only if taking the tile split its land mass and the tile lands
    touching exactly one of the parts, no other land mass, and not the part that
    holds the pole. `state` is the board before the drift.
    """
    geo = state.geometry()
    if type(geo) is BitGeometry:
        return _interim_bits(geo, tile, place)
    tiles, mass_of = state.tiles, geo.mass_of
    home = mass_of[tile]
    touching = []
    for n in NEIGHBOURS[place]:
        if n == tile or n not in tiles:
            continue
        if mass_of[n] != home:
            return None  # attaching to another land mass reconnects: no scoring
        touching.append(n)
    if not touching:
        return None  # touching nothing: T16 scores nothing
    # The pieces the land mass falls into without the tile (the next board's masses start from
    # them too): it scores only if there are several, and the one the tile lands on holds every
    # cell the tile touches and not the pole.
    parts = geo.pieces_without(tile)
    if len(parts) < 2:
        return None
    first = touching[0]
    for part in parts:
        if first in part:
            break
    if POLE in part or any(n not in part for n in touching):
        return None
    return part | {place}


def _interim_bits(geo, tile: tuple, place: tuple):
    """interim_part from the bits of the board before the drift."""
    tb = BIT[tile]
    touching = NEAR[place] & (geo.T ^ tb)
    if not touching:
        return None  # touching nothing: T16 scores nothing
    if touching & geo.mass_bits[geo._home(tb)] != touching:
        return None  # attaching to another land mass reconnects: no scoring
    parts = geo._pieces_bits(tile)
    if len(parts) < 2:
        return None
    for part in parts:
        if part & touching:
            break
    if part & POLE_BIT or touching & part != touching:
        return None
    return frozenset(places(part | BIT[place]))


def majority_points(counts: list, first: int = 2, second: int = 1) -> list:
    """T16: the most herds score `first`, the second most `second` (ties all score)."""
    levels = sorted({k for k in counts if k > 0}, reverse=True)
    points = [0] * len(counts)
    for seat, k in enumerate(counts):
        if levels and k == levels[0]:
            points[seat] = first
        elif len(levels) > 1 and k == levels[1]:
            points[seat] = second
    return points


def mass_points(tiles: int, counts: list) -> list:
    """T18: one land mass of `tiles` tiles in final scoring; each share rounded up."""
    points = [0] * len(counts)
    levels = sorted({k for k in counts if k > 0}, reverse=True)
    if not levels:
        return points
    firsts = [s for s, k in enumerate(counts) if k == levels[0]]
    if len(firsts) > 1:
        for seat in firsts:  # tied firsts share first and second place; nobody else scores
            points[seat] = -(-3 * tiles // (2 * len(firsts)))  # (N + N/2) / k, rounded up
        return points
    points[firsts[0]] = tiles  # a sole player gets first place only
    if len(levels) > 1:
        seconds = [s for s, k in enumerate(counts) if k == levels[1]]
        for seat in seconds:
            points[seat] = -(-tiles // (2 * len(seconds)))  # N/2 / k, rounded up
    return points


def final_scores(state: State) -> dict:
    """T18: the per-land-mass table (main land mass excluded) and each seat's total."""
    geo = state.geometry()
    table = []
    # A bit board's masses as places, each listed once (not its masses as sets, made for this alone).
    masses = [places(m) for m in geo.mass_bits] if type(geo) is BitGeometry else geo.masses
    for i, mass in enumerate(masses):
        if i == geo.main:
            continue
        counts = herds_on(state, mass)
        points = mass_points(len(mass), counts)
        table.append({"tiles": sorted(label(p) for p in mass), "size": len(mass), "herds": counts, "points": points})
    table.sort(key=lambda row: row["tiles"])
    totals = [sum(row["points"][s] for row in table) for s in range(state.players)]
    return {"table": table, "points": totals}


def presence(state: State) -> list:
    """Land masses (the main one included) on which each seat has at least one herd (T19)."""
    geo = state.geometry()
    if type(geo) is BitGeometry:  # a seat's masses with a herd on a tile, from the bits
        return [sum(1 for m in geo.mass_bits if m & mine) for mine in _herd_bits(geo, state.herds, state.players)]
    found = [set() for _ in range(state.players)]
    for place, counts in state.herds.items():
        if place in geo.mass_of:
            for seat, k in enumerate(counts):
                if k:
                    found[seat].add(geo.mass_of[place])
    return [len(f) for f in found]


def _herd_bits(geo, herds: dict, players: int) -> list:
    """For each seat, the tiles (as bits) where it has a herd."""
    found = [0] * players
    tiles = geo.T
    for place, counts in herds.items():
        b = BIT.get(place)
        if b is not None and tiles & b:
            for seat, k in enumerate(counts):
                if k:
                    found[seat] |= b
    return found


def winners(score, stock, present) -> list:
    """T19: most points, then most herds in stock, then presence on most land masses; ties all win."""
    keys = [(score[s], stock[s], present[s]) for s in range(len(score))]
    best = max(keys)
    return [s for s, k in enumerate(keys) if k == best]
