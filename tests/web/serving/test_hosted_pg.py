"""Hosted games live where their journal lives (bank/store/hosted_pg.py).

With PostgreSQL the list of a host's games is in the database: a game created by one process
is served by another at once (whatever its --games folder is called), one name is one game
across processes, games made before the list (named after their file) are still served, and a
database that does not answer is said, not a 404. Every process here is an app of its own on
the same database, as `serve` processes on several hosts are (tests/web/serving/test_hosted_pg_serve.py
runs the real command).
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from bank.web import create_app
from test_hosting import HASH, ROOT, Browser, close

pytestmark = pytest.mark.usefixtures("postgres_server")


def pytest_generate_tests(metafunc):
    metafunc.parametrize("storage_backend", ["postgresql"], indirect=True, scope="module")


@pytest.fixture
def processes(tmp_path):
    """A factory of processes of one host game ("host" in the database), each with its own games folder."""
    made = []

    def start(folder: str, **settings):
        app = create_app({"DB": tmp_path / "host.db", "CONFIG": str(ROOT / "config.toml"), "TESTING": True,
                          "PASSWORD_HASH": HASH, "GAMES_DIR": str(tmp_path / folder), **settings})
        made.append(app)
        return app

    first = start("a")
    first.extensions["terrabank"].access.add_user("boss", "correct horse", "lead")
    yield start
    for app in made:
        close(app)


def _lead(app) -> Browser:
    lead = Browser(app)
    assert lead.login("boss").status_code == 200
    return lead


def test_a_game_created_on_one_process_is_served_by_another_with_another_folder(processes):
    one, other = processes("a"), processes("elsewhere")  # both running before the game exists
    reply = _lead(one).post("/api/host/games", {"name": "camp"})
    assert reply.status_code == 201, (reply.status_code, reply.get_data(as_text=True)[:400])
    made = reply.get_json()
    # The other process serves it on its first request, with its accounts, and lists it.
    camp = Browser(other, "/g/camp")
    assert camp.login("lead", made["lead_password"]).status_code == 200
    listed = _lead(other).get("/api/host/games")
    assert listed.status_code == 200, (listed.status_code, listed.get_data(as_text=True)[:400])
    assert [g["name"] for g in listed.get_json()["games"]] == ["camp"]
    booked = camp.client.post("/g/camp/api/commands", json={"type": "start_clock"},
                              headers={"X-CSRF-Token": camp.csrf, "Idempotency-Key": "camp-1"})
    assert booked.status_code == 200, booked.get_json()
    # One game, not two: the first process reads the command the other booked.
    first_bank = one.extensions["terrabank_hosted"].app("camp").extensions["terrabank"].bank
    first_bank.catch_up()
    assert first_bank.state.clock["status"] == "running"
    # Its journal is named by the host's game and its own name: no folder of either process in it.
    game = first_bank._journal.game
    assert game.endswith("/g/camp") and "/a/" not in game and "elsewhere" not in game


def test_one_name_is_one_game_across_processes_and_the_limit_counts_them_all(processes):
    one, other = processes("a", ), processes("b")
    password = _lead(one).post("/api/host/games", {"name": "camp"}).get_json()["lead_password"]
    again = _lead(other).post("/api/host/games", {"name": "camp"})
    assert again.status_code == 409 and again.get_json()["error"]["code"] == "game_exists"
    assert Browser(other, "/g/camp").login("lead", password).status_code == 200  # the first game, untouched
    other.extensions["terrabank_hosted"].max_games = 1
    full = _lead(other).post("/api/host/games", {"name": "moor"})
    assert full.status_code == 409 and full.get_json()["error"]["code"] == "too_many_games"
    assert [g["name"] for g in _lead(one).get("/api/host/games").get_json()["games"]] == ["camp"]


def test_two_leads_creating_one_name_at_once_on_two_processes_get_one_game(processes):
    import threading

    apps = [processes("a"), processes("b")]
    leads = [_lead(app) for app in apps]
    replies = [None, None]

    def create(i):
        replies[i] = leads[i].post("/api/host/games", {"name": "camp"})

    threads = [threading.Thread(target=create, args=(i,)) for i in (0, 1)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(r.status_code for r in replies) == [201, 409], [r.get_json() for r in replies]
    password = next(r.get_json()["lead_password"] for r in replies if r.status_code == 201)
    for app in apps:  # the one game, with the lead the winner was told of, on both
        assert Browser(app, "/g/camp").login("lead", password).status_code == 200


def test_a_game_made_before_the_list_is_served_under_its_old_name(tmp_path, processes):
    """Before the list, a hosted game's journal was named after its file, FOLDER/<name>/game: the first
    server on that folder lists it again, with its accounts; nothing is renamed."""
    folder = tmp_path / "a"
    old = create_app({"DB": folder / "camp" / "game.db", "CONFIG": str(ROOT / "config.toml"), "TESTING": True,
                      "PASSWORD_HASH": HASH})
    old.extensions["terrabank"].access.add_user("lead", "old password", "lead")
    old_name = old.extensions["terrabank"].bank._journal.game
    close(old)
    (folder / "camp").mkdir(parents=True)
    shutil.copyfile(ROOT / "config.toml", folder / "camp" / "config.toml")  # what the old server left there

    host = processes("a")
    assert [g["name"] for g in _lead(host).get("/api/host/games").get_json()["games"]] == ["camp"]
    assert Browser(host, "/g/camp").login("lead", "old password").status_code == 200
    camp_bank = host.extensions["terrabank_hosted"].app("camp").extensions["terrabank"].bank
    assert camp_bank._journal.game == old_name == str(folder / "camp" / "game")
    # And, listed in the database now, by every other process too, whatever its folder.
    assert Browser(processes("b"), "/g/camp").login("lead", "old password").status_code == 200


def test_a_database_that_does_not_answer_is_said_not_a_404(processes):
    from bank.store.hosted_pg import DatabaseRegistry
    from postgres_kit import _free_port

    host = processes("a")
    games = host.extensions["terrabank_hosted"]
    games.registry = DatabaseRegistry(f"postgresql://bank@127.0.0.1:{_free_port()}/games", "host",
                                      games.folder, games.config_path)  # nothing listens there
    listed = _lead(host).get("/api/host/games")
    assert listed.status_code == 503 and listed.get_json()["error"]["code"] == "database_unreachable"
    page = Browser(host).client.get("/g/camp/login")
    assert page.status_code == 503 and "Cannot connect" in page.get_data(as_text=True)
    made = _lead(host).post("/api/host/games", {"name": "camp"})
    assert made.status_code == 503 and made.get_json()["error"]["code"] == "database_unreachable"
