"""No undo past a card turned over, and computer seats named by their level.

Board Game Arena's rule: an undo that would take back a draw, or a row after it that showed a
card hidden until then (a computer's draw, the new hand card of phase 4), is refused with a
sentence; otherwise "draw, undo, draw again" shows the top of the deck before deciding. A mirror
game follows a physical table, whose players decide: there the undo stays. The pages get
`can_undo` false with the reason (`undo_refused`), so they never offer a refused undo.
"""

from __future__ import annotations

import json
import re

import pytest

import trias
from bank.services.trias_table import UNDO_PAST_DRAW
from test_trias_web import Table, app, play_humans  # noqa: F401 (fixtures)
from trias.errors import IllegalMove
from trias.view import reveals
from trias_kit import HUMANS, VS_BOT, games  # noqa: F401 (fixtures)

FRENCH = "Une carte a été piochée depuis : annuler montrerait ce qui vient ensuite, ce coup reste donc joué."


def page_strings(html: str) -> dict:
    """The sentences a page carries for its script (its data-strings blocks), merged."""
    found = {}
    for block in re.findall(r"<script type=\"application/json\" data-strings>(.*?)</script>", html, re.S):
        found.update(json.loads(block))
    return found


def act(game, command, actor=None) -> None:
    game.execute(command, f"m{game.last_seq}", actor or f"seat:{game.state.current}")


def place_all(game, actor=None) -> None:
    while game.state.phase == "place":
        if game.computer_to_play() is not None:
            game.play_computer({"iterations": 5})
        else:
            act(game, trias.legal_actions(game.state)[0], actor)


def of_type(game, kind: str) -> dict:
    return next(c for c in trias.legal_actions(game.state) if c["type"] == kind)


def refused_undo(game, actor: str) -> IllegalMove:
    seq, state = game.last_seq, game.state
    with pytest.raises(IllegalMove) as err:
        game.undo_last(f"undo-{seq}-{actor}", actor)
    assert game.last_seq == seq and game.state == state  # nothing written, nothing changed
    return err.value


def test_a_draw_cannot_be_undone_and_says_why(games):
    game = games.create(HUMANS, seed=5)
    place_all(game)
    seat = game.state.current
    act(game, of_type(game, "draw"))
    for actor in ("table", f"seat:{seat}", "cli"):
        err = refused_undo(game, actor)
        assert err.code == "undo_past_draw" and err.message == UNDO_PAST_DRAW
        assert "a card was drawn since" in err.message.lower() and "what comes next" in err.message
    view = game.view(seat)
    assert view["can_undo"] is False and view["undo_refused"]["code"] == "undo_past_draw"
    assert game.view(None)["undo_refused"]["message"] == UNDO_PAST_DRAW


def test_a_move_after_the_draw_may_be_undone_but_not_the_draw_itself(games):
    """The card stays turned over: taking back its drift shows nothing new; taking back the draw would."""
    game = games.create(HUMANS, seed=5)
    place_all(game)
    act(game, of_type(game, "draw"))
    act(game, trias.legal_actions(game.state)[0])  # the drift of the card drawn (or a first action)
    assert game.view(None)["can_undo"] is True
    game.undo_last("undo-drift", "table")
    assert refused_undo(game, "table").code == "undo_past_draw"


def test_ending_a_turn_the_computer_then_draws_on_cannot_be_undone(games):
    game = games.create(VS_BOT, seed=2)
    place_all(game)
    while game.computer_to_play() is not None:
        game.play_computer({"iterations": 5})
    act(game, of_type(game, "draw"))  # Ana draws: no new hand card at her turn's end (T15)
    while game.state.phase != "actions":
        act(game, trias.legal_actions(game.state)[0])
    act(game, of_type(game, "end_turn"))
    end_seq = game.last_seq
    assert not any(reveals(e) for e in game.table.moves[-1][3])  # Ana's own end of turn shows no card
    while game.computer_to_play() is not None and game.state.phase != "over":
        game.play_computer({"iterations": 5})
    computer_rows = [m for m in game.table.moves if m[0] > end_seq]
    assert any(reveals(e) for m in computer_rows for e in m[3])  # the computer drew
    for actor in ("seat:0", "table", "cli"):
        assert refused_undo(game, actor).code == "undo_past_draw"
    assert game.view(0)["can_undo"] is False


