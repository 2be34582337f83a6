"""The journal in PostgreSQL: many games in one database, the URL, what is said when it fails.

The rule suites run on PostgreSQL through tests/conftest.py (BOTH_STORES); this module
checks what only PostgreSQL has: several games side by side, the same chain as the
SQLite file, the database URL from the environment or config.toml, and a sentence
(never a traceback) when the URL is wrong, the server is down or psycopg is missing.
"""

from __future__ import annotations

import dataclasses
import sys

import pytest

from bank.store import journal_pg
from bank.cli.main import main
from bank.game.config import parse_config
from bank.errors import ConfigError
from bank.store.journal import Journal, StorageError
from bank.services.journal_service import JournalService
from bank.services.bank import SNAPSHOT_EVERY, Bank
from bank.store.storage_url import ENV_VAR, PostgresTarget, SqliteTarget, target
from conftest import CONFIG_PATH

HARVEST = {"type": "harvest", "team": "blue", "card": "harvester-1", "resource": "water"}


@pytest.fixture
def pg_config(config, postgres_server):
    """The shipped config with `[storage] url` naming the test server (no environment variable)."""
    return dataclasses.replace(config, storage_url=postgres_server.url)


def _start(bank, prefix="h", count=3):
    bank.execute({"id": f"{prefix}-start", "type": "start_clock"})
    for i in range(count):
        bank.execute({"id": f"{prefix}{i}", **HARVEST, "card": f"harvester-{i % 2 + 1}"},
                     now=bank.now() + 400 * (i + 1))


def test_durable_commits_on_a_server_that_writes_to_disk(pg_config, tmp_path):
    with Bank.create(tmp_path / "g.db", pg_config) as bank:
        settings = bank._journal.settings()
    assert settings["synchronous_commit"] == "on" and settings["fsync"] == "on"
    assert settings["transaction_isolation"] == "read committed"


def test_two_games_in_one_database_keep_their_own_rows_and_ids(pg_config, postgres_server):
    with Bank.create("camp-a", pg_config) as a, Bank.create("camp-b", pg_config) as b:
        _start(a, "x", 3)
        _start(b, "x", 1)  # the same command ids in another game are other commands
        a_state, b_state = a.state, b.state
    assert a_state != b_state
    with Bank.open("camp-a.db", pg_config) as a, Bank.open("camp-b", pg_config) as b:
        assert a.state == a_state and b.state == b_state
        assert a.verify() == [] and b.verify() == []
        assert [r["command_id"] for r in b.journal_rows()] == ["setup", "x-start", "x0"]
    assert {"camp-a", "camp-b"} <= set(journal_pg.list_games(postgres_server.url))


def test_a_creation_that_fails_leaves_no_game_under_the_name(pg_config, postgres_server, monkeypatch):
    """As the file is built beside its place and renamed, the game is built under a name no --db can
    give and renamed once its setup is booked: a failure leaves nothing to open, nothing listed."""
    from bank.services import bank as service

    def broken_setup(config):
        raise RuntimeError("setup cannot be decided")

    monkeypatch.setattr(service.engine, "setup_command", broken_setup)
    with pytest.raises(RuntimeError):
        Bank.create("half-made", pg_config)
    assert not journal_pg.game_exists(postgres_server.url, "half-made")
    assert not any("half-made" in name for name in journal_pg.list_games(postgres_server.url))


def test_a_game_has_the_same_chain_head_in_sqlite_and_postgresql(postgres_server, tmp_path, monkeypatch):
    """The chain hashes the same bytes on both stores: a game moved from one to the other keeps
    the head its lead wrote down. Both made at the same instant: the chain's seed covers when (chain.py)."""
    from types import SimpleNamespace

    from bank.store import chain

    monkeypatch.setattr(chain, "time", SimpleNamespace(time=lambda: 1000.0))
    rows = [{"seq": s, "command_id": f"c{s}", "fingerprint": "f", "type": "award", "actor": None if s == 2 else "ana",
             "at": 1000 + s, "command": {"id": f"c{s}", "note": "été ☀"}, "events": [{"n": s}]} for s in (1, 2, 3)]
    heads = []
    for where in (SqliteTarget(tmp_path / "same.db"), PostgresTarget(postgres_server.url, "same-chain")):
        journal = where.create("", {})
        with journal.transaction():
            for row in rows:
                journal.append(row)
        heads.append((journal.head(), journal.chain_at(2), journal.chain_problem()))
        journal.close()
    assert heads[0] == heads[1]
    assert heads[0][2] is None


