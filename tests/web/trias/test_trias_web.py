"""Trias at the table over HTTP and Socket.IO: pages, seats' privacy, catch-up, mirror refusals, undo, rematch.

Rules cited as in docs/rules/trias.md (T1-T21). The computer player is stepped by hand
(`Computer.step`) so nothing here waits on a clock.
"""

from __future__ import annotations

import pytest

import trias
from bank.web.push.extensions import socketio_of
from trias.hexes import distance
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


def computer(level="easy"):
    return {"kind": "computer", "level": level}


def play_humans(table, game, moves: int) -> None:
    """Let the human seats make `moves` legal moves (first listed that is not end_turn), computers in between."""
    player = table.app.extensions["trias_computer"]
    for _ in range(moves):
        while game.computer_to_play() is not None:
            player.step(force=True)
        if game.state.phase == "over":
            return
        legal = trias.legal_actions(game.state)
        command = next((c for c in legal if c["type"] != "end_turn"), legal[0])
        assert table.seat_move(game, command).status_code == 200


def states(client) -> list:
    return [m["args"][0] for m in client.get_received(NS) if m["name"] == "state"]


def test_start_page_board_and_seat_pages_open_in_french(table):
    game, body = table.new_game(HUMAN, computer())
    assert "Une nouvelle partie de Trias" in table.client.get("/trias/").get_data(as_text=True)
    board = table.client.get(body["board"])
    assert board.status_code == 200 and "Plateau de Trias" in board.get_data(as_text=True)
    seat = table.client.get(body["seats"][0]["link"])
    assert seat.status_code == 200 and "vous seul la voyez" in seat.get_data(as_text=True)
    assert body["seats"][1]["link"] is None  # a computer seat has no phone
    unknown = table.client.get("/trias/s/not-a-seat")
    assert unknown.status_code == 404 and "QR code" in unknown.get_data(as_text=True)


def test_t7_a_game_of_one_seat_is_refused_with_a_sentence_and_nothing_is_made(table):
    reply = table.post("/trias/api/games", {"seats": [{"name": "Solo", "kind": "human"}], "mode": "play"})
    assert reply.status_code == 400
    assert "2 to 5 seats" in reply.get_json()["error"]["message"]
    assert table.client.get("/trias/api/games").get_json()["games"] == []


def test_a_post_without_the_pages_csrf_token_is_refused(table):
    reply = table.client.post("/trias/api/games", json={"seats": [HUMAN, HUMAN]})
    assert reply.status_code == 403 and reply.get_json()["error"]["code"] == "csrf_failed"


def test_t8_a_seat_moves_only_on_its_turn_and_the_refusal_names_the_rule(table):
    game, _ = table.new_game(HUMAN, HUMAN)
    other = game.seats[1 - game.state.current]["token"]
    before = game.last_seq
    reply = table.post(f"/trias/api/s/{other}/commands", trias.legal_actions(game.state)[0])
    assert reply.status_code == 409
    assert "T8" in reply.get_json()["error"]["message"]
    water = {"type": "place", "at": [9, 9]}
    reply = table.seat_move(game, water)
    assert reply.status_code == 409 and "(T8)" in reply.get_json()["error"]["message"]
    assert game.last_seq == before


def test_a_retried_command_with_the_same_key_is_applied_once(table):
    game, _ = table.new_game(HUMAN, HUMAN)
    command = trias.legal_actions(game.state)[0]
    first = table.seat_move(game, command, key="same-key")
    again = table.post(f"/trias/api/s/{game.seats[first.get_json()['events'][0]['player']]['token']}/commands",
                       command, key="same-key")
    assert first.get_json()["duplicate"] is False and again.get_json()["duplicate"] is True
    assert again.get_json()["seq"] == first.get_json()["seq"] == game.last_seq


def test_in_a_played_game_the_shared_screen_cannot_move_for_a_player(table):
    game, body = table.new_game(HUMAN, HUMAN)
    reply = table.post(f"/trias/api/g/{game.id}/commands", trias.legal_actions(game.state)[0])
    assert reply.status_code == 403 and "own seat page" in reply.get_json()["error"]["message"]


