"""Legal moves: one set of checks that both lists the legal moves and refuses illegal ones.

`check(state, command)` raises an IllegalMove naming the failed condition and
its rule; `legal_actions(state)` lists every command `check` accepts.
"""

from __future__ import annotations

from .bitboard import BIT, NEAR, BitGeometry, nth_place, places
from .draws import below, shuffle
from .errors import BadCommand, IllegalMove
from .hexes import POLE, distance, label, named_distance, named_neighbours, neighbours, parse
from .mirror import check_meteorite_drawn, hidden_cards, possible_cards, table_card  # noqa: F401 (re-exported)
from .state import CAPACITY, State

PHASE_COMMANDS = {
    "place": {"place"},
    "start": {"play", "draw", "meteorite_drawn"},
    "drift": {"drift"},
    "actions": {"drift", "move", "rescue", "reproduce", "end_turn"},
}
# A game whose cards the engine deals has no 'meteorite_drawn' (T15: mirror games only).
_PHASE_COMMANDS_DEALT = {phase: kinds - {"meteorite_drawn"} for phase, kinds in PHASE_COMMANDS.items()}
_NOTHING = frozenset()
DRIFT_COST = 3  # T12


def place_of(command: dict, key: str) -> tuple:
    """The place under `key` in a command, or a BadCommand saying what is wrong."""
    try:
        return parse(command[key])
    except (KeyError, ValueError, TypeError):
        raise BadCommand("bad_place", f"'{key}' must be a place like [3, -1]; got {str(command.get(key))[:40]!r}") from None


def masses_with_herds(state: State, seat: int) -> set:
    """Land masses where `seat` has a herd on a tile; swimmers do not count (T10)."""
    geo = state.geometry()
    if type(geo) is BitGeometry:
        mine = geo.herd_masses(state.herds, seat)
        return {i for i, m in enumerate(geo.mass_bits) if m & mine}
    mass_of = geo.mass_of
    return {mass_of[p] for p, c in state.herds.items() if c[seat] and p in mass_of}


def _herd_on_mass(state: State, seat: int, mass_of: dict, mass: int) -> bool:
    """Whether `seat` has a herd on a tile of land mass `mass` (T10): masses_with_herds, stopping early."""
    for p, c in state.herds.items():
        if c[seat] and mass_of.get(p) == mass:
            return True
    return False


def drift_tiles(state: State, seat: int, landscape: str | None = None) -> list:
    """Tiles `seat` may take (T10) of `landscape` (any if None), before looking for places: in the
    places' order (listing 2), or in the tiles' order (listing 1, state.LISTING)."""
    geo = state.geometry()
    if type(geo) is BitGeometry:  # the tiles of the seat's land masses, as bits
        mine = geo.herd_masses(state.herds, seat)
        if state.listing != 1:
            return places(geo.drift_tile_bits(landscape, mine))
        if geo.tiles is state.tiles:  # the geometry's own tiles: its list is in this state's order
            return geo.takeable(landscape, mine)
        ok = geo.takeable_bits() & mine
        return [a for a, kind in state.tiles.items() if (landscape is None or kind == landscape) and BIT[a] & ok]
    mine = masses_with_herds(state, seat)
    mass_of = geo.mass_of
    if geo.tiles is state.tiles:  # the geometry's own tiles: its list is in this state's order
        found = [a for a in geo.takeable(landscape) if mass_of[a] in mine]
    else:
        found = [a for a, kind in state.tiles.items()
                 if (landscape is None or kind == landscape) and mass_of[a] in mine and geo.can_take(a)]
    if state.listing != 1:
        found.sort()  # the places' order
    return found


def any_drift(state: State, seat: int, landscape: str | None = None) -> bool:
    """Whether `seat` has at least one legal drift of `landscape` (any if None), stopping at the first."""
    geo = state.geometry()
    if type(geo) is BitGeometry:
        return geo.any_place(geo.drift_tile_bits(landscape, geo.herd_masses(state.herds, seat)))
    mine = masses_with_herds(state, seat)
    mass_of = geo.mass_of
    # Tile by tile in any order (it is a yes or no): the first tile that can go somewhere ends it.
    for a, kind in state.tiles.items():
        if (landscape is None or kind == landscape) and mass_of[a] in mine and geo.can_take(a) and geo.has_place(a):
            return True
    return False


def drift_pairs(state: State, seat: int, landscape: str | None) -> list:
    """T10/T11: every (tile, place) drift `seat` may make with a card of `landscape`.

    With no landscape (an action drift, T12) any kind of tile may drift. With a
    card, only its landscape may, unless no such drift exists: then any other
    (T11); if none exists at all the list is empty (T11 Decision).
    """
    geo = state.geometry()
    if landscape is not None:
        same = [(a, b) for a in drift_tiles(state, seat, landscape) for b in geo.places_for(a)]
        if same:
            return same
    return [(a, b) for a in drift_tiles(state, seat) for b in geo.places_for(a)]


