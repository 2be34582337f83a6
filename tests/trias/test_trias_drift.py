"""Phase 1 and drifting (T9-T11), interim scoring (T16) and the rules' Example 2."""

import pytest

import trias
from trias.custom import position
from trias.hexes import distance

# A short arm of land: pole - 1,0 - 2,0 - 3,0 with 3,-1 beside 3,0.
ARM = {(1, 0): "steppe", (2, 0): "steppe", (3, 0): "woods", (3, -1): "woods"}


def refused(state, command, pattern):
    with pytest.raises(trias.IllegalMove, match=pattern) as caught:
        trias.handle(state, command)
    return caught.value


def test_t9_playing_the_hand_card_drifts_its_landscape_then_actions():
    state = position(3, ARM, {(3, 0): (1,)}, phase="start", hands=("woods", "steppe", "steppe"))
    events, after = trias.handle(state, {"type": "play", "tile": [3, 0], "to": [4, -1]})
    assert [e["type"] for e in events] == ["card_played", "drifted", "phase"]
    assert after.phase == "actions" and after.ap == 4 and after.hands[0] is None and after.played_hand


def test_t9_drawing_obliges_to_drift_the_drawn_landscape():
    state = position(3, ARM, {(3, 0): (1,)}, phase="start", deck=("woods", "meteorite"))
    events, after = trias.handle(state, {"type": "draw"})
    assert after.phase == "drift" and after.card == "woods" and after.hands[0] == "steppe"
    refused(after, {"type": "end_turn"}, r"drift phase allows drift")
    refused(after, {"type": "drift", "tile": [1, 0], "to": [2, -1]}, r"is steppe but the card is woods.*\(T9, T11\)")
    _, after = trias.handle(after, {"type": "drift", "tile": [3, 0], "to": [4, -1]})
    assert after.phase == "actions" and not after.played_hand


def test_t9_drawing_the_meteorite_starts_the_last_round_without_a_drift():
    state = position(3, ARM, {(3, 0): (1,)}, phase="start", deck=("meteorite",))
    events, after = trias.handle(state, {"type": "draw"})
    assert [e["type"] for e in events] == ["card_drawn", "last_round", "phase"]
    assert after.phase == "actions" and after.ap == 2 and after.tiles == state.tiles


def test_t10_tile_must_border_surrounding_water():
    tiles = {p: "steppe" for p in [(1, 0), (1, -1), (0, -1), (-1, 0), (-1, 1), (0, 1), (2, 0), (2, -1), (1, 1)]}
    state = position(3, tiles, {(1, 0): (1,)})
    err = refused(state, {"type": "drift", "tile": [1, 0], "to": [3, 0]}, r"tile 1,0 does not border the surrounding water \(T10\)")
    assert err.code == "not_on_surrounding_water"


def test_t10_place_must_be_farther_from_the_pole():
    state = position(3, ARM, {(3, 0): (1,)})
    err = refused(state, {"type": "drift", "tile": [3, 0], "to": [2, 1]}, r"place 2,1 is not farther from the pole than 3,0 \(T10\)")
    assert err.code == "not_farther"


def test_t10_player_needs_a_herd_on_the_land_mass():
    tiles = dict(ARM, **{})
    tiles.update({(-3, 0): "steppe", (-4, 0): "steppe"})
    state = position(3, tiles, {(3, 0): (0, 1), (-3, 0): (1,)})
    refused(state, {"type": "drift", "tile": [3, 0], "to": [4, -1]}, r"seat 0 has no herd on the land mass of tile 3,0 \(T10\)")
    assert trias.handle(state, {"type": "drift", "tile": [-3, 0], "to": [-4, 1]})


def test_t10_swimmers_do_not_count_as_presence_on_a_land_mass():
    state = position(3, ARM, {(5, 0): (1,)})  # seat 0 only swims
    refused(state, {"type": "drift", "tile": [3, 0], "to": [4, -1]}, r"no herd on the land mass .*\(T10\)")


def test_t10_pole_never_drifts_and_one_tile_masses_stay():
    tiles = {(-3, 0): "steppe"}
    state = position(3, tiles, {(0, 0): (1,), (-3, 0): (1,)})
    refused(state, {"type": "drift", "tile": [0, 0], "to": [1, 0]}, r"South Pole never drifts \(T10\)")
    refused(state, {"type": "drift", "tile": [-3, 0], "to": [-4, 0]}, r"land mass of one tile .*\(T10\)")


