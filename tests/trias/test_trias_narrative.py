"""One short game told turn by turn, through the public interface only (T9-T19)."""

import json

import trias
from trias.custom import position


def test_t9_t19_a_short_three_player_game_from_drift_to_winner():
    tiles = {(1, 0): "steppe", (2, 0): "steppe", (3, 0): "woods", (3, -1): "woods",
             (-1, 0): "woods", (-2, 0): "steppe"}
    herds = {(3, 0): (2, 0, 0), (2, 0): (1, 0, 0), (3, -1): (0, 1, 0), (-1, 0): (0, 1, 0), (-2, 0): (0, 0, 2)}
    state = position(3, tiles, herds, phase="start", hands=("steppe", "woods", "mountain"),
                     deck=("mountain", "meteorite", "woods"))
    start, journal = state, []

    def do(command):
        nonlocal state
        events, state = trias.handle(state, command)
        journal.extend(events)
        return events

    # Seat 0 plays its steppe card: taking 2,0 cuts 3,0 / 3,-1 off the main mass, and
    # the tile lands beside them only, so that new mass scores at once (T10, T16).
    events = do({"type": "play", "tile": [2, 0], "to": [4, -2]})
    assert [e for e in events if e["type"] == "scored"][0]["points"] == [2, 1, 0]
    assert state.herds[(2, 0)] == (1, 0, 0)  # its herd on 2,0 now swims
    do({"type": "rescue", "herds": [[[2, 0], [3, 0]]]})     # T12: 1 point
    do({"type": "reproduce", "at": [3, 0]})                  # T12: woods hold 4 (T13)
    events = do({"type": "end_turn"})
    assert state.hands[0] == "mountain"                      # T15: it played its card, so it draws
    assert (state.current, state.phase, state.ap) == (1, "start", 4)

    # Seat 1 draws the Meteorite Impact: the last round starts with its own turn (T9, T17).
    do({"type": "draw"})
    assert (state.phase, state.ap) == ("actions", 2)
    do({"type": "move", "from": [-1, 0], "to": [0, 0]})
    do({"type": "end_turn"})
    do({"type": "reproduce", "at": [-2, 0]})                 # seat 2, 2 points, no phase 1
    do({"type": "end_turn"})
    assert (state.current, state.phase) == (0, "actions")
    do({"type": "end_turn"})                                 # seat 0's last turn ends the game

    assert state.phase == "over"
    final = state.result["table"]
    assert [(row["size"], row["herds"], row["points"]) for row in final] == [(3, [4, 1, 0], [3, 2, 0])]
    assert state.score == (5, 3, 0) and state.result["winners"] == [0]  # T18, T19
    replayed = start
    for event in json.loads(json.dumps(journal)):  # the journal as stored, folded onto the start
        replayed = trias.apply(replayed, event)
    assert replayed == state
