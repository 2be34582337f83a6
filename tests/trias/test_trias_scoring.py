"""The last round, final scoring, tie-breaks and the rules' Example 3 (T17-T20)."""

import json

import pytest

import trias
from trias.custom import position
from trias.scoring import mass_points, winners
from trias_example_kit import EXAMPLE_3

BLACK, WHITE, CROSS, GREY = range(4)


def example_3_board():
    """Eight land masses as rows of woods far from the pole, herds on each row's first tile."""
    tiles, herds = {(1, 0): "steppe"}, {(1, 0): (1, 1, 1, 1)}
    for row, (size, counts, _) in enumerate(EXAMPLE_3.values()):
        r = 4 + 2 * row  # rows two apart never touch
        for q in range(size):
            tiles[(q, r)] = "woods"
        herds[(0, r)] = counts
    return position(4, tiles, herds)


@pytest.mark.parametrize("name", sorted(EXAMPLE_3))
def test_t18_t20_example_3_each_land_mass(name):
    size, counts, points = EXAMPLE_3[name]
    assert mass_points(size, list(counts)) == points


def test_t18_t20_example_3_totals_19_15_15_8_from_the_board():
    final = trias.final_scores(example_3_board())
    assert len(final["table"]) == 8  # the main land mass (pole, 1,0) is not scored
    assert final["points"] == [19, 15, 15, 8]
    assert sorted(row["size"] for row in final["table"]) == sorted(s for s, _, _ in EXAMPLE_3.values())
    json.dumps(final)


def test_t18_sole_player_gets_first_place_only():
    assert mass_points(5, [3, 0, 0]) == [5, 0, 0]


def test_t18_tied_seconds_share_half_rounded_up():
    assert mass_points(5, [3, 1, 1]) == [5, 2, 2]  # 5/2/2 = 1.25 -> 2 each
    assert mass_points(4, [3, 2, 2, 2]) == [4, 1, 1, 1]  # 2/3 -> 1 each


def test_t18_tied_firsts_share_first_and_second_and_third_gets_nothing():
    assert mass_points(6, [2, 2, 1]) == [5, 5, 0]


def test_t19_ties_go_to_stock_then_presence_then_all_win():
    assert winners([10, 10, 8], [3, 5, 9], [1, 1, 1]) == [1]
    assert winners([10, 10, 8], [5, 5, 9], [2, 3, 1]) == [1]
    assert winners([10, 10, 8], [5, 5, 9], [3, 3, 1]) == [0, 1]


def play_out(state, commands):
    for command in commands:
        _, state = trias.handle(state, command)
    return state


def test_t17_meteorite_in_phase_1_last_round_of_one_turn_each_then_final_scoring():
    tiles = {(1, 0): "steppe", (2, 0): "steppe", (3, 0): "woods", (-3, 0): "woods", (-4, 0): "woods"}
    state = position(3, tiles, {(1, 0): (1,), (3, 0): (0, 1), (-3, 0): (1, 0, 2)}, phase="start", deck=("meteorite",))
    state = play_out(state, [{"type": "draw"}])
    assert (state.phase, state.ap, state.last_round) == ("actions", 2, 2)
    state = play_out(state, [{"type": "end_turn"}])
    assert (state.current, state.phase, state.ap) == (1, "actions", 2)  # T17: no phase 1
    state = play_out(state, [{"type": "end_turn"}])
    assert (state.current, state.phase, state.ap) == (2, "actions", 2)
    events, state = trias.handle(state, {"type": "end_turn"})
    assert [e["type"] for e in events][-2:] == ["scored", "game_over"]
    assert state.phase == "over"
    assert state.score == (1, 0, 2)  # -3,0 / -4,0: seat 2 first (2 tiles), seat 0 second (2/2)
    assert state.result["winners"] == [2]
    with pytest.raises(trias.IllegalMove, match=r"game is over.*\(T18\)"):
        trias.handle(state, {"type": "end_turn"})


def test_t16_t21_no_interim_scoring_with_two_players():
    tiles = {(1, 0): "steppe", (2, 0): "steppe", (3, 0): "woods", (3, -1): "woods"}
    state = position(2, tiles, {(3, 0): (1, 0), (3, -1): (0, 1), (1, 0): (1, 0)})
    events, after = trias.handle(state, {"type": "drift", "tile": [2, 0], "to": [4, -2]})
    assert not [e for e in events if e["type"] == "scored"] and after.score == (0, 0)
    state3 = position(3, tiles, {(3, 0): (1, 0), (3, -1): (0, 1), (1, 0): (1, 0)})
    events, after = trias.handle(state3, {"type": "drift", "tile": [2, 0], "to": [4, -2]})
    assert after.score == (2, 2, 0)  # the same drift scores with three players (T16)
