"""The board: hex geometry, the two set-ups, land masses and water (T1-T5, T21)."""

from collections import Counter

import pytest

import trias
from trias.bitboard import geometry_of as Geometry
from trias.board import components
from trias.custom import position
from trias.hexes import POLE, disc, distance, neighbours, ring


def kinds(state):
    return Counter(state.tiles.values())


def test_t1_three_rings_of_6_12_18_places():
    assert [len(ring(k)) for k in (1, 2, 3)] == [6, 12, 18]
    assert len(disc(3)) == 37
    assert all(distance(p) == k for k in (1, 2, 3) for p in ring(k))


@pytest.mark.parametrize("players", [3, 4, 5])
def test_t2_t3_set_up_places_34_land_tiles_and_leaves_two_water_places(players):
    state, events = trias.new_game(players, seed=11)
    assert kinds(state)["pole"] == 1 and state.tiles[POLE] == "pole"
    land = {p: k for p, k in state.tiles.items() if k != "pole"}
    assert len(land) == 34  # T3: 16 inner + 18 outer; 2 land tiles unused
    inner = [p for p in land if distance(p) <= 2]
    assert len(inner) == 16 and all(distance(p) == 3 for p in land if p not in inner)
    water = [tuple(p) for p in events[0]["water"]]
    assert len(water) == 2 and all(p not in state.tiles and distance(p) <= 2 for p in water)
    unused = Counter(events[0]["unused"])
    assert sum(unused.values()) == 2
    total = Counter(kinds(state)) + unused
    assert (total["mountain"], total["steppe"], total["woods"]) == (9, 15, 12)  # T2


def test_t3_set_up_is_shuffled_and_deterministic_from_the_seed():
    a, _ = trias.new_game(4, seed=1)
    b, _ = trias.new_game(4, seed=1)
    c, _ = trias.new_game(4, seed=2)
    assert a == b and a != c


def test_t21_two_player_board_is_19_tiles_on_rings_1_and_2_without_water():
    state, events = trias.new_game(2, seed=5)
    assert set(state.tiles) == set(disc(2))
    assert kinds(state) == Counter({"pole": 1, "mountain": 5, "steppe": 7, "woods": 6})
    assert events[0]["water"] == [] and events[0]["unused"] == []


def test_t4_distance_is_hex_steps_from_the_pole():
    assert distance(POLE) == 0
    assert distance((3, -1)) == 3 and distance((2, 2)) == 4 and distance((-4, 1)) == 4
    assert all(distance(n) == 1 for n in neighbours(POLE))


def test_t4_board_is_unbounded_a_tile_may_drift_beyond_ring_3():
    state = position(3, {(1, 0): "steppe", (2, 0): "steppe", (3, 0): "woods", (3, -1): "woods"}, {(3, 0): (1,)})
    assert {"type": "drift", "tile": [3, 0], "to": [4, -1]} in trias.legal_actions(state)
    _, after = trias.handle(state, {"type": "drift", "tile": [3, 0], "to": [4, -1]})
    assert after.tiles[(4, -1)] == "woods" and distance((4, -1)) == 4


def test_t5_land_masses_are_edge_connected_groups():
    tiles = {(1, 0): "steppe", (3, 0): "woods", (4, 0): "woods", (-3, 0): "mountain"}
    geo = position(3, tiles).geometry()
    sizes = sorted(len(m) for m in geo.masses)
    assert sizes == [1, 2, 2]
    assert geo.masses[geo.main] == {POLE, (1, 0)}  # the main land mass holds the pole


def test_t5_taking_a_tile_can_split_a_land_mass():
    geo = position(3, {(1, 0): "steppe", (2, 0): "steppe", (3, 0): "woods"}).geometry()
    assert len(geo.masses) == 1
    parts = geo.pieces_without((2, 0))
    assert sorted(len(p) for p in parts) == [1, 2]
    assert components([(0, 0), (2, 0)]) and len(components([(0, 0), (2, 0)])) == 2


def ring_board():
    """Ring 2 all land around an empty ring 1 except the pole: ring 1 is an interior sea."""
    return {p: "steppe" for p in ring(2)}


def test_t5_water_enclosed_by_land_is_an_interior_sea_not_surrounding_water():
    geo = Geometry({**ring_board(), POLE: "pole"})
    assert all(not geo.surrounding(p) for p in ring(1))
    assert all(geo.surrounding(p) for p in ring(3))
    assert geo.surrounding((10, -3))  # beyond the board: still the open sea
    assert len(geo.seas) == 1 and geo.seas[0] == set(ring(1))


def test_t5_a_tile_on_an_interior_sea_only_does_not_border_surrounding_water():
    tiles = {**ring_board(), POLE: "pole"}
    tiles.update({p: "woods" for p in ring(3)})
    geo = Geometry(tiles)
    assert not geo.borders_surrounding((2, 0))  # ring 2 touches only the sea and ring 3
    assert geo.borders_surrounding((3, 0))


def test_places_named_in_commands_from_anyone_do_not_stay_in_the_process():
    """A seat anyone can mint may name any place in a move (T4: the board is unbounded): parsing it hands out the
    known place's one object, and remembers nothing new, so a stranger cannot grow the server's memory."""
    from trias.hexes import NEIGHBOURS, PLACES, parse

    known = NEIGHBOURS[POLE][0]
    before = len(PLACES)
    far = [parse([10**9 + i, -7]) for i in range(500)] + [parse(f"{-10**9 - i},3") for i in range(500)]
    assert far[0] == (10**9, -7) and far[-1] == (-10**9 - 499, 3)
    assert len(PLACES) == before
    assert parse(list(known)) is known and parse("1,0") is known
