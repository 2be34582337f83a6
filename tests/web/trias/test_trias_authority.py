"""Trias authority: each attack found on the game's Wi-Fi, replayed as a stranger.

A game id gives only the public, read-only board; the table's secret (the board's link, kept in
the creating device's session) shows the seats' links, undoes, records a mirror game's moves and
makes the rematch; a seat's secret plays that seat, shows its hand and undoes its own last move
(bank/services/trias_authority.py, bank/web/trias/held.py). Every refusal changes nothing.
"""

from __future__ import annotations

import json
import re
import sqlite3
from urllib.parse import urlsplit

import pytest

import trias
from bank.services.trias_games import open_games
from bank.web.push.extensions import socketio_of
from test_trias_web import NS, Table, computer, play_humans
from trias_kit import HUMANS

SEAT_LINK = re.compile(r"/trias/s/([A-Za-z0-9_-]{10,})")


@pytest.fixture
def app(tmp_path, config):
    from bank.web import create_app

    app = create_app({"DB": tmp_path / "web.db", "CONFIG": config, "TESTING": True, "TRIAS_PACE": 0,
                      "PASSWORD_HASH": "pbkdf2:sha256:1000"})
    app.extensions["terrabank"].access.add_user("lead", "correct horse", "lead")
    app.extensions["terrabank"].access.add_user("banker", "correct horse", "banker")
    yield app
    app.extensions["trias_games"].close()
    app.extensions["terrabank"].bank.close()
    app.extensions["terrabank"].access.close()


@pytest.fixture
def table(app):
    return Table(app)


@pytest.fixture
def stranger(app):
    """Another device on the Wi-Fi: its own cookie and CSRF token, no secret of any game."""
    return Table(app)


def login(client: Table, user: str) -> Table:
    reply = client.client.post("/api/login", json={"username": user, "password": "correct horse"},
                               headers={"X-CSRF-Token": client.csrf})
    assert reply.status_code == 200
    client.csrf = reply.get_json()["csrf"]
    return client


def refused(reply, code: str, status: int = 403) -> dict:
    assert reply.status_code == status, reply.get_data(as_text=True)
    body = reply.get_json()["error"]
    assert body["code"] == code
    return body


def rows_of(game) -> list:
    return [(r["seq"], r["type"]) for r in game.rows()]


# ---- the attacks ----

def test_the_games_list_shows_a_stranger_no_game_id(table, stranger):
    game, _ = table.new_game({"kind": "human"}, computer())
    assert stranger.client.get("/trias/api/games").get_json()["games"] == []
    (mine,) = table.client.get("/trias/api/games").get_json()["games"]
    assert mine["id"] == game.id and mine["as"] == "table" and mine["link"] == f"/trias/g/{game.id}"


def test_the_public_board_shows_no_seat_link_and_no_qr_code(table, stranger):
    game, _ = table.new_game({"kind": "human"}, {"kind": "human"})
    page = stranger.client.get(f"/trias/g/{game.id}").get_data(as_text=True)
    assert not SEAT_LINK.search(page) and not any(s["token"] in page for s in game.seats)
    assert 'id="undo"' not in page and 'id="rematch"' not in page and 'data-table="0"' in page
    assert stranger.client.get(f"/trias/g/{game.id}/qr/0.svg").status_code == 403
    own = table.client.get(f"/trias/g/{game.id}").get_data(as_text=True)  # the table still shows them
    assert {m for m in SEAT_LINK.findall(own)} == {s["token"] for s in game.seats}
    assert table.client.get(f"/trias/g/{game.id}/qr/0.svg").status_code == 200


def test_a_stranger_with_only_the_id_cannot_play_a_seat_or_record_a_mirror_move(table, stranger):
    game, _ = table.new_game({"kind": "human"}, {"kind": "human"}, mode="mirror")
    before = rows_of(game)
    refused(stranger.post(f"/trias/api/g/{game.id}/commands", trias.legal_actions(game.state)[0]), "table_only")
    assert rows_of(game) == before
    assert table.post(f"/trias/api/g/{game.id}/commands", trias.legal_actions(game.state)[0]).status_code == 200


