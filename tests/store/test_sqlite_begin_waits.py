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
