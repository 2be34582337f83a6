"""The journal: append-only rows, durability settings, readable storage errors.

Run on both stores (tests/conftest.py BOTH_STORES): the journal comes from
storage_url.target(), the SQLite file or a game in PostgreSQL. Tests of the file
itself (its PRAGMAs, its bytes, sqlite3 beside the bank) are marked sqlite_file; their
PostgreSQL counterparts are in tests/store/test_postgres_*.py.
"""

from __future__ import annotations

import os
import sqlite3
import types

import pytest

from bank.store.journal import Journal, StorageError
from bank.store.storage_url import target

IDENTITY = {"teams": ["blue", "red"]}


def _row(seq: int, **extra) -> dict:
    row = {"seq": seq, "command_id": f"c{seq}", "fingerprint": f"f{seq}", "type": "award",
           "actor": "ana", "at": 1000.0 + seq, "command": {"id": f"c{seq}", "type": "award"},
           "events": [{"type": "reputation", "team": "blue", "points": seq}]}
    return {**row, **extra}


@pytest.fixture
def journal(tmp_path):
    """A journal with three rows and a snapshot at seq 2."""
    created = target(tmp_path / "j.db").create("config text", IDENTITY)
    with created.transaction():
        for seq in (1, 2, 3):
            created.append(_row(seq))
        created.write_snapshot(2, {"balances": {}})
    yield created
    created.close()


@pytest.mark.sqlite_file("sqlite3 beside the bank (PostgreSQL: test_postgres_attacks.py)")
@pytest.mark.parametrize("statement", [
    "UPDATE journal SET events='[]' WHERE seq=1",
    "DELETE FROM journal WHERE seq=1",
    "UPDATE snapshots SET state='{}'",
    "DELETE FROM snapshots",
    "UPDATE meta SET value='x' WHERE key='identity'",
    "DELETE FROM meta",
])
def test_rows_cannot_be_updated_or_deleted(journal, statement):
    raw = sqlite3.connect(journal.path)
    with pytest.raises(sqlite3.IntegrityError, match="append-only"):
        raw.execute(statement)
    raw.close()
    assert [r["seq"] for r in journal.rows()] == [1, 2, 3]


@pytest.mark.sqlite_file("its PRAGMAs (PostgreSQL: test_postgres_journal.py)")
def test_wal_and_synchronous_full(journal):
    assert journal.settings() == {"journal_mode": "wal", "synchronous": 2,
                                  "busy_timeout": 5000, "foreign_keys": 1}


def test_meta_keeps_config_text_and_identity(journal):
    assert journal.meta("schema_version") == "1"
    assert journal.meta("config_text") == "config text"
    assert journal.identity() == IDENTITY
    assert float(journal.meta("created_at")) > 0


def test_rows_stream_in_order_after_a_seq(journal):
    rows = journal.rows(after_seq=1)
    assert isinstance(rows, types.GeneratorType)  # streamed, never a whole list
    assert [r["seq"] for r in rows] == [2, 3]
    assert journal.row(3)["events"] == [{"type": "reputation", "team": "blue", "points": 3}]
    assert journal.row(9) is None
    assert journal.last_seq() == 3


def test_find_by_command_id(journal):
    assert journal.find("c2")["command"] == {"id": "c2", "type": "award"}
    assert journal.find("nope") is None


def test_snapshots(journal):
    assert journal.latest_snapshot() == (2, {"balances": {}})
    assert list(journal.snapshots()) == [(2, {"balances": {}})]


def test_transaction_rolls_back_on_any_exception(journal):
    with pytest.raises(ZeroDivisionError):
        with journal.transaction():
            journal.append(_row(4))
            1 / 0
    assert journal.last_seq() == 3
    with journal.transaction():  # the connection is usable again
        journal.append(_row(4))
    assert journal.last_seq() == 4


def test_append_outside_a_transaction_is_refused(journal):
    with pytest.raises(RuntimeError, match="transaction"):
        journal.append(_row(4))


def test_duplicate_command_id_is_refused_by_the_database(journal):
    with pytest.raises(StorageError):
        with journal.transaction():
            journal.append(_row(4, command_id="c1"))
    assert journal.last_seq() == 3


def test_integrity_check_ok(journal):
    assert journal.integrity_check() == "ok"


def test_create_refuses_an_existing_file(journal, tmp_path):
    with pytest.raises(StorageError) as err:
        target(tmp_path / "j.db").create("", {})
    assert err.value.code == "database_exists"


def test_missing_file_says_to_run_init(tmp_path):
    with pytest.raises(StorageError) as err:
        target(tmp_path / "none.db").open()
    assert err.value.code == "database_missing"
    assert "terrabank init" in err.value.message
    assert not (tmp_path / "none.db").exists()  # opening never creates a file


@pytest.mark.sqlite_file("its bytes")
def test_garbage_file_is_reported_corrupt_with_the_backup(tmp_path):
    path = tmp_path / "game.db"
    path.write_bytes(b"this is not sqlite at all" * 100)
    with pytest.raises(StorageError) as err:
        Journal.open(path)
    assert err.value.code == "database_corrupt"
    assert "game-backup.db" in err.value.message
    assert "Backup and restore" in err.value.message


@pytest.mark.sqlite_file("its bytes")
def test_damaged_pages_are_reported_corrupt(journal, tmp_path):
    journal.checkpoint()
    journal.close()
    data = bytearray(journal.path.read_bytes())
    data[100:] = os.urandom(len(data) - 100)  # keep the header, ruin the schema page
    journal.path.write_bytes(bytes(data))
    with pytest.raises(StorageError) as err:
        Journal.open(journal.path)
    assert err.value.code == "database_corrupt"
    assert "backup" in err.value.message


@pytest.mark.sqlite_file("another SQLite file")
def test_other_sqlite_file_is_not_a_terrabank_database(tmp_path):
    path = tmp_path / "other.db"
    raw = sqlite3.connect(path)
    raw.execute("CREATE TABLE notes(x)")
    raw.commit()
    raw.close()
    with pytest.raises(StorageError) as err:
        Journal.open(path)
    assert err.value.code == "not_a_terrabank_database"


@pytest.mark.sqlite_file("SQLite's max_page_count")
def test_full_disk_is_reported_and_nothing_is_recorded(journal):
    pages = journal._fetch("PRAGMA page_count")[0]
    journal._fetch(f"PRAGMA max_page_count={pages}")  # SQLite's own "disk full"
    with pytest.raises(StorageError) as err:
        with journal.transaction():
            journal.append(_row(4, events=[{"type": "note", "text": "x" * 100_000}]))
    assert err.value.code == "disk_full"
    assert "nothing was recorded" in err.value.message
    assert journal.last_seq() == 3


@pytest.mark.sqlite_file("SQLite's query_only")
def test_read_only_database_is_reported(journal):
    journal._fetch("PRAGMA query_only=ON")
    with pytest.raises(StorageError) as err:
        with journal.transaction():
            journal.append(_row(4))
    assert err.value.code == "database_read_only"
    assert journal.last_seq() == 3
