"""A game file rewritten under the running bank is seen by the bank, not only after a restart.

The attack: another program opens the game's database while the bank runs, changes a booked entry (here who
booked it) and rebuilds the chain from there to the end (the checkpoint's head too): `verify` says ok. Before,
the bank remembered the heads it wrote and booked on, its new rows linked to a head the file no longer held;
the pages were answered from that memory. Now its next booking is refused, nothing written, and so is every
one after it; a check off the booking path (`Bank.check_chain`, the clock loop's) sees it without any booking.
Rows another process of the game books are no alarm. On SQLite and PostgreSQL.
"""

from __future__ import annotations

import threading

import pytest

from bank.services.bank import Bank
from bank.store import chain
from bank.store.canonical_json import canonical_json
from bank.store.journal_pg_reads import row_bytes
from bank.store.storage import StorageError
from forger_kit import forged_store, sqlite_forger

REFILL = {"type": "refill", "resource": "water", "amount": 1}


@pytest.fixture(params=["sqlite", "postgresql"])
def store(request, config, tmp_path, monkeypatch):
    """(config, db, sql): sql(statement, params) runs another program's statement, the guards off."""
    return forged_store(request, config, tmp_path, monkeypatch, "rewrite")


def _started(config, db, rows: int) -> Bank:
    bank = Bank.create(db, config)
    bank.execute({"id": "start", "type": "start_clock"})
    while bank.last_seq < rows:
        bank.execute({**REFILL, "id": f"r{bank.last_seq}"})
    return bank


def _rewrite(sql, bank: Bank, seq: int) -> str:
    """Entry `seq` said to be booked by someone else, the chain rebuilt from it to the end: the file's new head."""
    sql("UPDATE journal SET actor = %s WHERE {game} AND seq = %s", ("mallory", seq))
    previous = bank.head_at(seq - 1)  # before the rewrite: the file holds what the bank remembers
    for r in bank.journal_rows(seq - 1):
        texts = (r["command_id"], r["fingerprint"], r["type"], r["actor"], canonical_json(r["command"]),
                 canonical_json(r["events"]))
        previous = chain.link(previous, r["seq"], float(r["at"]), row_bytes(texts))
        sql("UPDATE chain SET hash = %s WHERE {game} AND seq = %s", (previous, r["seq"]))
    sql("UPDATE clock_checkpoint SET head = %s WHERE {game}", (previous,))
    return previous


def _stored_rows(sql) -> int:
    return sql("SELECT COUNT(*) FROM journal WHERE {game}")[0][0]


def test_the_next_booking_on_a_rewritten_file_is_refused_and_every_one_after(store):
    config, db, sql = store
    with _started(config, db, rows=4) as bank:
        wrote = bank.chain_head()
        state = bank.state
        forged = _rewrite(sql, bank, 2)
        with pytest.raises(StorageError) as refused:
            bank.execute({**REFILL, "id": "after-the-rewrite"})  # before: booked, linked to a head the file lost
        assert refused.value.code == "chain_rewritten"
        assert f"entry {wrote[0]} no longer holds the chain head this bank knew there" in refused.value.message
        assert "Nothing was recorded" in refused.value.message and "backup" in refused.value.message
        assert bank.last_seq == wrote[0] and bank.state == state and _stored_rows(sql) == wrote[0]
        with pytest.raises(StorageError, match="chain_rewritten"):
            bank.execute({**REFILL, "id": "again"})
        assert bank.check_chain() == {"saw": {"seq": wrote[0], "hash": wrote[1]},
                                      "head": {"seq": wrote[0], "hash": forged}}
        assert bank.verify() == []  # the forgery is consistent: only what the bank wrote can tell


def test_the_check_off_the_booking_path_sees_it_without_a_booking(store):
    config, db, sql = store
    with _started(config, db, rows=3) as bank:
        assert bank.check_chain() is None
        wrote = bank.chain_head()
        assert bank.stored_head_at(wrote[0]) == bank.head_at(wrote[0]) == wrote[1]
        forged = _rewrite(sql, bank, 3)
        assert bank.head_at(wrote[0]) == wrote[1]  # the pictures' memory: not what a witness is answered
        assert bank.stored_head_at(wrote[0]) == forged
        assert bank.check_chain() == {"saw": {"seq": wrote[0], "hash": wrote[1]},
                                      "head": {"seq": wrote[0], "hash": forged}}
        with pytest.raises(StorageError, match="chain_rewritten"):
            bank.execute({**REFILL, "id": "after-the-check"})
        assert _stored_rows(sql) == wrote[0]