def test_t7_each_phone_gets_its_own_hand_card_and_never_another(app, table):
    game, _ = table.new_game(HUMAN, HUMAN, computer(), computer("random"))
    phones = [socketio_of(app).test_client(app, namespace=NS, auth={"seat": game.seats[s]["token"]}) for s in (0, 1)]
    board = socketio_of(app).test_client(app, namespace=NS, auth={"game": game.id})
    play_humans(table, game, 24)
    assert game.state.turn >= 2
    for seat, phone in enumerate(phones):
        got = states(phone)
        assert got and got[-1]["seq"] == game.last_seq
        hands = game.state.hands
        assert got[-1]["view"]["hands"][seat] == hands[seat]  # its own card, as the engine has it
        assert any(p["view"]["hands"][1 - seat] == "hidden" for p in got)
        for payload in got:
            assert all(h in ("hidden", None) for i, h in enumerate(payload["view"]["hands"]) if i != seat)
            for row in payload.get("rows", []):
                for event in row["events"]:
                    assert "deck" not in event
                    if event["type"] in ("card_dealt", "hand_drawn") and event["player"] != seat:
                        assert event["card"] == "hidden"
    for payload in states(board):
        assert all(h == "hidden" or h is None for h in payload["view"]["hands"])
        assert not payload["legal"] or payload["view"]["phase"] != "start"  # phase-1 moves would tell the card


def test_a_phone_that_reconnects_gets_what_it_missed_once(app, table):
    game, _ = table.new_game(HUMAN, HUMAN)
    token = game.seats[0]["token"]
    phone = socketio_of(app).test_client(app, namespace=NS, auth={"seat": token})
    seen = states(phone)[-1]["seq"]
    phone.disconnect(namespace=NS)
    play_humans(table, game, 3)  # the phone is off the network meanwhile
    phone = socketio_of(app).test_client(app, namespace=NS, auth={"seat": token, "after": seen})
    got = states(phone)
    assert got[-1]["seq"] == game.last_seq
    assert [r["seq"] for r in got[-1]["rows"]] == list(range(seen + 1, game.last_seq + 1))
    phone.emit("sync", {"seat": token, "after": game.last_seq}, namespace=NS)
    assert states(phone)[-1]["rows"] == []  # nothing twice


def test_a_wrong_link_is_refused_at_connect(app):
    assert not socketio_of(app).test_client(app, namespace=NS, auth={"seat": "nope"}).is_connected(NS)
    assert not socketio_of(app).test_client(app, namespace=NS, auth={"game": "nope"}).is_connected(NS)


def _not_farther_drift(state) -> dict:
    """A drift of a legal tile to an empty place no farther from the pole (T10)."""
    for kind, pairs in {k: trias.legal.drift_pairs(state, state.current, k) for k in ("mountain", "steppe", "woods")}.items():
        for tile, _ in pairs:
            for q in range(-4, 5):
                for r in range(-4, 5):
                    place = (q, r)
                    if place not in state.tiles and distance(place) <= distance(tile):
                        command = {"type": "play", "card": kind, "tile": list(tile), "to": [q, r]}
                        try:
                            trias.check(state, command)
                        except trias.TriasError as exc:
                            if exc.code == "not_farther":
                                return command
    raise AssertionError("no such drift on this board")


def test_t10_the_mirror_tablet_refuses_a_drift_not_farther_from_the_pole(app, table):
    game, _ = table.new_game(HUMAN, HUMAN, HUMAN, mode="mirror")
    while game.state.phase == "place":
        assert table.post(f"/trias/api/g/{game.id}/commands", trias.legal_actions(game.state)[0]).status_code == 200
    board = socketio_of(app).test_client(app, namespace=NS, auth={"game": game.id})
    cards = states(board)[-1]["table_cards"]
    assert set(cards["play"]) <= {"mountain", "steppe", "woods"}
    before, state = game.last_seq, game.state
    reply = table.post(f"/trias/api/g/{game.id}/commands", _not_farther_drift(game.state))
    assert reply.status_code == 409
    error = reply.get_json()["error"]
    assert error["code"] == "not_farther" and "(T10)" in error["message"]
    assert game.last_seq == before and game.state == state


def test_undo_is_a_new_row_and_every_screen_goes_back(app, table):
    game, _ = table.new_game(HUMAN, HUMAN)
    board = socketio_of(app).test_client(app, namespace=NS, auth={"game": game.id})
    start = game.state
    play_humans(table, game, 1)
    seq = game.last_seq
    reply = table.post(f"/trias/api/g/{game.id}/undo")
    assert reply.status_code == 200
    assert game.last_seq == seq + 1 and game.state == start
    last = states(board)[-1]
    assert last["seq"] == seq + 1 and last["view"]["herds"] == []
    assert table.post(f"/trias/api/g/{game.id}/undo").status_code == 409  # the set-up is never undone


def test_computer_seats_wait_their_pace_then_play_and_screens_follow(app, table):
    game, _ = table.new_game(computer(), HUMAN)
    player = app.extensions["trias_computer"]
    player.pace = 3600
    assert game.computer_to_play() is not None and player.step() == 0  # too soon: screens could not follow
    board = socketio_of(app).test_client(app, namespace=NS, auth={"game": game.id})
    player.pace = 0
    assert player.step() == 1 and game.computer_to_play() is None
    assert states(board)[-1]["seq"] == game.last_seq