def test_reopening_reads_only_the_rows_after_the_last_snapshot(pg_config, tmp_path, monkeypatch):
    with Bank.create(tmp_path / "long.db", pg_config) as bank:
        bank.execute({"id": "start", "type": "start_clock"})
        for i in range(SNAPSHOT_EVERY + 5):
            bank.execute({"id": f"h{i}", **HARVEST, "card": f"harvester-{i % 2 + 1}"})
        live, seq = bank.state, bank.last_seq
    read_after = []
    rows = journal_pg.PostgresJournal.rows
    monkeypatch.setattr(journal_pg.PostgresJournal, "rows",
                        lambda self, after_seq=0: read_after.append(after_seq) or rows(self, after_seq))
    with Bank.open(tmp_path / "long.db", pg_config) as again:
        assert (again.state, again.last_seq) == (live, seq)
    assert read_after == [SNAPSHOT_EVERY]


def test_init_force_keeps_the_old_game_under_a_dated_name(pg_config, postgres_server):
    # The test server is shared with the worker's other tests: count only the games this test's force kept.
    before = set(journal_pg.list_games(postgres_server.url))
    with Bank.create("replaced", pg_config) as old:
        _start(old)
    Bank.create("replaced", pg_config, force=True).close()
    with Bank.open("replaced", pg_config) as new:
        assert new.last_seq == 1  # only the setup
    kept = [g for g in journal_pg.list_games(postgres_server.url) if g.startswith("replaced-") and g not in before]
    assert len(kept) == 1
    with Bank.open(kept[0], pg_config) as archived:
        assert archived.last_seq == 5 and archived.verify() == []


def test_a_game_is_refused_twice_and_a_missing_one_says_how_to_create_it(pg_config):
    Bank.create("twice", pg_config).close()
    with pytest.raises(StorageError) as err:
        Bank.create("twice", pg_config)
    assert err.value.code == "database_exists"
    with pytest.raises(StorageError) as err:
        Bank.open("never-made", pg_config)
    assert err.value.code == "database_missing" and "terrabank init" in err.value.message


def test_the_environment_variable_wins_over_the_config(config, postgres_server, tmp_path, monkeypatch):
    monkeypatch.setenv(ENV_VAR, postgres_server.url)
    assert isinstance(target(tmp_path / "x.db", config), PostgresTarget)
    monkeypatch.delenv(ENV_VAR)
    assert isinstance(target(tmp_path / "x.db", config), SqliteTarget)  # no URL: the file, as always


def test_a_password_in_config_toml_is_refused_it_would_be_copied_into_every_game():
    text = CONFIG_PATH.read_text(encoding="utf-8") + '\n[storage]\nurl = "postgresql://bank:secret@db/games"\n'
    with pytest.raises(ConfigError, match="must not contain a password.*pgpass"):
        parse_config(text, "config.toml")
    text = CONFIG_PATH.read_text(encoding="utf-8") + '\n[storage]\nurl = "mysql://db/games"\n'
    with pytest.raises(ConfigError, match="must be a PostgreSQL URL"):
        parse_config(text, "config.toml")
    ok = parse_config(CONFIG_PATH.read_text(encoding="utf-8") + '\n[storage]\nurl = "postgresql://bank@db/games"\n',
                      "config.toml")
    assert ok.storage_url == "postgresql://bank@db/games"


