"""A Trias game's store rewritten under the running server is said, once, where someone can act on it.

The game service refuses every move on it (tests/services/test_trias_rewrite.py). Before, the server then answered
each move with a 503 and said nothing else: no log line, the other screens kept showing a game that went on, the
computer seat tried its move again every quarter second for ever. Now (bank/web/trias/rewrite_alarm.py) the first
refusal logs one line saying what to do and sends every screen a picture saying `rewritten` (the pages' banner);
the clock's look sees it within 5 s with no move at all; a computer seat stops.
"""

from __future__ import annotations

import json
import logging

import pytest

import trias
from bank.web.push.extensions import socketio_of
from bank.web.trias import rewrite_alarm
from forger_kit import rewrite_trias, sqlite_forger
from trias_kit import Table, trias_web_app

NS = "/trias"
HUMAN = {"kind": "human"}


@pytest.fixture
def app(tmp_path, config):
    with trias_web_app(tmp_path / "web.db", config) as made:
        yield made


@pytest.fixture
def table(app):
    return Table(app)


def _played(table, moves: int, *seats):
    game, _ = table.new_game(*(seats or (HUMAN, HUMAN)))
    for _ in range(moves):
        assert table.seat_move(game, trias.legal_actions(game.state)[0]).status_code == 200
    return game


def _forge(app, game) -> None:
    games = app.extensions["trias_games"]
    rewrite_trias(sqlite_forger(games.store.target(game.id)), game, 2)


def _said(caplog) -> list:
    return [r for r in caplog.records if "rewritten by another program" in r.getMessage()]


def test_a_move_on_a_rewritten_game_is_said_once_in_the_log_and_on_every_screen(app, table, caplog):
    game = _played(table, 3)
    board = socketio_of(app).test_client(app, namespace=NS, auth={"game": game.id})
    phone = socketio_of(app).test_client(app, namespace=NS, auth={"seat": game.seats[1]["token"]})
    assert [m["args"][0]["rewritten"] for m in board.get_received(NS) if m["name"] == "state"] == [False]
    phone.get_received(NS)
    _forge(app, game)
    caplog.set_level(logging.ERROR)
    for _ in range(2):
        reply = table.seat_move(game, trias.legal_actions(game.state)[0])
        assert reply.status_code == 503 and reply.get_json()["error"]["code"] == "chain_rewritten"
    said = _said(caplog)
    assert len(said) == 1 and game.id in said[0].getMessage() and "trias verify" in said[0].getMessage()
    for screen in (board, phone):
        pictures = [m["args"][0] for m in screen.get_received(NS) if m["name"] == "state"]
        assert [p["rewritten"] for p in pictures] == [True] and pictures[0]["seq"] == game.last_seq
    seat_page = table.client.get(f"/trias/s/{game.seats[0]['token']}").get_data(as_text=True)
    assert json.dumps("rien n’a été enregistré, et plus aucun coup ne l’est")[1:-1] in seat_page  # the refusal, in French
    reconnected = socketio_of(app).test_client(app, namespace=NS, auth={"game": game.id})
    assert [m["args"][0]["rewritten"] for m in reconnected.get_received(NS) if m["name"] == "state"] == [True]


def test_the_look_sees_it_within_five_seconds_without_a_move(app, table, caplog):
    game = _played(table, 2)
    board = socketio_of(app).test_client(app, namespace=NS, auth={"game": game.id})
    board.get_received(NS)
    now = [1000.0]
    assert rewrite_alarm.look(app, lambda: now[0]) == 0
    _forge(app, game)
    caplog.set_level(logging.ERROR)
    now[0] += rewrite_alarm.CHECK_SECONDS - 0.1
    assert rewrite_alarm.look(app, lambda: now[0]) == 0  # not due yet: no read
    now[0] += 0.2
    assert rewrite_alarm.look(app, lambda: now[0]) == 1
    now[0] += rewrite_alarm.CHECK_SECONDS
    assert rewrite_alarm.look(app, lambda: now[0]) == 0  # said once
    assert len(_said(caplog)) == 1
    assert [m["args"][0]["rewritten"] for m in board.get_received(NS) if m["name"] == "state"] == [True]