def test_t10_place_must_touch_the_land_mass_it_came_from():
    state = position(3, ARM, {(3, 0): (1,)})
    refused(state, {"type": "drift", "tile": [3, 0], "to": [5, 0]}, r"place 5,0 does not touch the land mass tile 3,0 came from \(T10\)")
    refused(state, {"type": "drift", "tile": [3, 0], "to": [3, -1]}, r"place 3,-1 already holds a tile; .*\(T10\)")


def test_t10_place_must_border_surrounding_water_once_placed():
    # Land all round 3,0 makes it an interior sea: a tile put there would face only that sea.
    lake = {p: "woods" for p in [(4, 0), (4, -1), (3, -1), (2, 0), (2, 1), (3, 1)]}
    lake[(1, 0)] = "steppe"
    state = position(3, lake, {(2, 0): (1,)})
    assert not state.geometry().surrounding((3, 0))
    err = refused(state, {"type": "drift", "tile": [1, 0], "to": [3, 0]}, r"place 3,0 would not border the surrounding water \(T10\)")
    assert err.code == "not_bordering_water"
    assert trias.is_legal(state, {"type": "drift", "tile": [1, 0], "to": [2, -1]})


def test_t10_taking_a_tile_on_an_interior_sea_opens_it():
    lake = {p: "woods" for p in [(4, 0), (4, -1), (3, -1), (2, 0), (2, 1), (3, 1)]}
    lake[(1, 0)] = "steppe"
    state = position(3, lake, {(2, 0): (1,)})
    # 4,0 borders the lake and the open sea; once taken, the lake is open water.
    assert trias.is_legal(state, {"type": "drift", "tile": [4, 0], "to": [3, 0]}) is False  # not farther
    assert trias.is_legal(state, {"type": "drift", "tile": [3, -1], "to": [5, -1]})


def test_t10_swimmers_come_back_to_land_and_herds_on_the_taken_tile_swim():
    state = position(3, ARM, {(3, 0): (1, 1), (4, -1): (0, 0, 2)})
    _, after = trias.handle(state, {"type": "drift", "tile": [3, 0], "to": [4, -1]})
    assert (3, 0) not in after.tiles and after.herds[(3, 0)] == (1, 1, 0)  # now swimmers
    assert after.tiles[(4, -1)] == "woods" and after.herds[(4, -1)] == (0, 0, 2)  # on land again


def test_t10_a_split_land_mass_may_be_rejoined_by_any_part_even_without_own_herds():
    state = position(3, ARM, {(1, 0): (1,)})
    # Taking 2,0 leaves {pole, 1,0} and {3,0, 3,-1}; seat 0 has herds only on the first.
    assert trias.is_legal(state, {"type": "drift", "tile": [2, 0], "to": [4, -2]})


def test_t11_another_landscape_when_the_cards_cannot_drift():
    state = position(3, ARM, {(1, 0): (1,)}, phase="start", hands=("mountain", "steppe", "steppe"))
    drifts = trias.legal_drifts(state)
    assert drifts and all(state.tiles[tuple(d["tile"])] != "mountain" for d in drifts)
    assert trias.is_legal(state, {"type": "play", "tile": [3, 0], "to": [4, -1]})


def test_t11_decision_no_legal_drift_at_all_ends_the_phase_without_one():
    state = position(3, {(-3, 0): "steppe"}, {(-3, 0): (1,)}, phase="start", deck=("woods", "meteorite"))
    assert trias.legal_drifts(state) == []
    assert trias.legal_actions(state) == [{"type": "play"}, {"type": "draw"}]
    events, after = trias.handle(state, {"type": "draw"})
    assert [e["type"] for e in events] == ["card_drawn", "drift_skipped", "phase"] and after.phase == "actions"
    events, after = trias.handle(state, {"type": "play"})
    assert "drift_skipped" in [e["type"] for e in events] and after.played_hand


def test_t11_a_card_without_drift_needs_the_drift_when_one_exists():
    state = position(3, ARM, {(3, 0): (1,)}, phase="start")
    refused(state, {"type": "play"}, r"a drift is possible.*\(T9, T11\)")


