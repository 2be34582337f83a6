"""Phase 2 actions, capacities, swimmers and the hand card (T12-T15)."""

import pytest

import trias
from trias.custom import position

# pole - 1,0 (steppe) - 2,0 (mountain) - 3,0 (woods), and 1,-1 (woods) beside 1,0
LINE = {(1, 0): "steppe", (2, 0): "mountain", (3, 0): "woods", (1, -1): "woods"}


def do(state, *commands):
    for command in commands:
        _, state = trias.handle(state, command)
    return state


def refused(state, command, pattern):
    with pytest.raises(trias.TriasError, match=pattern):
        trias.handle(state, command)


@pytest.mark.parametrize("players,points", [(2, 3), (3, 4), (5, 4)])
def test_t12_t21_action_points_per_turn(players, points):
    state, _ = trias.new_game(players, seed=2)
    while state.phase == "place":
        state = do(state, trias.legal_actions(state)[0])
    state = do(state, {"type": "draw"})
    if state.phase == "drift":
        state = do(state, trias.legal_actions(state)[0])
    assert state.phase == "actions" and state.ap == points


def test_t12_move_costs_one_point_per_step_and_a_herd_may_move_again():
    state = position(3, LINE, {(1, 0): (1,)})
    state = do(state, {"type": "move", "from": [1, 0], "to": [2, 0]}, {"type": "move", "from": [2, 0], "to": [3, 0]})
    assert state.ap == 2 and state.own((3, 0), 0) == 1 and state.own((1, 0), 0) == 0
    refused(state, {"type": "move", "from": [3, 0], "to": [1, 0]}, r"not next to 3,0.*\(T12\)")
    refused(state, {"type": "move", "from": [3, 0], "to": [4, 0]}, r"place 4,0 is water.*\(T12\)")
    refused(state, {"type": "move", "from": [1, 0], "to": [2, 0]}, r"no herd on a tile at 1,0 \(T12\)")


def test_t12_unused_points_are_lost_at_the_end_of_the_turn():
    state = position(3, LINE, {(1, 0): (1, 1)}, deck=("woods",) * 5 + ("meteorite",))
    state = do(state, {"type": "move", "from": [1, 0], "to": [2, 0]}, {"type": "end_turn"})
    assert state.current == 1 and state.phase == "start" and state.ap == 4


def test_t12_the_turn_ends_by_itself_when_no_point_is_left():
    state = position(3, LINE, {(1, 0): (1, 1)}, ap=1)
    events, state = trias.handle(state, {"type": "move", "from": [1, 0], "to": [2, 0]})
    assert [e["type"] for e in events][-2:] == ["turn_ended", "turn_started"] and state.current == 1


def test_t12_rescue_takes_up_to_three_swimmers_for_one_point_each_to_its_own_tile():
    state = position(3, LINE, {(2, 1): (2,), (4, -1): (1,), (0, 2): (1,)})
    state = do(state, {"type": "rescue", "herds": [[[2, 1], [2, 0]], [[2, 1], [3, 0]], [[4, -1], [3, 0]]]})
    assert state.ap == 3 and state.own((2, 0), 0) == 1 and state.own((3, 0), 0) == 2
    assert state.own((2, 1), 0) == 0
    refused(state, {"type": "rescue", "herds": [[[0, 2], [1, 0]]]}, r"tile 1,0 is not next to the swimmer at 0,2 \(T12\)")
    refused(state, {"type": "rescue", "herds": [[[0, 3], [0, 2]]] * 4}, r"1 to 3 .*\(T12\)")
    refused(state, {"type": "rescue", "herds": [[[2, 0], [3, 0]]]}, r"no \(more\) swimmers at 2,0 \(T12\)")


def test_t12_reproduce_once_per_herd_and_newborns_wait_for_the_next_turn():
    state = position(3, {(1, 0): "woods", (2, 0): "woods"}, {(1, 0): (1,)})
    state = do(state, {"type": "reproduce", "at": [1, 0]})
    assert state.own((1, 0), 0) == 2 and state.stock[0] == 13
    refused(state, {"type": "reproduce", "at": [1, 0]}, r"has reproduced or was born this turn \(T12\)")
    # moving the newborn away does not let the parent reproduce again
    state = do(state, {"type": "move", "from": [1, 0], "to": [2, 0]})
    refused(state, {"type": "reproduce", "at": [2, 0]}, r"\(T12\)")
    refused(state, {"type": "reproduce", "at": [1, 0]}, r"\(T12\)")


def test_t12_a_herd_that_has_not_reproduced_may_move_and_reproduce_there():
    state = position(3, {(1, 0): "woods", (2, 0): "woods"}, {(1, 0): (2,)})
    state = do(state, {"type": "reproduce", "at": [1, 0]})
    moves = [a for a in trias.legal_actions(state) if a["type"] == "move" and a["to"] == [2, 0]]
    assert {"type": "move", "from": [1, 0], "to": [2, 0], "fresh": True} in moves
    state = do(state, {"type": "move", "from": [1, 0], "to": [2, 0], "fresh": True}, {"type": "reproduce", "at": [2, 0]})
    assert state.own((2, 0), 0) == 2 and state.own((1, 0), 0) == 2


