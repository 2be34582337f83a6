"""A device on the Wi-Fi cannot fill the Trias games folder: new games per device are
limited, and the folder has a cap, each refused with a sentence that changes nothing."""

from __future__ import annotations

import json

import pytest

from bank.services import trias_games
from bank.store.storage import StorageError
from bank.web import rate
from bank.web.trias import routes as trias_routes
from test_trias_web import Table, app  # noqa: F401  (the app fixture)

SEATS = {"seats": [{"name": "Ana", "kind": "human"}, {"name": "Bo", "kind": "human"}], "mode": "play"}


class Clock:
    def __init__(self):
        self.now = 1000.0

    def __call__(self):
        return self.now


def test_window_allows_the_limit_then_says_how_long_to_wait_and_counts_no_refusal():
    clock = Clock()
    window = rate.Window(3, 60, clock)
    assert [window.take("a") for _ in range(3)] == [0.0, 0.0, 0.0]
    clock.now += 10
    assert window.take("a") == pytest.approx(50)
    assert window.take("b") == 0.0  # another device is not held back
    clock.now += 40
    assert window.take("a") == pytest.approx(10)  # the refusals above were not counted
    clock.now += 10
    assert window.take("a") == 0.0


def test_window_forgets_idle_devices_so_random_addresses_cannot_grow_it(monkeypatch):
    clock = Clock()
    monkeypatch.setattr(rate.Window, "SWEEP_AT", 50)
    window = rate.Window(1, 5, clock)
    for i in range(500):
        window.take(f"10.0.{i // 250}.{i % 250}")
        clock.now += 1
    assert len(window._uses) <= 51


def created(table) -> int:
    return len(table.client.get("/trias/api/games").get_json()["games"])


def test_one_device_starting_game_after_game_is_told_to_wait_other_devices_still_start(app, monkeypatch):  # noqa: F811
    monkeypatch.setattr(trias_routes, "NEW_GAMES_PER_DEVICE", 3)
    table = Table(app)
    for _ in range(3):
        assert table.post("/trias/api/games", SEATS).status_code == 201
    reply = table.post("/trias/api/games", SEATS)
    assert reply.status_code == 429
    refusal = reply.get_json()["error"]
    assert refusal["code"] == "too_many_games"
    assert "wait" in refusal["message"] and 0 < refusal["params"]["wait"] <= trias_routes.NEW_GAMES_WINDOW + 1
    assert created(table) == 3  # nothing was made
    other = Table(app)
    other.client.environ_base["REMOTE_ADDR"] = "192.168.4.23"
    assert other.post("/trias/api/games", SEATS).status_code == 201


def test_the_refusal_has_a_french_sentence_on_the_start_page(app):  # noqa: F811
    page = Table(app).client.get("/trias/").get_data(as_text=True)
    assert "error.too_many_games" in page and "error.games_folder_full" in page
    # The strings are embedded as JSON, accents escaped as json.dumps does.
    assert json.dumps("Trop de parties ont été lancées depuis cet appareil")[1:-1] in page


def test_a_full_games_folder_refuses_a_new_game_with_what_to_do(app, monkeypatch):  # noqa: F811
    monkeypatch.setattr(trias_games, "MAX_GAMES", 2)
    table = Table(app)
    for _ in range(2):
        assert table.post("/trias/api/games", SEATS).status_code == 201
    reply = table.post("/trias/api/games", SEATS)
    assert reply.status_code == 503
    refusal = reply.get_json()["error"]
    assert refusal["code"] == "games_folder_full"
    assert "another folder" in refusal["message"] and refusal["params"]["games"] == 2
    folder = app.extensions["trias_games"].folder
    assert len(list(folder.glob("*.db"))) == 2


def test_the_cap_counts_games_made_by_the_cli_too(tmp_path, monkeypatch):
    monkeypatch.setattr(trias_games, "MAX_GAMES", 1)
    games = trias_games.TriasGames(tmp_path / "games")
    games.create([{"name": "A", "kind": "human"}, {"name": "B", "kind": "human"}])
    again = trias_games.TriasGames(tmp_path / "games")  # another process: the server after the CLI
    with pytest.raises(StorageError) as refused:
        again.create([{"name": "A", "kind": "human"}, {"name": "B", "kind": "human"}])
    assert refused.value.code == "games_folder_full"
    games.close()
    again.close()