def test_undo_with_only_a_csrf_token_is_refused_and_changes_nothing(app, table, stranger):
    game, _ = table.new_game({"kind": "human"}, computer())
    play_humans(table, game, 3)
    before = rows_of(game)
    body = refused(stranger.post(f"/trias/api/g/{game.id}/undo"), "table_only")
    assert "ask the table for a new link" in body["message"]
    wrong = stranger.client.post(f"/trias/api/g/{game.id}/undo", json={},
                                 headers={"X-CSRF-Token": stranger.csrf, "X-Trias-Table": "guessed-secret"})
    refused(wrong, "table_link_wrong")
    assert rows_of(game) == before
    assert table.post(f"/trias/api/g/{game.id}/undo").status_code == 200


def test_rematch_by_a_stranger_is_refused_and_makes_no_game(app, table, stranger):
    game, _ = table.new_game({"kind": "human"}, computer())
    player = app.extensions["trias_computer"]
    while game.state.phase != "over":
        if game.computer_to_play() is not None:
            player.step(force=True)
            continue
        legal = trias.legal_actions(game.state)
        assert table.seat_move(game, next((c for c in legal if c["type"] == "end_turn"), legal[0])).status_code == 200
    refused(stranger.post(f"/trias/api/g/{game.id}/rematch"), "table_only")
    assert game.next_game is None and len(app.extensions["trias_games"].list()) == 1
    reply = table.post(f"/trias/api/g/{game.id}/rematch")
    assert reply.status_code == 200
    new = app.extensions["trias_games"].get(reply.get_json()["id"])
    assert new.table_secret == game.table_secret  # the same table goes on
    assert SEAT_LINK.search(table.client.get(f"/trias/g/{new.id}").get_data(as_text=True))


def test_a_seat_cannot_undo_another_seats_move_but_may_undo_its_own(app, table):
    game, _ = table.new_game(*({"kind": "human", "name": s["name"]} for s in HUMANS))
    phones = [Table(app) for _ in game.seats]
    for phone, seat in zip(phones, game.seats):
        assert phone.client.get(f"/trias/s/{seat['token']}").status_code == 200
    place = trias.legal_actions(game.state)[0]
    assert phones[0].post(f"/trias/api/s/{game.seats[0]['token']}/commands", place, key="ana-1").status_code == 200
    before = rows_of(game)
    refused(phones[1].post(f"/trias/api/g/{game.id}/undo", key="ben-1"), "table_only")  # a seat is not the table
    refused(phones[1].post(f"/trias/api/s/{game.seats[1]['token']}/commands", {"type": "undo"}, key="ben-2"),
            "not_your_move", 409)
    assert rows_of(game) == before
    state = phones[0].client.get(f"/trias/api/s/{game.seats[0]['token']}").get_json()
    other = phones[1].client.get(f"/trias/api/s/{game.seats[1]['token']}").get_json()
    assert state["can_undo"] is True and other["can_undo"] is False
    undo = phones[0].post(f"/trias/api/s/{game.seats[0]['token']}/commands", {"type": "undo"}, key="ana-2")
    assert undo.status_code == 200 and game.state.turn == 0 and len(game.table.moves) == 0


def test_the_socket_gives_a_stranger_no_hand_and_no_link(app, table, stranger):
    game, _ = table.new_game({"kind": "human"}, {"kind": "human"})
    page = stranger.client.get(f"/trias/g/{game.id}").get_data(as_text=True)
    leaked = SEAT_LINK.findall(page)
    assert leaked == []
    for token in leaked + ["not-a-seat", game.id]:
        assert not socketio_of(app).test_client(app, namespace=NS, auth={"seat": token}).is_connected(NS)
    watcher = socketio_of(app).test_client(app, namespace=NS, auth={"game": game.id})
    (picture,) = [m["args"][0] for m in watcher.get_received(NS) if m["name"] == "state"]
    assert picture["seat"] is None and set(picture["view"]["hands"]) <= {None, "hidden"}
    text = json.dumps(picture)
    assert not any(s["token"] in text for s in game.seats) and game.table_secret not in text


# ---- the table's link ----

def test_a_table_link_is_kept_once_opened_and_a_reload_works(app, table, stranger):
    game, made = table.new_game({"kind": "human"}, {"kind": "human"})
    assert made["table_link"].endswith(f"/trias/g/{game.id}?t={game.table_secret}")
    tv = Table(app)
    first = tv.client.get(f"/trias/g/{game.id}?t={game.table_secret}")
    assert first.status_code == 303 and first.headers["Location"].endswith(f"/trias/g/{game.id}")
    assert 'data-table="1"' in tv.client.get(f"/trias/g/{game.id}").get_data(as_text=True)  # the reload
    assert [g["id"] for g in tv.client.get("/trias/api/games").get_json()["games"]] == [game.id]


