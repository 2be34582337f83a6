"""`terrabank migrate`: a game played on a Pi (SQLite file) moved into PostgreSQL.

What a lead notices: the game opens on the server with the same standings and the same
chain head they wrote down on the Pi; `verify` is clean; the Pi's file is not touched; a
refusal (a name taken, a damaged file, no database) says what to do and leaves the
database as it was; a copy that breaks half-way leaves no game behind.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import shutil
import sqlite3
import uuid

import pytest

from bank.store import gamefile
from bank.services import migrate
from bank.store import migrate_copy
from bank.services import bank as service
from bank.cli.main import main
from bank.game.config import load_config
from bank.services.bank import Bank
from bank.store.storage_url import ENV_VAR
from bank.store.accounts.access_pg import PostgresAccess
from conftest import CONFIG_PATH
from needs import module

psycopg = module("psycopg")  # a stand-in without it: the tests skip through postgres_server

RESOURCES = ["water", "flora", "dioxygen", "fauna", "energy"]


@pytest.fixture
def pg_config(config, postgres_server):
    return dataclasses.replace(config, storage_url=postgres_server.url)


@pytest.fixture
def pi_game(tmp_path, config, monkeypatch):
    """A game played in its file: 306 rows, snapshots at 100, 200 and 300, an event, a reversal."""
    monkeypatch.setattr(service, "SNAPSHOT_EVERY", 100)
    monkeypatch.delenv(ENV_VAR, raising=False)
    monkeypatch.delenv("TERRABANK_DB", raising=False)
    path = tmp_path / "summer-camp.db"
    with Bank.create(path, config) as bank:
        bank.execute({"id": "start", "type": "start_clock"})
        teams = list(config.teams)
        for i in range(300):
            bank.execute({"id": f"h{i}", "type": "harvest", "team": teams[i % 4], "card": f"harvester-{i % 2 + 1}",
                          "resource": RESOURCES[i % 5], "actor": None if i % 7 else "ana"})
        event = bank.execute({"id": "ev", "type": "open_event", "title": "Flora drive été ☀", "accepts": ["flora"],
                              "rewards": [{"points": 5}, {"jokers": 2}, {"points": 1}]}).events[0]["event"]
        bank.execute({"id": "give", "type": "contribute", "event": event, "team": "blue", "tokens": {"flora": 1}})
        bank.execute({"id": "undo", "type": "reverse", "seq": 10, "reason": "wrong card"})
        bank.execute({"id": "close", "type": "close_event", "event": event})
        assert bank.verify() == []
    return path


def _fingerprint(folder) -> dict:
    """The bytes' hash of every game file of the folder and of a -wal holding commands. A reader of
    a WAL file (migrate, as `standings`) may leave SQLite's empty -wal and its index (-shm) beside it."""
    return {p.name: hashlib.sha256(p.read_bytes()).hexdigest() for p in sorted(folder.iterdir())
            if p.suffix == ".db" or (p.name.endswith("-wal") and p.stat().st_size)}


def _file_game(path, config) -> dict:
    with Bank.open(path, config) as bank:
        journal = bank._journal
        return {"state": bank.state, "head": bank.chain_head(), "snapshots": list(journal.snapshots()),
                "checkpoint": journal.last_checkpoint(), "config_text": journal.meta("config_text"),
                "identity": journal.identity()}


def _all_games(url) -> list[tuple]:
    """Every row of terrabank.games, retired ones and those being built included; none before the first
    game made the schema (this module's refusals may run first on a fresh server)."""
    with psycopg.connect(url) as conn:
        if conn.execute("SELECT to_regclass('terrabank.games')").fetchone()[0] is None:
            return []
        return conn.execute("SELECT id, name, retired FROM terrabank.games ORDER BY id").fetchall()


def _migrate(path, *args):
    return main(["--config", str(CONFIG_PATH), "--db", str(path), "migrate", *args])


def _error(capsys) -> str:
    err = capsys.readouterr().err
    assert err.startswith("terrabank: ") and err.count("\n") == 1 and "Traceback" not in err, err
    return err