def test_visitors_from_many_addresses_leave_the_last_places_to_a_facilitators_games(app, monkeypatch):  # noqa: F811
    """Before: the folder's cap counted everyone's games alike, and the per-device limit is per address: one laptop's
    26 addresses (127.0.x.y) started 482 games in 8 s, the folder was full, and no facilitator could start a
    table's game either. Now a visitor's game never takes the last fifth of the places (100 of 500)."""
    monkeypatch.setattr(trias_games, "MAX_GAMES", 10)
    for n in range(8):  # four addresses, a game each: within every device's own limit
        visitor = Table(app)
        visitor.client.environ_base["REMOTE_ADDR"] = f"127.0.2.{n + 1}"
        assert visitor.post("/trias/api/games", SEATS).status_code == 201
    late = Table(app)
    late.client.environ_base["REMOTE_ADDR"] = "127.0.2.99"
    reply = late.post("/trias/api/games", SEATS)
    assert reply.status_code == 503, reply.get_json()  # before: 201, the 9th of 10 places taken by a visitor
    assert reply.get_json()["error"]["code"] == "trias_games_kept"
    app.extensions["terrabank"].access.add_user("lea", "password1", "lead")
    lead = Table(app)
    logged = lead.client.post("/api/login", json={"username": "lea", "password": "password1"},
                              headers={"X-CSRF-Token": lead.csrf})
    assert logged.status_code == 200, logged.get_json()
    lead.csrf = logged.get_json()["csrf"]
    for _ in range(2):  # the places kept: the lead's tables still start
        assert lead.post("/trias/api/games", SEATS).status_code == 201
    assert lead.post("/trias/api/games", SEATS).get_json()["error"]["code"] == "games_folder_full"
    assert len(list(app.extensions["trias_games"].folder.glob("*.db"))) == 10
    page = Table(app).client.get("/trias/").get_data(as_text=True)
    assert "error.trias_games_kept" in page  # the start page says it in the page's language


def test_a_seat_command_is_bounded_to_what_a_move_needs_and_journals_only_its_keys(app):  # noqa: F811
    """A seat's link is anyone's to mint. Before, a seat's move carried 8 KB of its own words into the journal, and
    on to every screen of the game with each row (30 rows a page opened: 240 KB); now a body over 1 KB is refused
    unread, and keys its type does not read are refused by name. Nothing written either way."""
    import trias

    table = Table(app)
    game, _ = table.new_game({"kind": "human"}, {"kind": "human"})
    token = game.seats[game.state.current]["token"]
    move = trias.legal_actions(game.state)[0]
    before = game.last_seq
    big = table.post(f"/trias/api/s/{token}/commands", {**move, "note": "x" * 2000})
    assert big.status_code == 413 and big.get_json()["error"]["code"] == "too_large"
    extra = table.post(f"/trias/api/s/{token}/commands", {**move, "note": "x" * 500})
    assert extra.status_code == 400 and extra.get_json()["error"]["code"] == "unknown_keys"
    assert "note" in extra.get_json()["error"]["message"] and game.last_seq == before
    fresh = table.post(f"/trias/api/s/{token}/commands", {"type": "move", "from": [0, 0], "to": [0, 1], "fresh": "x"})
    assert fresh.status_code == 400 and fresh.get_json()["error"]["code"] == "bad_fresh"
    played = table.post(f"/trias/api/s/{token}/commands", {**move, "after_seq": before, "player": 99})
    assert played.status_code == 200 and game.last_seq == before + 1  # what the pages send: the seat is the link's
    assert set(next(game.rows(before))["command"]) <= {"type", "at", "id", "actor"}
    page = table.client.get(f"/trias/s/{token}").get_data(as_text=True)  # the page says the refusals in its language
    assert json.dumps("Ce coup porte quelque chose qu’un coup de ce genre n’a pas")[1:-1] in page  # as the page's JSON
    assert json.dumps("si le troupeau qui se déplace peut encore se reproduire")[1:-1] in page