def test_before_any_card_is_drawn_a_computer_move_still_goes_back_with_the_move_before_it(games):
    game = games.create(VS_BOT, seed=2)
    act(game, trias.legal_actions(game.state)[0])
    game.play_computer({"iterations": 5})  # its placement shows nothing hidden
    assert game.view(0)["can_undo"] is True and game.view(0)["undo_refused"] is None
    assert len(game.undo_last("undo", "seat:0").events[0]["seqs"]) == 2


def test_a_mirror_table_may_undo_a_draw(games):
    """The physical table's cards are its own: the table decides, as at any table."""
    game = games.create(HUMANS, seed=5, mode="mirror")
    place_all(game, "table")
    act(game, of_type(game, "draw"), "table")
    assert any(reveals(e) for e in game.table.moves[-1][3])
    assert game.view(None)["can_undo"] is True
    game.undo_last("undo-draw", "table")
    assert game.state.phase == "start" and game.verify() == []


# ---- over HTTP: the pages never offer a refused undo ----

def test_the_pages_get_can_undo_false_with_the_reason_and_the_undo_is_refused(app):
    table = Table(app)
    game, _ = table.new_game(*({"kind": "human", "name": s["name"]} for s in HUMANS), seed=5)
    while game.state.phase == "place":
        play_humans(table, game, 1)
    seat = game.state.current
    token = game.seats[seat]["token"]
    assert table.seat_move(game, of_type(game, "draw")).status_code == 200
    board = table.client.get(f"/trias/api/g/{game.id}").get_json()
    phone = table.client.get(f"/trias/api/s/{token}").get_json()
    for payload in (board, phone):
        assert payload["can_undo"] is False
        assert payload["undo_refused"]["code"] == "undo_past_draw"
        assert payload["undo_refused"]["message"] == UNDO_PAST_DRAW
    seq = game.last_seq
    for url, body in ((f"/trias/api/g/{game.id}/undo", {}), (f"/trias/api/s/{token}/commands", {"type": "undo"})):
        reply = table.post(url, body)
        assert reply.status_code == 409 and reply.get_json()["error"]["code"] == "undo_past_draw"
    assert game.last_seq == seq
    page = table.client.get(f"/trias/g/{game.id}").get_data(as_text=True)
    assert 'id="undo-why"' in page
    assert page_strings(page)["error.undo_past_draw"] == FRENCH  # the page's sentence for the code, in its language
    table.post("/api/lang/en")
    phone_page = table.client.get(f"/trias/s/{token}").get_data(as_text=True)
    assert 'id="undo-why"' in phone_page and page_strings(phone_page)["error.undo_past_draw"] == UNDO_PAST_DRAW


@pytest.mark.parametrize("lang, expected", [("fr", ["Ordinateur · difficile", "Ordinateur · difficile 2",
                                                    "Ordinateur · hasard"]),
                                            ("en", ["Computer · hard", "Computer · hard 2", "Computer · random"])])
def test_a_computer_seat_without_a_name_is_named_by_its_level(app, lang, expected):
    table = Table(app)
    assert table.post(f"/api/lang/{lang}").status_code == 200
    seats = [{"name": "Ana", "kind": "human"}, {"kind": "computer", "level": "hard"},
             {"kind": "computer", "level": "hard", "name": " "}, {"kind": "computer", "level": "random"},
             {"kind": "computer", "level": "easy", "name": "Robotine"}]
    reply = table.post("/trias/api/games", {"seats": seats, "mode": "play"})
    assert reply.status_code == 201, reply.get_json()
    game = app.extensions["trias_games"].get(reply.get_json()["id"])
    assert [s["name"] for s in game.seats] == ["Ana", *expected, "Robotine"]  # a name given is kept


def test_the_start_page_has_the_computer_default_in_both_languages(app):
    table = Table(app)
    assert page_strings(table.client.get("/trias/").get_data(as_text=True))["computer_name"] == "Ordinateur · %(level)s"
    table.post("/api/lang/en")
    assert page_strings(table.client.get("/trias/").get_data(as_text=True))["computer_name"] == "Computer · %(level)s"