def test_t12_an_action_drift_costs_3_points_and_takes_any_landscape():
    state = position(3, ARM, {(3, 0): (1,)}, ap=4)
    events, after = trias.handle(state, {"type": "drift", "tile": [3, 0], "to": [4, -1]})
    assert after.ap == 1 and events[0]["cost"] == 3
    refused(after, {"type": "drift", "tile": [3, -1], "to": [4, -2]}, r"costs 3 action points and 1 are left \(T12\)")


def example_2():
    """The situation of the rules' Example 2: Black (seat 0) takes X at 2,0.

    Taking X splits its land mass in three: the main part (pole, 1,0, 1,-1, 1,-2),
    part P1 (3,-1, 4,-2, 5,-3) and part P2 (2,1, 2,2). Seats: Black 0, White 1,
    Grey 2, Cross 3.
    """
    tiles = {(1, 0): "steppe", (1, -1): "steppe", (1, -2): "steppe", (2, 0): "steppe",
             (3, -1): "woods", (4, -2): "woods", (5, -3): "woods", (2, 1): "woods", (2, 2): "woods"}
    herds = {(2, 0): (1, 0, 0, 0),            # Black's herd on X: it will swim
             (3, -1): (1, 0, 3, 0), (4, -2): (0, 0, 0, 3), (5, -3): (0, 2, 0, 0),
             (2, 1): (2, 0, 0, 0), (2, 2): (0, 1, 0, 0)}
    return position(4, tiles, herds)


@pytest.mark.parametrize("place,points", [
    ((2, -3), None),           # A: attaches to the part with the pole: no scoring
    ((4, -1), [0, 1, 2, 2]),   # B: new land mass of 4 tiles; Grey and Cross 3 each, White 2, Black 1
    ((3, 1), [2, 1, 0, 0]),    # C: new land mass of 3 tiles; Black 2, White 1
    ((3, 0), None),            # D: joins P1 and P2 again: no scoring
])
def test_t16_t20_example_2_placements_b_and_c_score_a_and_d_do_not(place, points):
    state = example_2()
    assert distance(place) > distance((2, 0))
    events, after = trias.handle(state, {"type": "drift", "tile": [2, 0], "to": list(place)})
    scored = [e for e in events if e["type"] == "scored"]
    if points is None:
        assert scored == [] and after.score == (0, 0, 0, 0)
    else:
        assert len(scored) == 1 and scored[0]["points"] == points and list(after.score) == points
        assert len(scored[0]["tiles"]) == (4 if place == (4, -1) else 3)
    assert after.herds[(2, 0)] == (1, 0, 0, 0)  # Black's herd swims where X was


def test_t16_example_2_other_places_are_refused():
    state = example_2()
    refused(state, {"type": "drift", "tile": [2, 0], "to": [2, -1]}, r"not farther .*\(T10\)")
    refused(state, {"type": "drift", "tile": [2, 0], "to": [0, 3]}, r"place 0,3 does not touch the land mass tile 2,0 came from \(T10\)")


def test_t10_drifts_to_far_places_from_anyone_leave_no_trace_in_the_process():
    """A seat anyone can mint may propose drifts to any place (T4: the board is unbounded). Each is
    refused as not touching the tile's land mass (T10), and the process's place tables stay as they
    were: 1,000 far places proposed add nothing to the places, neighbours or distances it keeps."""
    from trias import hexes

    tables = (hexes.PLACES, hexes.NEIGHBOURS, hexes.FROM_POLE, hexes.OUTWARD)
    state = position(3, ARM, {(3, 0): (1,)})
    start = position(3, ARM, {(3, 0): (1,)}, phase="start", hands=("woods", "steppe", "steppe"))
    refused(state, {"type": "drift", "tile": [3, 0], "to": [4, -1 + 10**6]}, r"does not touch .*\(T10\)")  # warm
    before = [len(t) for t in tables]
    for i in range(500):
        refused(state, {"type": "drift", "tile": [3, 0], "to": [10**9 + i, -7]}, r"does not touch the land mass .*\(T10\)")
        refused(start, {"type": "play", "tile": [3, 0], "to": f"{-10**9 - i},3"}, r"does not touch the land mass .*\(T10\)")
    assert [len(t) for t in tables] == before
    _, after = trias.handle(state, {"type": "drift", "tile": [3, 0], "to": [4, -1]})  # a near place still drifts
    assert after.tiles[(4, -1)] == "woods"