def test_the_moved_game_opens_on_postgresql_with_the_same_state_and_chain_head(
        pi_game, config, pg_config, postgres_server, monkeypatch, capsys):
    before = _file_game(pi_game, config)
    files = _fingerprint(pi_game.parent)
    monkeypatch.setenv(ENV_VAR, postgres_server.url)
    name = f"camp-{uuid.uuid4().hex[:8]}"

    assert _migrate(pi_game, "--game", name) == 0
    out = capsys.readouterr().out
    seq, head = before["head"]
    assert f"journal chain head in the file:       {head} (entry {seq})" in out
    assert f"journal chain head in the database:   {head} (entry {seq})" in out
    assert "Copied 306 journal entries and 3 snapshots" in out
    assert f"terrabank --db {name} user NAME --role lead" in out
    assert _fingerprint(pi_game.parent) == files  # the Pi's file was only read

    with Bank.open(name, pg_config) as moved:
        journal = moved._journal
        assert type(journal).__name__ == "PostgresJournal"
        assert moved.state == before["state"] and moved.chain_head() == before["head"]
        assert list(journal.snapshots()) == before["snapshots"]
        assert journal.last_checkpoint() == before["checkpoint"]
        assert (journal.meta("config_text"), journal.identity()) == (before["config_text"], before["identity"])
        assert moved.verify() == []
        # The game goes on in PostgreSQL, its chain continuing from the Pi's head.
        moved.execute({"id": "after-move", "type": "harvest", "team": "red", "card": "harvester-1",
                       "resource": "water"})
        assert moved.verify() == [] and moved.chain_at(seq) == head


def test_the_pis_accounts_and_team_links_come_too_so_the_printed_join_cards_still_work(
        pi_game, pg_config, postgres_server, monkeypatch, capsys):
    from bank.store.accounts.access import Access

    pi = Access(pi_game, "pbkdf2:sha256:1000")
    pi.add_user("ana", "correct horse", "lead")
    pi.add_user("bob", "battery staple", "banker")
    printed = pi.ensure_team_tokens(pg_config.teams)  # what the Pi's join cards carry
    pi.paper_copies().claim("paper:slot-of-a-trade", "0C", 2)  # a ledger line typed on the Pi stood for a booking
    renamed = {"blue": ["Bleus", "Blue", "Dauphins", "Dolphins"]}  # a reload on the Pi renamed blue once
    pi._put_setting("team_names", json.dumps(renamed), 1.0)
    pi.close()
    files = _fingerprint(pi_game.parent)
    monkeypatch.setenv(ENV_VAR, postgres_server.url)
    name = f"camp-{uuid.uuid4().hex[:8]}"

    assert _migrate(pi_game, "--game", name) == 0
    out = capsys.readouterr().out
    assert "Also copied 2 facilitator accounts (same passwords) and 4 team links" in out
    assert "user NAME --role lead" not in out
    assert _fingerprint(pi_game.parent) == files
    server = PostgresAccess(postgres_server.url, name, "pbkdf2:sha256:1000")
    try:
        assert server.check("ana", "correct horse") == "lead" and server.check("bob", "battery staple") == "banker"
        assert server.check("ana", "wrong horse") is None
        assert server.team_tokens() == printed
        assert all(server.team_for(token) == team for team, token in printed.items())
        assert server.paper_copies().holder("paper:slot-of-a-trade") == {"sheet": "0C", "line": 2}
        assert server.paper_copies().claim("paper:slot-of-a-trade", "0C", 5) == {"sheet": "0C", "line": 2}
        assert server.team_names() == renamed  # sheets printed under Dauphins type back on the server
    finally:
        server.close()


def test_the_game_is_named_after_the_file_and_the_last_commands_in_the_wal_come_too(
        tmp_path, config, pg_config, postgres_server, monkeypatch, capsys):
    """A Pi unplugged while serving: its file and -wal copied as they were, the last commands in the -wal."""
    monkeypatch.delenv(ENV_VAR, raising=False)
    on_the_pi, copied = tmp_path / "pi" / "terrabank.db", tmp_path / "server" / f"fair-{uuid.uuid4().hex[:8]}.db"
    on_the_pi.parent.mkdir()
    copied.parent.mkdir()
    with Bank.create(on_the_pi, config) as bank:
        bank.execute({"id": "start", "type": "start_clock"})
        bank.execute({"id": "h", "type": "harvest", "team": "red", "card": "harvester-1", "resource": "water"})
        state, head = bank.state, bank.chain_head()
        for suffix in ("", "-wal"):  # while the bank still holds it: the power cut
            shutil.copyfile(f"{on_the_pi}{suffix}", f"{copied}{suffix}")
    assert (copied.parent / f"{copied.name}-wal").stat().st_size > 0
    monkeypatch.setenv(ENV_VAR, postgres_server.url)

    assert _migrate(copied) == 0
    game = copied.name[:-3]
    assert f"Serve it with: terrabank --db {game} serve" in capsys.readouterr().out
    with Bank.open(game, pg_config) as moved:
        assert (moved.state, moved.chain_head()) == (state, head) and head[0] == 3


