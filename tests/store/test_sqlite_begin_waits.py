"""The bank's own SQLite writers wait for each other (bank/store/sqlite_transaction.py `begin_immediate`).

Before: a harvest answered 503 database_busy ("another program holds the game file") while log-ins
and log-outs wrote sessions beside it, 1 run in 2 to 10 beside busy loops
(tests/web/access/test_attacks_review.py): a page's read was open on the journal's connection at the moment of
BEGIN IMMEDIATE, and SQLite then answers BUSY at once instead of waiting for the write lock.
"""

from __future__ import annotations

import sqlite3
import threading
import time

from bank.store.accounts.access import Access
from bank.store.journal import Journal

ROW = {"fingerprint": "f", "type": "award", "actor": "x", "at": 1.0, "command": {}, "events": []}


def test_a_begin_beside_an_open_read_waits_for_the_sessions_write_instead_of_answering_busy(tmp_path):
    path = tmp_path / "game.db"
    journal = Journal.create(path, "{}", {})
    try:
        with journal.transaction():
            for n in range(3):
                journal.append({**ROW, "command_id": f"c{n}", "seq": n + 1})
        sessions = sqlite3.connect(str(path), isolation_level=None, check_same_thread=False)
        sessions.execute("PRAGMA busy_timeout=5000")
        sessions.execute("CREATE TABLE IF NOT EXISTS s(x)")
        # A page's read on the journal's connection, stepped and not yet reset (another thread's, mid-read).
        reading = journal._conn.execute("SELECT seq FROM journal")
        reading.fetchone()
        sessions.execute("BEGIN IMMEDIATE")  # a log-in writing its session
        sessions.execute("INSERT INTO s VALUES (1)")
        threading.Timer(0.3, reading.close).start()  # the read ends
        threading.Timer(0.6, lambda: sessions.execute("COMMIT")).start()  # the session is written
        started = time.monotonic()
        with journal.transaction():
            journal.append({**ROW, "command_id": "after", "seq": 4})
        assert 0.5 < time.monotonic() - started < 5
        assert journal.last_seq() == 4
        sessions.close()
    finally:
        journal.close()


def test_a_log_in_beside_commands_booked_back_to_back_waits_its_turn_instead_of_answering_busy(tmp_path):
    """SQLite's write lock has no queue: a connection that finds it taken sleeps (up to 100 ms) and tries
    again. Commands booked back to back free it for microseconds between transactions, so a log-in's
    session row and its failure count, written on the accounts' connections, met it taken at every try
    and answered 503 database_busy after the 5 s busy timeout, every holder being the bank itself."""
    path = tmp_path / "game.db"
    journal = Journal.create(path, "{}", {})
    access = Access(path, hash_method="pbkdf2:sha256:1000")
    access.add_user("banker", "correct horse", "banker")
    sessions, lockout = access.sessions(), access.lockout()
    stop, booked, failures = threading.Event(), [], []

    def commands():  # the journal's writer: each command holds the write lock a moment, the next follows at once
        try:
            while not stop.is_set():
                with journal.transaction():
                    journal.append({**ROW, "command_id": f"c{len(booked)}", "seq": len(booked) + 1})
                    time.sleep(0.02)
                booked.append(1)
        except BaseException as exc:  # noqa: BLE001 - asserted below
            failures.append(exc)

    thread = threading.Thread(target=commands)
    thread.start()
    try:
        while not booked and not failures:
            time.sleep(0.01)
        started = time.monotonic()
        for _ in range(3):  # a log-in (its failure count, then its session) and a log-out
            lockout.failed("banker@10.0.0.1")
            session = sessions.start("banker", "banker", "10.0.0.1", "phone", access.since("banker"))
            assert session is not None
            assert sessions.end(sessions.check(session).key)
        took = time.monotonic() - started
    finally:
        stop.set()
        thread.join(10)
        access.close()
        journal.close()
    assert not failures
    assert took < 2.5, f"three log-ins and log-outs took {took:.1f} s beside the commands"