@pytest.mark.parametrize("url, code, words", [
    ("mysql://db/games", "bad_database_url", "PostgreSQL URL such as"),
    ("postgresql://bank@127.0.0.1:1/games", "database_unreachable", "Check that PostgreSQL runs"),
    ("postgresql://bank@127.0.0.1:{port}/no_such_database", "database_unreachable", "no_such_database"),
    ("postgresql://bank@127.0.0.1:{port}/games?nonsense_option=1", "bad_database_url", "cannot be read"),
])
def test_a_wrong_url_or_a_server_down_is_one_sentence_from_the_cli(url, code, words, postgres_server, tmp_path,
                                                                      monkeypatch, capsys):
    monkeypatch.setenv(ENV_VAR, url.format(port=postgres_server.port))
    with pytest.raises(StorageError) as err:
        Bank.open(tmp_path / "g.db", parse_config(CONFIG_PATH.read_text(encoding="utf-8"), "c.toml"))
    assert err.value.code == code and words in err.value.message
    assert main(["--config", str(CONFIG_PATH), "--db", str(tmp_path / "g.db"), "standings"]) == 2
    said = capsys.readouterr().err
    assert said.startswith("terrabank: ") and words in said and "Traceback" not in said


def test_psycopg_missing_says_how_to_install_it(config, monkeypatch, tmp_path):
    monkeypatch.setitem(sys.modules, "psycopg", None)  # what `import psycopg` sees when it is not installed
    monkeypatch.setenv(ENV_VAR, "postgresql://bank@localhost/games")
    with pytest.raises(StorageError) as err:
        Bank.open(tmp_path / "g.db", config)
    assert err.value.code == "postgres_driver_missing"
    assert "pip install 'terrabank[postgres]'" in err.value.message


def test_a_connection_ended_while_idle_is_replaced_and_the_retry_is_booked_once(pg_config, postgres_server, tmp_path):
    """Before: the first command after the sessions ended (a restart) was refused database_connection_lost.
    Nothing is written before its BEGIN: the BEGIN goes again on a new connection (a connection lost in the
    middle of a command is tests/store/test_pg_failed_connection.py's)."""
    with Bank.create(tmp_path / "lost.db", pg_config) as bank:
        bank.execute({"id": "start", "type": "start_clock"})
        postgres_server.admin("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE usename = 'bank'")
        first = bank.execute({"id": "after", **HARVEST})  # a new connection; booked at once
        again = bank.execute({"id": "after", **HARVEST})
        assert (first.duplicate, again.duplicate, again.seq) == (False, True, first.seq)
        assert [r["command_id"] for r in bank.journal_rows()].count("after") == 1
        assert bank.verify() == []


def test_the_journal_service_runs_on_postgresql_too(postgres_server):
    """JournalService (Trias games) takes a target: the same service, the game in the database."""
    def rebuild(rows):
        return sum(e["add"] for row in rows for e in row["events"])

    def decide(state, command, seq):
        return [{"add": command["n"]}], state + command["n"]

    where = PostgresTarget(postgres_server.url, "trias-like")
    service = JournalService.create(where, {"seats": 2}, rebuild, first={"id": "setup", "n": 1}, decide=decide)
    service.execute({"n": 5}, "m1", "ana", decide)
    service.close()
    again = JournalService.open(where, rebuild)
    assert (again.state, again.last_seq, again.verify()) == (6, 2, [])
    assert again.release() and again.execute({"n": 1}, "m2", None, decide).seq == 3  # reopens on use
    again.close()


def test_the_sqlite_file_stays_the_default_and_its_format_is_unchanged(config, tmp_path):
    with Bank.create(tmp_path / "pi.db", config) as bank:
        assert isinstance(bank._journal, Journal)
        assert bank._journal.settings()["journal_mode"] == "wal"


def test_the_server_opens_the_game_init_made_and_keeps_it_across_restarts(pg_config, tmp_path):
    """`terrabank init` then `serve`, then a restart: the game in PostgreSQL is opened, never
    refused as already existing and never made again."""
    from bank.web import create_app

    db = tmp_path / "served.db"  # the accounts' file; the game itself is "served" in PostgreSQL
    Bank.create(db, pg_config).close()
    assert not db.exists()
    for restart in range(2):
        app = create_app({"DB": db, "CONFIG": pg_config, "TESTING": True})
        bank = app.extensions["terrabank"].bank
        if restart == 0:
            _start(bank)
        assert bank.last_seq == 5 and bank.verify() == []
        app.extensions["trias_games"].close()
        bank.close()
        app.extensions["terrabank"].access.close()
