"""How good a position looks for each seat: the greedy player's judgement and the search's leaf value.

Points in hand count fully; the final scoring of the land masses as they lie now
(T18) counts most of its worth, since the masses still change; herds on land,
in stock and swimming count a little, less where a drift could soon take the
tile from under them (T10) or where the tile is one of a mass about to split.
"""

from __future__ import annotations

from ..hexes import NEIGHBOURS, POLE, neighbours
from ..scoring import mass_points, presence, winners
from ..state import State

PROJECTED = 0.7    # share of the final scoring as the board lies now (T18), rising to 1 at the end
ON_MAIN = 0.3      # a herd on the main mass early on: presence where new masses will split off (T16)
ON_MAIN_LATE = 0.05  # ... and at the end, when the main mass scores nothing (T18)
ON_OTHER = 0.05    # a herd on another mass, beyond what the projected scoring gives it
AT_RISK = 0.0      # taken off a herd on a tile that may drift away from under it (T10)
IN_STOCK = 0.1     # a herd in stock (or swimming: it goes back there, T14) breaks ties (T19)
LOCAL = 0.25       # local majorities on the main mass: the pieces it will break into (T16, T18)
def progress_left(state: State) -> float:
    """1 at the start of play, falling to 0 when the last round begins (T17)."""
    if state.last_round is not None:
        return 0.0
    full = 21 if state.players == 2 else 39
    return min(1.0, len(state.deck) / (full - state.players))


def values(state: State) -> list:
    """Each seat's estimated worth in points."""
    if state.phase == "over":
        won = winners(state.score, state.stock, presence(state))
        return [state.score[s] + (100 if s in won else 0) for s in range(state.players)]
    geo = state.geometry()
    n = state.players
    left = progress_left(state)
    on_main = ON_MAIN_LATE + (ON_MAIN - ON_MAIN_LATE) * left
    projected = 1.0 - (1.0 - PROJECTED) * left
    worth = [float(state.score[s]) + IN_STOCK * state.stock[s] for s in range(n)]
    # Herds per land mass in one pass over the herds (not over every tile): a mass without
    # herds adds nothing, so only masses with herds are visited, in the order the herds list
    # them (a mass's number depends on the boards before this one, the herds' order does not).
    # Whole herd counts, so summing them seat by seat at the end (in C) gives the same numbers.
    tiles, mass_of = state.tiles, geo.mass_of
    on_mass: dict = {}  # mass -> herd counts of its tiles
    swimming = []
    for place, c in state.herds.items():
        if place in tiles:
            found = on_mass.get(mass_of[place])
            if found is None:
                on_mass[mass_of[place]] = [c]
            else:
                found.append(c)
        else:
            swimming.append(c)
    per_mass = {i: list(map(sum, zip(*found))) for i, found in on_mass.items()}
    if AT_RISK:  # weight 0 by default: the flood of risky tiles is skipped
        risky = _risky(state, geo)
        for place, c in state.herds.items():
            if place in risky:
                for s in range(n):
                    worth[s] -= AT_RISK * c[s]
    for i, counts in per_mass.items():
        if i == geo.main:
            for s in range(n):
                worth[s] += on_main * counts[s]
            _local_majorities(state, geo.masses[i], worth, LOCAL * (0.2 + 0.8 * left))
        else:
            for s, p in enumerate(mass_points(len(geo.masses[i]), counts)):
                worth[s] += projected * p + ON_OTHER * counts[s]
    for c in swimming:
        for s in range(n):
            worth[s] += IN_STOCK * c[s]
    return worth


def _local_majorities(state: State, mass, worth: list, weight: float) -> None:
    """Majorities round each tile of the main mass, where it will break into new masses (T18).

    "Extensive dispersion of one's own herds and presence on many land tiles is an
    advantage", as the rules' tip says: a seat leading in many neighbourhoods is
    likely to lead on the pieces that drift away.
    """
    n = state.players
    around: dict = {}  # tile -> herd counts on it and its neighbours, in the order first met
    near = NEIGHBOURS
    for place, c in state.herds.items():
        if place not in mass:
            continue
        found = around.get(place)
        if found is None:
            around[place] = [c]
        else:
            found.append(c)
        for m in near[place]:
            if m in mass:
                found = around.get(m)
                if found is None:
                    around[m] = [c]
                else:
                    found.append(c)
    seats = range(n)
    for found in around.values():
        counts = found[0] if len(found) == 1 else list(map(sum, zip(*found)))  # whole numbers: exact
        top = max(counts)
        if top:
            leaders = [s for s in seats if counts[s] == top]
            share = weight / len(leaders)
            for s in leaders:
                worth[s] += share


def _risky(state: State, geo) -> set:
    """Tiles that could soon drift (T10): on open water, not the pole, not alone.

    Any water neighbour counts, interior seas too: telling them apart needs a
    flood fill of the sea, too dear for a judgement made thousands of times.
    """
    if state.last_round is not None:
        return set()  # T17: no more mandatory drifts; action drifts cost most of 2 points
    tiles = state.tiles
    return {p for p in state.herds if p in tiles and p != POLE and len(geo.masses[geo.mass_of[p]]) > 1
            and not all(n in tiles for n in neighbours(p))}


def evaluate(state: State, seat: int) -> float:
    """`seat`'s worth minus the best of the others': above 0 means ahead."""
    worth = values(state)
    best_other = max(w for s, w in enumerate(worth) if s != seat)
    return worth[seat] - best_other