@pytest.mark.parametrize("lang,words", [("fr", "Demandez à la table un nouveau lien"),
                                        ("en", "Ask the table for a new link")])
def test_a_wrong_table_link_is_a_clear_page_and_changes_nothing(app, table, stranger, lang, words):
    game, _ = table.new_game({"kind": "human"}, computer())
    before = rows_of(game)
    stranger.post(f"/api/lang/{lang}")
    reply = stranger.client.get(f"/trias/g/{game.id}?t=not-the-secret")
    assert reply.status_code == 403 and words in reply.get_data(as_text=True)
    assert stranger.client.get("/trias/api/games").get_json()["games"] == []  # nothing kept
    assert 'data-table="0"' in stranger.client.get(f"/trias/g/{game.id}").get_data(as_text=True)
    assert rows_of(game) == before


def test_secrets_are_compared_in_constant_time(table, monkeypatch):
    from bank.services import trias_authority  # imported here so the other tests run on older code

    game, _ = table.new_game({"kind": "human"}, {"kind": "human"})
    compared = []
    real = trias_authority.secrets.compare_digest
    monkeypatch.setattr(trias_authority.secrets, "compare_digest", lambda a, b: compared.append(1) or real(a, b))
    assert game.is_table(game.table_secret) and not game.is_table("x" * 22)
    assert game.seat_of_token(game.seats[1]["token"]) == 1
    assert len(compared) == 2 + len(game.seats)  # every seat is compared, not only up to the match
    assert not trias_authority.same_secret(None, "") and not trias_authority.same_secret("", "")


# ---- games stored before table secrets, and the lead ----

def _old_game(app, tmp_path):
    """A game as stored before this change: its identity has no table secret."""
    games = open_games(tmp_path / "web.db")
    game = games.create(HUMANS[:2], seed=5)
    path, game_id = game._service.path, game.id
    games.close()
    from trias_kit import edit_identity

    edit_identity(path, lambda identity: identity.pop("table"), before_the_seed=True)  # stored before table links
    return game_id


def test_an_old_game_opens_read_only_until_the_lead_makes_its_table_link(app, table, stranger, tmp_path):
    game_id = _old_game(app, tmp_path)
    page = stranger.client.get(f"/trias/g/{game_id}").get_data(as_text=True)
    assert 'data-table="0"' in page and not SEAT_LINK.search(page)
    refused(stranger.post(f"/trias/api/g/{game_id}/undo"), "table_only")
    refused(login(Table(app), "banker").client.get("/trias/api/admin/games"), "forbidden")
    lead = login(Table(app), "lead")
    (entry,) = lead.client.get("/trias/api/admin/games").get_json()["games"]
    assert entry["id"] == game_id and entry["table_link"] is None
    refused(stranger.post(f"/trias/api/admin/games/{game_id}/table"), "login_required", 401)
    made = lead.post(f"/trias/api/admin/games/{game_id}/table").get_json()["table_link"]
    assert lead.post(f"/trias/api/admin/games/{game_id}/table").get_json()["table_link"] == made  # made once
    game = app.extensions["trias_games"].get(game_id)
    assert made.endswith(f"?t={game.table_secret}") and game.verify() == []
    assert not any(game.table_secret in json.dumps(r) for r in game.public_rows())
    reopened = open_games(tmp_path / "web.db")  # another process (the CLI) sees the same secret
    try:
        assert reopened.get(game_id).table_secret == game.table_secret
    finally:
        reopened.close()
    tablet = Table(app)
    link = urlsplit(made)
    assert tablet.client.get(f"{link.path}?{link.query}").status_code == 303
    assert SEAT_LINK.search(tablet.client.get(f"/trias/g/{game_id}").get_data(as_text=True))


def test_the_lead_sees_every_game_with_its_table_link(app, table):
    game, _ = table.new_game({"kind": "human"}, computer())
    other, _ = Table(app).new_game({"kind": "human"}, {"kind": "human"}, mode="mirror")
    lead = login(Table(app), "lead")
    listed = {g["id"]: g["table_link"] for g in lead.client.get("/trias/api/admin/games").get_json()["games"]}
    assert set(listed) == {game.id, other.id}
    assert listed[game.id].endswith(f"?t={game.table_secret}") and listed[other.id].endswith(f"?t={other.table_secret}")
    assert 'id="trias-admin-list"' in lead.client.get("/admin").get_data(as_text=True)