def random_drift(state: State, seat: int, landscape: str | None, rng) -> tuple | None:
    """One legal drift drawn at random (a random tile that can move, then a random place), or None.

    Much cheaper than listing them all: only the tiles tried have their places worked out. Listing 1
    (state.LISTING) shuffles the seat's drift tiles and takes the first that has a place; listing 2
    draws one of them at a time (a draw per tile tried), dropping each that has none: either way a
    tile drawn evenly among those with a place.
    """
    geo = state.geometry()
    if state.listing != 1:
        return _drawn_drift(state, geo, seat, landscape, rng)
    bits = type(geo) is BitGeometry
    for wanted in ([landscape, None] if landscape is not None else [None]):
        tiles = drift_tiles(state, seat, wanted)
        shuffle(rng, tiles)
        for a in tiles:
            if bits:  # the k-th of the places in order, without listing them: the same draw (choice reads the length)
                found = geo.places_bits(a)
                if found:
                    return a, nth_place(found, below(rng, found.bit_count()))
                continue
            places = geo.places_for(a)
            if places:
                return a, rng.choice(places)
    return None


def _drawn_drift(state: State, geo, seat: int, landscape: str | None, rng) -> tuple | None:
    """random_drift in listing 2: the k-th of the drift tiles as listed (drift_tiles), k drawn, until
    one has a drift place; then the k-th of its places, k drawn. A bit board draws from the bits."""
    for wanted in ([landscape, None] if landscape is not None else [None]):
        if type(geo) is BitGeometry:
            left = geo.drift_tile_bits(wanted, geo.herd_masses(state.herds, seat))
            n = left.bit_count()
            while n:
                a = nth_place(left, below(rng, n))
                found = geo.places_bits(a)
                if found:
                    return a, nth_place(found, below(rng, found.bit_count()))
                left ^= BIT[a]
                n -= 1
        else:
            tiles = drift_tiles(state, seat, wanted)
            while tiles:
                a = tiles.pop(below(rng, len(tiles)))
                found = geo.places_for(a)
                if found:
                    return a, found[below(rng, len(found))]
    return None


def drift_landscape(state: State, card: str | None = None) -> str | None:
    """The landscape the pending drift must use: the hand card, the drawn card, or none (T9, T12).

    `card`: in a mirror game, the hand card the table shows (the engine does not know it).
    """
    if state.phase == "start":
        return card if state.mirror else state.hands[state.current]
    if state.phase == "drift":
        return state.card
    return None


def check_drift(state: State, seat: int, tile: tuple, place: tuple, landscape: str | None) -> None:
    """Refuse a drift that breaks T10/T11, naming the first condition that fails."""
    geo = state.geometry()
    kind = state.tiles.get(tile)
    if type(geo) is BitGeometry and kind is not None:
        # A legal drift, the usual command, is one of the tile's drift places (T10) as listed, on a
        # land mass with a herd of the seat's, of the card's landscape if one of those can drift
        # (T11): the conditions below one by one only for a refusal.
        pb = BIT.get(place)
        if pb is not None and geo.places_bits(tile) & pb and geo.herd_masses(state.herds, seat) & BIT[tile] \
                and (landscape is None or kind == landscape or not any_drift(state, seat, landscape)):
            return
    if kind is None:
        raise IllegalMove("no_tile", f"there is no tile at {label(tile)} to drift (T10)")
    if tile == POLE:
        raise IllegalMove("pole_never_drifts", "the South Pole never drifts (T10)")
    if landscape is not None and kind != landscape:
        if any_drift(state, seat, landscape):
            raise IllegalMove("wrong_landscape", f"tile {label(tile)} is {kind} but the card is {landscape}, and a {landscape} tile can drift (T9, T11)")
    if not geo.borders_surrounding(tile):
        raise IllegalMove("not_on_surrounding_water", f"tile {label(tile)} does not border the surrounding water (T10)")
    if type(geo) is BitGeometry:
        _check_drift_bits(state, geo, seat, tile, place)
        return
    if len(geo.masses[geo.mass_of[tile]]) == 1:
        raise IllegalMove("single_tile_mass", f"tile {label(tile)} is a land mass of one tile and no longer drifts (T10)")
    if not _herd_on_mass(state, seat, geo.mass_of, geo.mass_of[tile]):
        raise IllegalMove("no_herd_on_mass", f"seat {seat} has no herd on the land mass of tile {label(tile)} (T10)")
    if place in state.tiles:
        raise IllegalMove("place_taken", f"place {label(place)} already holds a tile; a drift needs an empty place (T10)")
    if named_distance(place) <= distance(tile):  # the place comes from the command: hexes caches none
        raise IllegalMove("not_farther", f"place {label(place)} is not farther from the pole than {label(tile)} (T10)")
    home = geo.masses[geo.mass_of[tile]]
    for n in named_neighbours(place):
        if n in home and n != tile:
            break
    else:
        raise IllegalMove("not_touching_mass", f"place {label(place)} does not touch the land mass tile {label(tile)} came from (T10)")
    if not geo.borders_after(tile, place):
        raise IllegalMove("not_bordering_water", f"place {label(place)} would not border the surrounding water (T10)")


