"""Trias games in PostgreSQL: where they are kept, shared by processes, on a few connections.

The game-store suite itself runs on both stores (tests/services/test_trias_games.py, conftest.BOTH_STORES);
this module checks what only the database has: the choice of store, two server processes
on one game, the cap counted in the database, and how many connections hundreds of open
games hold. "A process" here is one TriasGames with its own connections, as each
`terrabank serve` process has.
"""

from __future__ import annotations

import threading
import time
import uuid

import pytest

from bank.store import journal_pg
from bank.services import trias_games
from bank.store.journal_pg_pool import ConnectionPool
from bank.store.storage import StorageError
from bank.store.storage_url import ENV_VAR
from bank.store.trias_store import DatabaseStore, FolderStore, choose
from trias_kit import HUMANS, finish, first_legal
from needs import module

psycopg = module("psycopg")  # a stand-in without it: the tests skip through postgres_server

TWO = [{"name": "Ana", "kind": "human"}, {"name": "Bo", "kind": "human"}]


@pytest.fixture
def url(postgres_server, monkeypatch):
    """The test server's URL, set as the bank's database URL."""
    monkeypatch.setenv(ENV_VAR, postgres_server.url)
    return postgres_server.url


@pytest.fixture
def processes(tmp_path, url):
    """process(): the Trias games of the bank game `<tmp>/bank.db` as one more server process sees them."""
    opened = []

    def process(**settings):
        opened.append(trias_games.open_games(tmp_path / "bank.db", **settings))
        return opened[-1]
    yield process
    for games in opened:
        games.close()


def backends(url: str, application: str) -> int:
    """Server processes PostgreSQL runs for connections named `application` (one per connection)."""
    with psycopg.connect(url, application_name="counting") as conn:
        return conn.execute("SELECT count(*) FROM pg_stat_activity WHERE application_name = %s",
                            (application,)).fetchone()[0]


# --- which store ------------------------------------------------------------------------------

def test_without_a_url_the_games_stay_in_the_folder_beside_the_bank(tmp_path, monkeypatch):
    monkeypatch.delenv(ENV_VAR, raising=False)
    store = choose(tmp_path / "camp.db")
    assert isinstance(store, FolderStore) and store.folder == tmp_path / "camp-trias"


def test_with_a_url_each_bank_game_keeps_its_trias_games_under_its_name(url, tmp_path):
    camp_name = f"camp-{uuid.uuid4().hex[:6]}"  # the server is shared by the session's tests
    camp, fair = trias_games.open_games(f"{camp_name}.db"), trias_games.open_games(f"fair-{camp_name}.db")
    try:
        assert isinstance(camp.store, DatabaseStore) and camp.folder is None
        game = camp.create(TWO, seed=1)
        assert journal_pg.game_exists(url, f"{camp_name}/trias/{game.id}")
        assert [g["id"] for g in camp.list()] == [game.id] and fair.list() == []
        assert fair.get(game.id) is None  # another bank's game, even with its id
        # The host's list of bank games does not show the Trias games.
        assert not [name for name in journal_pg.list_games(url) if name.startswith(camp_name)]
        # Nor does this bank count or list the games of a bank named under it.
        under = trias_games.open_games(f"{camp_name}/trias/x.db")
        try:
            under.create(TWO, seed=2)
            assert [g["id"] for g in camp.list()] == [game.id] and camp.store.count() == 1
        finally:
            under.close()
    finally:
        camp.close()
        fair.close()


def test_a_folder_named_by_hand_wins_over_the_url(url, tmp_path):
    store = choose(tmp_path / "bank.db", folder=tmp_path / "old-games")
    assert isinstance(store, FolderStore) and store.folder == tmp_path / "old-games"


def test_a_url_that_is_not_postgresql_is_one_sentence_naming_its_setting(tmp_path, monkeypatch):
    monkeypatch.setenv(ENV_VAR, "mysql://bank@db/games")
    with pytest.raises(StorageError) as refused:
        trias_games.open_games(tmp_path / "bank.db")
    assert ENV_VAR in refused.value.message and "postgresql://" in refused.value.message
    assert not (tmp_path / "bank-trias").exists()