def test_t18_t19_the_end_shows_the_table_per_land_mass_and_a_rematch_moves_everyone(app, table):
    game, _ = table.new_game(computer("random"), computer("random"), HUMAN)
    token = game.seats[2]["token"]
    phone = socketio_of(app).test_client(app, namespace=NS, auth={"seat": token})
    for _ in range(2000):
        if game.state.phase == "over":
            break
        if game.computer_to_play() is None:
            legal = trias.legal_actions(game.state)
            table.seat_move(game, next((c for c in legal if c["type"] == "end_turn"), legal[0]))
        app.extensions["trias_computer"].step(force=True)
    end = table.client.get(f"/trias/api/g/{game.id}").get_json()["end"]
    assert end["winners"] and len(end["scores"]) == 3 and len(end["presence"]) == 3
    assert all(len(row["points"]) == 3 for row in end["table"])
    reply = table.post(f"/trias/api/g/{game.id}/rematch")
    new_id = reply.get_json()["id"]
    assert new_id != game.id
    assert {"name": "rematch", "args": [{"game": new_id}], "namespace": NS} in phone.get_received(NS)
    assert table.client.get(f"/trias/api/s/{token}").get_json()["game"] == new_id  # the same link, the new game


def test_a_seats_qr_code_is_an_svg_of_its_link(table):
    game, _ = table.new_game(HUMAN, computer())
    reply = table.client.get(f"/trias/g/{game.id}/qr/0.svg")
    assert reply.status_code == 200 and reply.mimetype == "image/svg+xml"
    assert reply.get_data(as_text=True).startswith("<svg") and "<path" in reply.get_data(as_text=True)
    assert table.client.get(f"/trias/g/{game.id}/qr/1.svg").status_code == 404  # a computer has no link


def test_computer_seats_resume_after_a_restart_of_the_server(tmp_path, config):
    from bank.web import create_app

    settings = {"DB": tmp_path / "web.db", "CONFIG": config, "TESTING": True, "TRIAS_PACE": 0}
    first = create_app(settings)
    game = first.extensions["trias_games"].create(seats=[{"name": "Bot", "kind": "computer", "level": "easy"},
                                                         {"name": "Ana", "kind": "human"}], seed=3)
    assert game.computer_to_play() == 0
    first.extensions["trias_games"].close()  # the server stops before the computer moved
    first.extensions["terrabank"].bank.close()
    first.extensions["terrabank"].access.close()
    again = create_app(settings)
    try:
        player = again.extensions["trias_computer"]
        assert player.step() == 0  # nothing known yet: the restart looks the games up once
        player.resume()
        assert player.step() == 1
        assert again.extensions["trias_games"].get(game.id).last_seq == game.last_seq + 1
    finally:
        again.extensions["trias_games"].close()
        again.extensions["terrabank"].bank.close()
        again.extensions["terrabank"].access.close()


def test_the_pages_follow_the_language_switch(table):
    assert table.post("/api/lang/en").status_code == 200
    page = table.client.get("/trias/").get_data(as_text=True)
    assert "A new game of Trias" in page and '"landscape.woods": "Woods"' in page
    table.post("/api/lang/fr")
    assert '"landscape.woods": "For\\u00eat"' in table.client.get("/trias/").get_data(as_text=True)


def test_two_screens_undoing_at_once_take_back_one_move_not_two(app, table):
    """Each page sends the last entry it showed: the second undo, decided on the same picture, is stale."""
    game, _ = table.new_game(HUMAN, HUMAN)
    play_humans(table, game, 2)
    shown = game.last_seq
    first = table.post(f"/trias/api/g/{game.id}/undo", {"after_seq": shown})
    assert first.status_code == 200
    after_one = game.state
    second = table.post(f"/trias/api/g/{game.id}/undo", {"after_seq": shown})
    assert second.status_code in (400, 409) and second.get_json()["error"]["code"] == "stale"
    assert game.state == after_one and game.last_seq == shown + 1
    assert table.post(f"/trias/api/g/{game.id}/undo", {"after_seq": "x"}).status_code == 400
    assert game.last_seq == shown + 1


def test_a_double_tap_with_a_new_key_on_a_moved_position_is_refused(app, table):
    game, _ = table.new_game(HUMAN, HUMAN)
    shown = game.last_seq
    legal = trias.legal_actions(game.state)
    assert table.seat_move(game, dict(legal[0], after_seq=shown)).status_code == 200
    seq = game.last_seq
    again = table.seat_move(game, dict(trias.legal_actions(game.state)[0], after_seq=shown))
    assert again.get_json()["error"]["code"] == "stale" and game.last_seq == seq