def _check_drift_bits(state: State, geo: BitGeometry, seat: int, tile: tuple, place: tuple) -> None:
    """check_drift's conditions from the land mass's bits (T10), in the same order."""
    tb = BIT[tile]
    home = geo.mass_bits[geo._home(tb)]
    if home == tb:
        raise IllegalMove("single_tile_mass", f"tile {label(tile)} is a land mass of one tile and no longer drifts (T10)")
    if not geo.herd_masses(state.herds, seat) & home:
        raise IllegalMove("no_herd_on_mass", f"seat {seat} has no herd on the land mass of tile {label(tile)} (T10)")
    if place in state.tiles:
        raise IllegalMove("place_taken", f"place {label(place)} already holds a tile; a drift needs an empty place (T10)")
    if named_distance(place) <= distance(tile):  # the place comes from the command: hexes caches none
        raise IllegalMove("not_farther", f"place {label(place)} is not farther from the pole than {label(tile)} (T10)")
    if not NEAR.get(place, 0) & home & ~tb:  # a place beyond the grid touches no tile
        raise IllegalMove("not_touching_mass", f"place {label(place)} does not touch the land mass tile {label(tile)} came from (T10)")
    if not geo.borders_after(tile, place):
        raise IllegalMove("not_bordering_water", f"place {label(place)} would not border the surrounding water (T10)")


def check(state: State, command: dict) -> dict:
    """Refuse an illegal command with a named error; return it with places parsed."""
    if not isinstance(command, dict):
        raise BadCommand("not_a_command", "a command must be a JSON object with a 'type'")
    kind = command.get("type")
    if state.phase == "over":
        raise IllegalMove("game_over", "the game is over; final scoring has been done (T18)")
    allowed = (PHASE_COMMANDS if state.mirror else _PHASE_COMMANDS_DEALT).get(state.phase, _NOTHING)
    if kind not in CHECKS:
        raise BadCommand("unknown_command", f"unknown command type {str(kind)[:40]!r}; known: {', '.join(sorted(CHECKS))}")
    if kind == "meteorite_drawn" and not state.mirror:
        raise IllegalMove("mirror_only", "'meteorite_drawn' only records a physical table's card in a mirror game; "
                          "here the engine deals the cards itself (T15)")
    if kind not in allowed:
        raise IllegalMove("wrong_phase", f"'{kind}' is not possible now: the {state.phase} phase allows {', '.join(sorted(allowed)) or 'nothing'} (T9-T15)")
    if "player" in command and command["player"] != state.current:
        raise IllegalMove("not_your_turn", f"it is seat {state.current}'s turn, not seat {command['player']}'s (T8, T9)")
    return CHECKS[kind](state, command)


def _check_place(state: State, command: dict) -> dict:
    at = place_of(command, "at")
    if at not in state.tiles:
        raise IllegalMove("not_a_tile", f"place {label(at)} is water; herds start on a tile (T8)")
    if state.total(at):
        raise IllegalMove("not_vacant", f"tile {label(at)} already holds herds; place on a vacant tile (T8)")
    return {"type": "place", "at": at}


def _check_play(state: State, command: dict) -> dict:
    seat = state.current
    card = table_card(state, command, "play") if state.mirror else state.hands[seat]
    done = {"type": "play", "card": card} if state.mirror else {"type": "play"}
    if "tile" not in command:
        if any_drift(state, seat):
            raise IllegalMove("drift_required", "a drift is possible, so playing the card needs a 'tile' and a 'to' place (T9, T11)")
        return done
    tile, place = place_of(command, "tile"), place_of(command, "to")
    check_drift(state, seat, tile, place, card)
    return {**done, "tile": tile, "to": place}


def _check_draw(state: State, command: dict) -> dict:
    if not state.deck:
        raise IllegalMove("deck_empty", "the deck is empty; play the hand card (T9)")
    if state.mirror:
        return {"type": "draw", "card": table_card(state, command, "draw")}
    return {"type": "draw"}