def test_the_web_app_and_the_terminal_keep_their_trias_games_in_the_database(url, tmp_path, config, capsys):
    from bank.cli.main import main
    from bank.web import create_app

    db = tmp_path / "web.db"
    assert main(["--db", str(db), "trias", "new", "--seat", "Ana", "--seat", "Bot:easy", "--seed", "3"]) == 0
    out = capsys.readouterr().out
    made, secret = out.split()[3], out.split("?t=")[1].split()[0]  # "Created Trias game ID (...)", its table link
    app = create_app({"DB": db, "CONFIG": config, "TESTING": True, "TRIAS_PACE": 0})
    try:
        client = app.test_client()
        assert client.get(f"/trias/g/{made}?t={secret}").status_code == 303  # this device now holds the table
        listed = client.get("/trias/api/games").get_json()["games"]
        assert [g["id"] for g in listed] == [made]
        assert client.get(f"/trias/g/{made}").status_code == 200
    finally:
        app.extensions["trias_games"].close()
        app.extensions["terrabank"].bank.close()
        app.extensions["terrabank"].access.close()
    assert not (tmp_path / "web-trias").exists()  # nothing went to the folder
    assert main(["--db", str(db), "trias", "show"]) == 0
    assert made in capsys.readouterr().out
    assert main(["--db", str(db), "trias", "verify", made]) == 0


# --- two processes on one game -----------------------------------------------------------------

def test_a_game_made_by_one_process_is_listed_and_played_on_another(processes):
    one, two = processes(), processes()
    game = one.create(HUMANS, seed=5)
    assert [g["id"] for g in two.list()] == [game.id]
    there = two.get(game.id)
    there.execute(first_legal(there), "from-two", "seat:0")
    # The first process sees the move without being told: its list and its page read it fresh.
    assert one.list()[0]["last_seq"] == 2
    assert one.get(game.id).state == there.state
    game.execute(first_legal(game), "from-one", f"seat:{game.state.current}")
    assert two.get(game.id).last_seq == 3 and there.verify() == [] and game.verify() == []


