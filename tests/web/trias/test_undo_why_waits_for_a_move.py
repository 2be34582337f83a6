"""The undo's "a card was drawn since" waits until the seat to play has moved.

At every turn's start the last move is the previous seat's end of turn, whose new hand card (T15)
may not be taken back: the board and the phone said so before the player had done anything.
The reason is for a player who has moved this turn and finds the undo refused.
"""

from __future__ import annotations

import trias
from bank.web.trias.payloads import snapshot
from trias_kit import HUMANS, games  # noqa: F401 (fixture)


def act(game, kind: str) -> None:
    command = next(c for c in trias.legal_actions(game.state) if c["type"] == kind)
    game.execute(command, f"m{game.last_seq}", f"seat:{game.state.current}")


def screens(game) -> list:
    """The shared screen's picture and the phone's of the seat to play."""
    return [snapshot(game, None), snapshot(game, game.state.current)]


def test_t15_at_a_turns_start_the_undo_is_not_offered_and_no_reason_is_said(games):
    game = games.create(HUMANS, seed=5)
    while game.state.phase == "place":
        act(game, "place")
    act(game, "play")       # the hand card played: a new one comes at the end of the turn (T15)
    if game.state.phase == "drift":
        act(game, "drift")
    act(game, "end_turn")
    assert game.state.phase == "start" and game.table.moves[-1][2] != game.state.current
    for payload in screens(game):
        assert payload["can_undo"] is False        # the new hand card stays hidden
        assert payload["undo_refused"] is None     # ... and nobody is told why before moving
    act(game, "draw")                              # now the player has moved: the reason is said
    for payload in screens(game):
        assert payload["undo_refused"]["code"] == "undo_past_draw"