def test_a_bank_that_only_read_the_file_sees_it_from_its_first_look(store):
    """A process that booked nothing yet (another worker of the game) anchors on the head it first read."""
    config, db, sql = store
    _started(config, db, rows=3).close()
    with Bank.open(db, config) as bank:
        assert bank.check_chain() is None  # its first look: the file's head now is its anchor
        read = bank.chain_head()
        forged = _rewrite(sql, bank, 2)
        assert bank.check_chain()["head"] == {"seq": read[0], "hash": forged}


def test_rows_another_process_books_are_no_alarm(store):
    config, db, _ = store
    with _started(config, db, rows=3) as first, Bank.open(db, config) as second:
        assert first.check_chain() is None and second.check_chain() is None
        for i in range(3):
            second.execute({**REFILL, "id": f"second-{i}"})
            first.execute({**REFILL, "id": f"first-{i}"})  # books after the other's rows, catching up
            assert first.check_chain() is None and second.check_chain() is None
        assert first.last_seq == second.last_seq + 1 == 9
        assert first.verify() == []


def test_a_row_edited_with_its_chain_left_is_found_by_the_sweep_within_its_windows(store):
    """Every head stays as the bank wrote it, so check_chain and the pages cannot see it; before, only `serve` did,
    at a restart. The sweep reads and hashes a window of rows at each look, from entry 1 again at the end."""
    config, db, sql = store
    with _started(config, db, rows=7) as bank:
        assert bank.sweep_rows(most=3) is None and bank.sweep_rows(most=3) is None  # rows 1-6 sound
        sql("UPDATE journal SET actor = %s WHERE {game} AND seq = %s", ("mallory", 2))
        assert bank.check_chain() is None  # the heads: as the bank wrote them
        assert bank.sweep_rows(most=3) is None  # rows 7: sound; then from entry 1 again
        found = bank.sweep_rows(most=3)
        assert "journal row 2 was changed" in found["why"] and bank.rewritten is found
        with pytest.raises(StorageError) as refused:
            bank.execute({**REFILL, "id": "after-the-edit"})
        assert refused.value.code == "chain_rewritten" and "journal row 2 was changed" in refused.value.message
        assert _stored_rows(sql) == 7 and bank.check_chain() is found


def test_a_row_still_being_booked_when_the_sweep_looks_is_hashed_by_its_next_window(config, tmp_path):
    """The sweep runs on the clock loop, off the bank's lock: it takes the rows this bank has committed. Before, it
    read the tip on the SQLite writer connection, which the bank's lock alone may use: a booking still open there
    gave it a row its read view could not see, counted as swept, so an edit of that row waited a whole cycle
    (a 50,000-row game: 8 minutes more)."""
    db = tmp_path / "game.db"
    with _started(config, db, rows=4) as bank:
        assert bank.sweep_rows() is None  # rows 1-4
        journal = bank._journal
        appended, go_on = threading.Event(), threading.Event()

        def held(row):  # row 5 written, not committed yet: the booking waits here
            seq = type(journal).append(journal, row)
            appended.set()
            go_on.wait(10)
            return seq
        journal.append = held
        booking = threading.Thread(target=bank.execute, args=({**REFILL, "id": "held"},))
        booking.start()
        try:
            assert appended.wait(10)
            assert bank.sweep_rows() is None
        finally:
            del journal.append
            go_on.set()
            booking.join(10)
        assert bank.last_seq == 5
        bank.execute({**REFILL, "id": "after"})  # row 6
        sqlite_forger(db)("UPDATE journal SET actor = 'mallory' WHERE seq = 5")
        found = bank.sweep_rows()
        assert found is not None and "journal row 5 was changed" in found["why"]