def test_the_look_reads_the_rows_of_one_game_in_use_at_a_time_and_sees_an_edit_the_heads_keep(app, table, caplog):
    games = [_played(table, 2) for _ in range(3)]
    sqlite_forger(app.extensions["trias_games"].store.target(games[1].id))(
        "UPDATE journal SET actor = 'mallory' WHERE seq = 2")  # the chain left: every head as it was
    caplog.set_level(logging.ERROR)
    now = [1000.0]
    said = []
    for _ in range(3):  # one game's rows a look: the edited one within as many looks as games in use
        now[0] += rewrite_alarm.CHECK_SECONDS
        said.append(rewrite_alarm.look(app, lambda: now[0]))
    assert said.count(1) == 1 and sum(said) == 1
    assert games[1].rewritten and not games[0].rewritten and not games[2].rewritten
    logged = _said(caplog)
    assert len(logged) == 1 and games[1].id in logged[0].getMessage() and "journal row 2" in logged[0].getMessage()


def test_a_computer_seat_stops_on_a_rewritten_game(app, table, caplog):
    game = _played(table, 0, HUMAN, {"kind": "computer", "level": "random"})
    player = app.extensions["trias_computer"]
    while game.computer_to_play() is None:  # the human's first moves, up to the computer's turn
        assert table.seat_move(game, trias.legal_actions(game.state)[0]).status_code == 200
    player._choose(game.id, game)  # its move chosen, then the store rewritten under it
    _forge(app, game)
    caplog.set_level(logging.ERROR)
    before = game.last_seq
    assert player.step(force=True) == 0
    assert game.last_seq == before and game.computer_to_play() is None
    assert player.step(force=True) == 0 and game.id not in player.changed  # it stopped: nothing to try again
    assert len(_said(caplog)) == 1


def test_a_game_edited_while_the_server_was_down_is_refused_in_the_pages_language_without_its_path(tmp_path, config,
                                                                                                    caplog):
    """Before, it opened and was played on; a game the server could not open answered its file's path in English."""
    with trias_web_app(tmp_path / "web.db", config) as first:
        game = _played(Table(first), 2)
        game_id, place = game.id, str(first.extensions["trias_games"].store.target(game.id))
        sqlite_forger(place)("UPDATE journal SET actor = 'mallory' WHERE seq = 2")
    caplog.set_level(logging.ERROR)
    with trias_web_app(tmp_path / "web.db", config) as again:  # the server started again
        client = again.test_client()
        page = client.get(f"/trias/g/{game_id}")
        assert page.status_code == 503 and "Cette partie de Trias ne peut pas être ouverte" in page.get_data(as_text=True)
        api = client.get(f"/trias/api/g/{game_id}")
        assert api.status_code == 503 and api.get_json()["error"]["code"] == "journal_edited"
        assert place not in page.get_data(as_text=True) + api.get_data(as_text=True)
        said = [r.getMessage() for r in caplog.records if "cannot be opened" in r.getMessage()]
        assert len(said) == 1 and place in said[0] and "journal row 2 was changed" in said[0]
        sockets = [socketio_of(again).test_client(again, namespace=NS, auth={"game": game_id}) for _ in range(3)]
        assert not any(s.is_connected(NS) for s in sockets)  # an open board's socket trying again (before: raised)
        assert len([r for r in caplog.records if "cannot be opened" in r.getMessage()]) == 1


def test_the_look_still_runs_when_the_computer_step_fails(app, monkeypatch):
    """The clock's look shares the computer thread's loop: a step that raises (a store refusing a seat's move, a
    full disk) must not skip it, or a rewrite goes unsaid for as long as the step keeps failing."""
    import threading

    from bank.web.trias.computer import computer

    seat, looks, stop = computer(app), [], threading.Event()

    def failing_step():
        raise OSError("the store refused the move")

    def look(_app, _clock):
        looks.append(1)
        stop.set()
        return 0

    monkeypatch.setattr(seat, "step", failing_step)
    monkeypatch.setattr(rewrite_alarm, "look", look)
    seat.wake.set()
    worker = threading.Thread(target=seat.run, args=(stop,), daemon=True)
    worker.start()
    worker.join(10)
    assert looks and not worker.is_alive()