def test_the_same_command_id_sent_to_two_processes_at_once_is_booked_once(processes):
    one, two = processes(), processes()
    made = one.create(HUMANS, seed=6)
    copies = [made, two.get(made.id)]
    command = first_legal(made)
    results, start = [], threading.Barrier(4)

    def send(game):
        start.wait()
        results.append(game.execute(command, "the-same-tap", "seat:0"))

    threads = [threading.Thread(target=send, args=(copies[i % 2],)) for i in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(r.duplicate for r in results) == [False, True, True, True]
    assert {r.seq for r in results} == {2}
    assert [r["command_id"] for r in processes().get(made.id)._service.rows()] == ["setup", "the-same-tap"]


def test_a_rematch_made_on_one_process_takes_the_seat_links_there_on_the_other(processes):
    one, two = processes(), processes()
    game = one.create(TWO, seed=8)
    token = game.seats[1]["token"]
    assert two.seat_for(token)[0].id == game.id
    finish(game)
    new = game.rematch("again")
    assert two.seat_for(token) == (two.get(new.id), 1)


def test_a_game_whose_set_up_is_not_committed_yet_is_not_listed_nor_marked_broken(processes, url):
    games = processes()
    half = journal_pg.PostgresJournal.create(url, games.store.prefix + "abcdefgh", "trias", {"id": "abcdefgh"})
    half.close()
    assert games.list() == [] and games.broken == {}


# --- the cap -------------------------------------------------------------------------------------

def test_the_cap_is_counted_in_the_database_across_processes_and_per_bank(processes, tmp_path, monkeypatch):
    monkeypatch.setattr(trias_games, "MAX_GAMES", 2)
    one, two = processes(), processes()
    one.create(TWO)
    two.create(TWO)
    with pytest.raises(StorageError) as refused:
        one.create(TWO)
    assert refused.value.code == "trias_games_full" and refused.value.params["games"] == 2
    assert "already holds 2 Trias games" in refused.value.message and "rename finished ones" in refused.value.message
    assert len(two.list()) == 2  # nothing was made
    other_bank = trias_games.open_games(tmp_path / "other.db")
    try:
        other_bank.create(TWO)  # another bank game has its own 500
    finally:
        other_bank.close()


# --- connections -----------------------------------------------------------------------------------

def test_two_hundred_open_games_hold_a_few_connections(tmp_path, postgres_server, monkeypatch, capsys):
    """Each game on a connection of its own would be 200 server processes (max_connections is 100 by
    default); the process's games share its pool. Measured on the server, in pg_stat_activity."""
    name = f"trias-{uuid.uuid4().hex[:8]}"
    url = f"{postgres_server.url}?application_name={name}"
    maker = trias_games.open_games(tmp_path / "bank.db", url=url)
    made = [maker.create(TWO, seed=i) for i in range(200)]
    while_open = backends(postgres_server.url, name)
    assert maker.store.pool.opened == while_open <= ConnectionPool(url).size
    # A second process opening all of them at once (its list) also holds its few.
    reader = trias_games.open_games(tmp_path / "bank.db", url=url)
    assert len(reader.list()) == 200
    both = backends(postgres_server.url, name)
    assert both <= 2 * ConnectionPool(url).size
    # Every game still plays, eight threads at once: a connection is taken for a command and given back.
    start = threading.Barrier(8)

    def play(games):
        start.wait()
        for game in games:
            game = reader.get(game.id)
            game.execute(first_legal(game), "move-1", "seat:0")

    threads = [threading.Thread(target=play, args=(made[i::8],)) for i in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert all(maker.get(g.id).last_seq == 2 for g in made)
    assert reader.store.pool.peak <= ConnectionPool(url).size
    maker.close()
    reader.close()
    # Closing the games closes their connections. A server process ends a moment after its client
    # says goodbye, so pg_stat_activity is read until it empties (CI once saw 1 just after the close).
    deadline = time.monotonic() + 10
    while backends(postgres_server.url, name) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert backends(postgres_server.url, name) == 0
    with capsys.disabled():
        print(f"\n200 open Trias games: {while_open} connection(s) in the process that made them, {both} with "
              f"a second process that opened them all, at most {reader.store.pool.peak} in that one while "
              "8 threads played a move in each")


def test_releasing_a_game_in_the_database_keeps_it_playable(processes):
    games = processes()
    game = games.create(HUMANS, seed=2)
    assert game._service.release()
    game.execute(first_legal(game), "after-release", "seat:0")
    assert game.last_seq == 2 and game.verify() == []


def test_a_thread_finding_every_connection_busy_waits_then_gets_a_sentence(url):
    pool = ConnectionPool(url, size=1, wait=0.05)
    held = pool.take()
    with pytest.raises(StorageError) as busy:
        pool.take()
    assert busy.value.code == "database_busy" and "nothing was recorded" in busy.value.message
    pool.give(held)
    again = pool.take()  # the freed connection is handed on, not a new one
    assert again is held and pool.opened == 1
    pool.give(again)
    pool.close()
    assert pool.opened == 0


def test_a_connection_dropped_by_the_server_is_replaced_and_the_game_goes_on(processes, postgres_server):
    games = processes()
    game = games.create(HUMANS, seed=4)
    postgres_server.admin("SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
                          "WHERE usename = 'bank' AND application_name = 'terrabank'")
    command = first_legal(game)
    # The idle connection the server ended is found dead before anything was sent on it: the BEGIN goes
    # again on a new connection, so the move is booked at once, and its retry answers from the row.
    first = game.execute(command, "after-drop", "seat:0")
    assert not first.duplicate and game.execute(command, "after-drop", "seat:0").duplicate
    assert game.last_seq == 2 and len(list(game._service.rows())) == 2


# --- new games per device, counted for every process ---------------------------------------------

@pytest.fixture
def two_servers(url, tmp_path, config):
    """Two apps on one bank game in the database, as two `terrabank serve` processes."""
    from bank.web import create_app

    apps = [create_app({"DB": tmp_path / "web.db", "CONFIG": config, "TESTING": True, "TRIAS_PACE": 0})
            for _ in range(2)]
    yield apps
    for app in apps:
        app.extensions["trias_games"].close()
        app.extensions["terrabank"].bank.close()
        app.extensions["terrabank"].access.close()


def test_a_device_spreading_new_games_over_two_processes_meets_one_limit(two_servers):
    from trias_kit import Table

    for app in two_servers:
        app.extensions["trias_creations"].limit = 3
    one, two = Table(two_servers[0]), Table(two_servers[1])
    body = {"seats": TWO, "mode": "play"}
    assert [t.post("/trias/api/games", body).status_code for t in (one, two, one)] == [201, 201, 201]
    refused = two.post("/trias/api/games", body)
    assert refused.status_code == 429 and refused.get_json()["error"]["code"] == "too_many_games"
    assert 0 < refused.get_json()["error"]["params"]["wait"] <= 601
    assert one.post("/trias/api/games", body).status_code == 429  # the refusal was not counted, still full
    assert len(two_servers[0].extensions["trias_games"].list()) == 3  # nothing was made
    other = Table(two_servers[1])
    other.client.environ_base["REMOTE_ADDR"] = "192.168.4.23"
    assert other.post("/trias/api/games", body).status_code == 201  # another device is not held back


def test_the_shared_count_never_blocks_a_game_when_the_database_cannot_count(url):
    from bank.store.trias_starts_pg import SharedWindow

    pool = ConnectionPool(url)
    pool.close()  # every take now fails with a sentence
    assert SharedWindow(pool, "gone/trias/", 1, 600).take("10.0.0.1") == 0.0