def test_t12_no_birth_without_a_herd_in_stock():
    state = position(3, {(1, 0): "woods"}, {(1, 0): (1,)}, stock=(0, 15, 15))
    refused(state, {"type": "reproduce", "at": [1, 0]}, r"no herds left in stock \(T12\)")


def test_t13_a_full_tile_blocks_entering_crossing_and_births():
    state = position(3, LINE, {(1, 0): (1,), (2, 0): (0, 2)})  # the mountain at 2,0 is full (2)
    refused(state, {"type": "move", "from": [1, 0], "to": [2, 0]}, r"tile 2,0 is at its capacity of 2 and blocks \(T13\)")
    full = position(3, LINE, {(2, 0): (1, 1)})
    refused(full, {"type": "reproduce", "at": [2, 0]}, r"capacity of 2; no herd is born there \(T13\)")
    # crossing is entering: 3,0 can only be reached through 2,0
    assert not any(a.get("to") == [3, 0] for a in trias.legal_actions(state) if a["type"] == "move")


def test_t13_rescue_may_not_overfill_a_tile():
    state = position(3, LINE, {(2, 1): (3,), (2, 0): (0, 1)})
    refused(state, {"type": "rescue", "herds": [[[2, 1], [2, 0]], [[2, 1], [2, 0]]]}, r"capacity of 2 .*\(T13\)")
    assert trias.is_legal(state, {"type": "rescue", "herds": [[[2, 1], [2, 0]], [[2, 1], [3, 0]]]})


def test_t14_swimmers_of_the_active_player_go_back_to_stock():
    state = position(3, LINE, {(2, 1): (2, 1), (1, 0): (1,)})
    events, state = trias.handle(state, {"type": "end_turn"})
    assert state.own((2, 1), 0) == 0 and state.own((2, 1), 1) == 1  # the other seat swims on
    assert state.stock[0] == 14
    assert {"type": "returned", "player": 0, "at": [2, 1], "count": 2, "reason": "swimming", "rule": "T14"} in events


def test_t14_overpopulation_returns_own_herds_until_capacity_others_on_their_turn():
    # Seat 0 drifts the mountain 2,0 under 3 swimmers of seat 0 and 1 of seat 1.
    tiles = {(1, 0): "steppe", (2, 0): "mountain", (2, -1): "woods"}
    state = position(3, tiles, {(2, 0): (1,), (3, -1): (3, 1)}, deck=("woods",) * 5 + ("meteorite",))
    state = do(state, {"type": "drift", "tile": [2, 0], "to": [3, -1]})
    assert state.herds[(3, -1)] == (3, 1, 0)  # 4 herds on a mountain of capacity 2
    state = do(state, {"type": "end_turn"})
    assert state.herds[(3, -1)] == (1, 1, 0)  # seat 0 returned 2: the tile is at capacity
    assert state.stock[0] == 15 - 4 + 2 + 1  # and its swimmer at 2,0 went home too
    state = position(3, tiles, {(3, -1): (0, 3, 1), (1, 0): (1,)})
    state.tiles = {**state.tiles, (3, -1): "mountain"}  # an overpopulated tile seat 0 is not on
    state.geo = None
    state = do(state, {"type": "end_turn"})
    assert state.herds[(3, -1)] == (0, 3, 1)  # seat 0 has none there; seat 1 deals with it later


def test_t15_playing_the_hand_card_draws_a_new_one_at_the_end():
    state = position(3, {(1, 0): "steppe", (2, 0): "steppe", (2, -1): "woods"}, {(2, 0): (1,)},
                     phase="start", hands=("woods", "steppe", "steppe"), deck=("mountain", "meteorite"))
    state = do(state, {"type": "play", "tile": [2, -1], "to": [3, -1]})
    assert state.hands[0] is None
    events, state = trias.handle(state, {"type": "end_turn"})
    assert state.hands[0] == "mountain" and state.deck == ("meteorite",)


def test_t15_drawing_instead_keeps_the_hand_card():
    state = position(3, {(1, 0): "steppe"}, {(1, 0): (1,)}, phase="start", deck=("mountain", "woods", "meteorite"))
    state = do(state, {"type": "draw"}, {"type": "end_turn"})
    assert state.hands[0] == "steppe" and state.deck == ("woods", "meteorite")


def test_t15_t17_meteorite_drawn_in_phase_4_is_shown_and_the_last_round_starts_next():
    state = position(3, {(1, 0): "steppe", (2, 0): "steppe", (2, -1): "woods"}, {(2, 0): (1,)},
                     phase="start", hands=("woods", "steppe", "steppe"), deck=("meteorite",))
    state = do(state, {"type": "play", "tile": [2, -1], "to": [3, -1]})
    events, state = trias.handle(state, {"type": "end_turn"})
    kinds = [e["type"] for e in events]
    assert kinds == ["hand_drawn", "last_round", "turn_ended", "turn_started"]
    assert state.current == 1 and state.phase == "actions" and state.ap == 2  # T17: no phase 1
    assert trias.view(state, 2)["hands"][0] == "meteorite"  # shown at once
    assert all(card is not None for card in state.hands)  # each seat holds one card