def _check_drift(state: State, command: dict) -> dict:
    if state.phase == "actions" and state.ap < DRIFT_COST:
        raise IllegalMove("not_enough_points", f"a drift costs {DRIFT_COST} action points and {state.ap} are left (T12)")
    tile, place = place_of(command, "tile"), place_of(command, "to")
    check_drift(state, state.current, tile, place, drift_landscape(state))
    return {"type": "drift", "tile": tile, "to": place}


def _check_points(state: State, need: int = 1) -> None:
    if state.ap < need:
        raise IllegalMove("not_enough_points", "no action points are left this turn (T12)")


def check_entry(state: State, place: tuple, extra: int = 0) -> None:
    """T13: a herd may enter only a tile below its capacity."""
    kind = state.tiles.get(place)
    if kind is None:
        raise IllegalMove("not_a_tile", f"place {label(place)} is water; herds move onto tiles (T12)")
    if state.total(place) + extra >= CAPACITY[kind]:
        raise IllegalMove("tile_full", f"tile {label(place)} is at its capacity of {CAPACITY[kind]} and blocks (T13)")


def _check_move(state: State, command: dict) -> dict:
    _check_points(state)
    seat, a, b = state.current, place_of(command, "from"), place_of(command, "to")
    if a not in state.tiles or not state.own(a, seat):
        raise IllegalMove("no_herd_there", f"seat {seat} has no herd on a tile at {label(a)} (T12)")
    if b not in neighbours(a):
        raise IllegalMove("not_adjacent", f"place {label(b)} is not next to {label(a)}; a herd moves one step per point (T12)")
    check_entry(state, b)
    fresh = bool(command.get("fresh", False))
    if fresh and state.own(a, seat) - state.spent.get(a, 0) < 1:
        raise IllegalMove("no_fresh_herd", f"every herd of seat {seat} at {label(a)} has reproduced or was born this turn (T12)")
    return {"type": "move", "from": a, "to": b, "fresh": fresh}


def _check_rescue(state: State, command: dict) -> dict:
    _check_points(state)
    seat = state.current
    pairs = command.get("herds")
    if not isinstance(pairs, list) or not 1 <= len(pairs) <= 3:
        raise BadCommand("bad_rescue", "'herds' must list 1 to 3 [from, to] pairs (T12)")
    parsed, used, added = [], {}, {}
    for pair in pairs:
        if not isinstance(pair, (list, tuple)) or len(pair) != 2:
            raise BadCommand("bad_rescue", "each rescued herd is a [from, to] pair of places (T12)")
        a, b = place_of({"p": pair[0]}, "p"), place_of({"p": pair[1]}, "p")
        used[a] = used.get(a, 0) + 1
        if a in state.tiles or state.own(a, seat) < used[a]:
            raise IllegalMove("no_swimmer_there", f"seat {seat} has no (more) swimmers at {label(a)} (T12)")
        if b not in neighbours(a):
            raise IllegalMove("not_adjacent", f"tile {label(b)} is not next to the swimmer at {label(a)} (T12)")
        check_entry(state, b, added.get(b, 0))
        added[b] = added.get(b, 0) + 1
        parsed.append((a, b))
    return {"type": "rescue", "herds": parsed}


def _check_reproduce(state: State, command: dict) -> dict:
    _check_points(state)
    seat, at = state.current, place_of(command, "at")
    if at not in state.tiles or not state.own(at, seat):
        raise IllegalMove("no_herd_there", f"seat {seat} has no herd on a tile at {label(at)} (T12)")
    if state.own(at, seat) - state.spent.get(at, 0) < 1:
        raise IllegalMove("no_fresh_herd", f"every herd of seat {seat} at {label(at)} has reproduced or was born this turn (T12)")
    if not state.stock[seat]:
        raise IllegalMove("stock_empty", f"seat {seat} has no herds left in stock (T12)")
    kind = state.tiles[at]
    if state.total(at) >= CAPACITY[kind]:
        raise IllegalMove("tile_full", f"tile {label(at)} is at its capacity of {CAPACITY[kind]}; no herd is born there (T13)")
    return {"type": "reproduce", "at": at}


def _check_end_turn(state: State, command: dict) -> dict:
    return {"type": "end_turn"}


CHECKS = {
    "place": _check_place,
    "play": _check_play,
    "draw": _check_draw,
    "meteorite_drawn": check_meteorite_drawn,
    "drift": _check_drift,
    "move": _check_move,
    "rescue": _check_rescue,
    "reproduce": _check_reproduce,
    "end_turn": _check_end_turn,
}