def test_a_name_already_taken_is_refused_and_both_games_stay_as_they_were(
        pi_game, pg_config, postgres_server, capsys):
    name = f"taken-{uuid.uuid4().hex[:8]}"
    with Bank.create(name, pg_config) as other:
        taken_head = other.chain_head()
    games, files = _all_games(postgres_server.url), _fingerprint(pi_game.parent)

    assert _migrate(pi_game, "--url", postgres_server.url, "--game", name) == 2
    err = _error(capsys)
    assert f"A game named {name!r} already exists" in err and f"--game {name}-pi" in err
    assert _all_games(postgres_server.url) == games and _fingerprint(pi_game.parent) == files
    with Bank.open(name, pg_config) as other:
        assert other.chain_head() == taken_head


def test_a_file_that_fails_verify_is_not_copied(pi_game, postgres_server, capsys):
    raw = sqlite3.connect(pi_game)
    raw.execute("DROP TRIGGER journal_no_update")
    raw.execute("UPDATE journal SET command = replace(command, 'wrong card', 'no reason') WHERE command_id = 'undo'")
    raw.commit()
    raw.close()
    games, files = _all_games(postgres_server.url), _fingerprint(pi_game.parent)

    assert _migrate(pi_game, "--url", postgres_server.url, "--game", f"bad-{uuid.uuid4().hex[:8]}") == 2
    err = _error(capsys)
    assert "fails its check" in err and "was changed" in err and "verify" in err and "Nothing was copied" in err
    assert _all_games(postgres_server.url) == games and _fingerprint(pi_game.parent) == files


@pytest.mark.parametrize("case, words", [
    ("no database", "TERRABANK_DATABASE_URL"),
    ("no file", "No game file at"),
    ("another config", "made with another config"),
    ("bank running", "already running"),
    ("sqlite url", "leave it out"),
])
def test_other_refusals_are_one_sentence_and_change_nothing(case, words, pi_game, tmp_path, postgres_server,
                                                            monkeypatch, capsys):
    games, files = _all_games(postgres_server.url), _fingerprint(pi_game.parent)
    db, url, config_path, held = pi_game, ["--url", postgres_server.url], CONFIG_PATH, None
    if case == "no database":
        url = []
    elif case == "no file":
        db = tmp_path / "nowhere.db"
    elif case == "another config":
        config_path = tmp_path / "other.toml"
        config_path.write_text(CONFIG_PATH.read_text().replace('id = "green"', 'id = "purple"'))
    elif case == "bank running":
        held = gamefile.hold(pi_game, "terrabank serve")
    elif case == "sqlite url":
        url = ["--url", f"sqlite:///{pi_game}"]
    try:
        code = main(["--config", str(config_path), "--db", str(db), "migrate", "--game", "never-made", *url])
    finally:
        if held is not None:
            held.close()
    assert code == 2
    assert words in _error(capsys)
    assert _all_games(postgres_server.url) == games and _fingerprint(pi_game.parent) == files
    assert not (tmp_path / "nowhere.db.lock").exists()


def test_a_file_from_before_the_chain_is_refused_until_verify_gave_it_one(pi_game, pg_config, postgres_server,
                                                                         capsys):
    """migrate never writes to the file; `verify` there (no database URL) adds the chain, as any command would."""
    raw = sqlite3.connect(pi_game)
    # A file from before the chain had no binding of its snapshots either, and no sealed
    # snapshot: the ones here are sealed over the bound chain, so they go too.
    raw.executescript("DROP TRIGGER meta_no_delete; DELETE FROM meta WHERE key IN ('chain', 'chain_seed'); "
                      "DROP TABLE chain; DROP TABLE clock_checkpoint; DROP TABLE chain_snapshot; "
                      "DROP TRIGGER snapshots_no_delete; DELETE FROM snapshots;")
    raw.close()
    name = f"old-{uuid.uuid4().hex[:8]}"
    assert _migrate(pi_game, "--url", postgres_server.url, "--game", name) == 2
    assert "has no hash chain yet" in _error(capsys)
    assert not any(g[1] == name for g in _all_games(postgres_server.url))

    assert main(["--config", str(CONFIG_PATH), "--db", str(pi_game), "verify"]) == 0
    head = capsys.readouterr().out.split("journal chain head: ")[1].split()[0]
    assert _migrate(pi_game, "--url", postgres_server.url, "--game", name) == 0
    assert f"journal chain head in the database:   {head} (entry 306)" in capsys.readouterr().out
    with Bank.open(name, pg_config) as moved:
        assert moved.verify() == []


def test_a_file_whose_chain_was_dropped_by_hand_is_refused(pi_game, postgres_server, capsys):
    raw = sqlite3.connect(pi_game)
    raw.execute("DROP TABLE chain")
    raw.close()
    assert _migrate(pi_game, "--url", postgres_server.url, "--game", f"dropped-{uuid.uuid4().hex[:8]}") == 2
    err = _error(capsys)
    assert "fails its check: its chain table is missing" in err and "Nothing was copied" in err


def test_a_copy_that_breaks_half_way_leaves_no_game(pi_game, config, postgres_server, monkeypatch):
    """The journal and chain are sent, then the copy fails: the one transaction is rolled back."""
    def broken(*args):
        raise RuntimeError("connection lost in the middle of the snapshots")

    monkeypatch.setattr(migrate_copy, "_copy_snapshots", broken)
    games = _all_games(postgres_server.url)
    with pytest.raises(RuntimeError):
        migrate.migrate(pi_game, config, postgres_server.url, "half-copied")
    assert _all_games(postgres_server.url) == games  # not even a retired or half-built game row


def test_a_copy_that_does_not_check_out_never_gets_the_name(pi_game, config, postgres_server, monkeypatch):
    """Copied and committed, then refused by the check: it stays in the database without a name."""
    def differs(built, *args):
        raise migrate.BankError("migrate_copy_differs", "its state differs")

    monkeypatch.setattr(migrate, "_check_copy", differs)
    name = f"unchecked-{uuid.uuid4().hex[:8]}"
    with pytest.raises(migrate.BankError):
        migrate.migrate(pi_game, config, postgres_server.url, name)
    new = [g for g in _all_games(postgres_server.url) if g[2] == "abandoned"]
    assert new and new[-1][1] is None
    assert not any(name in (g[1] or "") for g in _all_games(postgres_server.url))


def test_a_name_taken_while_copying_is_refused_and_the_other_game_is_kept(
        pi_game, config, pg_config, postgres_server, monkeypatch):
    name = f"raced-{uuid.uuid4().hex[:8]}"
    check = migrate._check_copy

    def meanwhile(*args):
        head = check(*args)
        Bank.create(name, pg_config).close()  # another lead's `init` got there first
        return head

    monkeypatch.setattr(migrate, "_check_copy", meanwhile)
    with pytest.raises(migrate.BankError) as err:
        migrate.migrate(pi_game, config, postgres_server.url, name)
    assert err.value.code == "migrate_target_exists"
    with Bank.open(name, pg_config) as other:
        assert other.last_seq == 1  # the other game, not the copy


def test_init_force_on_postgresql_says_where_the_old_game_is_kept(config, postgres_server, tmp_path, monkeypatch,
                                                                  capsys):
    monkeypatch.setenv(ENV_VAR, postgres_server.url)
    monkeypatch.chdir(tmp_path)
    name = f"redo-{uuid.uuid4().hex[:8]}"
    cli = lambda *args: main(["--config", str(CONFIG_PATH), "--db", name, *args])  # noqa: E731
    assert cli("init") == 0
    assert f"Created a new game {name!r} in PostgreSQL 127.0.0.1:{postgres_server.port}/games" \
        in capsys.readouterr().out
    pg_config = load_config(CONFIG_PATH)
    with Bank.open(name, pg_config) as old:
        old.execute({"id": "go", "type": "start_clock"})
        old.execute({"id": "h", "type": "harvest", "team": "red", "card": "harvester-1", "resource": "water"})
        old_head = old.chain_head()
    accounts = PostgresAccess(postgres_server.url, name, "pbkdf2:sha256:1000")
    accounts.add_user("ana", "correct horse", "lead")
    old_links = accounts.ensure_team_tokens(pg_config.teams)
    accounts.close()

    assert cli("init") == 2
    err = _error(capsys)
    assert "init --force" in err and "dated name" in err and "beside" not in err

    assert cli("init", "--force") == 0
    out = capsys.readouterr().out
    assert f"Replacing the game {name!r} in PostgreSQL" in out and "2 booked commands" in out
    assert "beside" not in out and str(tmp_path) not in out
    assert "the old one's 1 facilitator account; the teams' phone links are new" in out
    kept = out.split("The old game is kept as '")[1].split("'")[0]
    assert kept.startswith(f"{name}-")
    with Bank.open(kept, pg_config) as archived, Bank.open(name, pg_config) as new:
        assert archived.chain_head() == old_head and archived.verify() == []
        assert new.last_seq == 1
    assert not (tmp_path / f"{name}.db").exists() and not list(tmp_path.glob(f"{name}-*"))
    accounts = PostgresAccess(postgres_server.url, name, "pbkdf2:sha256:1000")
    try:
        assert accounts.check("ana", "correct horse") == "lead"
        links = accounts.ensure_team_tokens(pg_config.teams)
        assert links != old_links
    finally:
        accounts.close()

    assert cli("init", "--force", "--keep-links") == 0
    assert "the teams' phone links are kept" in capsys.readouterr().out
    accounts = PostgresAccess(postgres_server.url, name, "pbkdf2:sha256:1000")
    try:
        assert accounts.team_tokens() == links and accounts.check("ana", "correct horse") == "lead"
    finally:
        accounts.close()
