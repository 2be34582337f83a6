"""The SQLite journal's transaction and its translation of sqlite3 errors, as plain classes.

A command's booking entered four generator-based context managers (`contextlib.contextmanager`: the
transaction, and `storage_errors` around BEGIN, the rows and COMMIT), each a generator made, started and
closed per use. These classes do the same with two method calls each; their behaviour is that
of the generator versions they replace in bank/store/journal.py.
"""

from __future__ import annotations

import sqlite3
import threading
import time

from bank.store.storage import StorageError, storage_errors

BEGIN_WAIT = 5.0  # seconds a BEGIN waits for the write lock, as long as the connections' busy_timeout


def begin_immediate(conn) -> None:
    """BEGIN IMMEDIATE, waiting its turn for up to BEGIN_WAIT seconds.

    SQLite's busy_timeout does not cover one case: while any statement of this connection is still
    open (a page's read on another thread, between its step and its reset), the connection is inside
    a read transaction, and SQLite answers BUSY at once instead of waiting for the write lock that the
    accounts' connection holds for a log-in or a log-out. A harvest then answered 503 database_busy
    ("another program holds the game file") beside the bank's own sessions: the read ends within
    milliseconds, so the BEGIN is tried again until the lock is free."""
    deadline = time.monotonic() + BEGIN_WAIT  # a lock held longer (another program) waited busy_timeout once
    while True:
        try:
            conn.execute("BEGIN IMMEDIATE")
            return
        except sqlite3.OperationalError as exc:
            if (getattr(exc, "sqlite_errorcode", 0) & 0xFF) != sqlite3.SQLITE_BUSY or time.monotonic() >= deadline:
                raise
            time.sleep(0.002)


class SqliteErrors:
    """`storage_errors(path)` for one path, made once: an sqlite3 error leaves as a StorageError."""

    __slots__ = ("path",)

    def __init__(self, path):
        self.path = path

    def __enter__(self) -> None:
        return None

    def __exit__(self, kind, exc, tb) -> bool:
        if kind is not None and issubclass(kind, sqlite3.Error):
            with storage_errors(self.path):  # the one translation, on the rare path only
                raise exc
        return False


class Transaction:
    """BEGIN IMMEDIATE ... COMMIT on a Journal's writer connection; ROLLBACK on any exception, re-raised.

    Keeps the journal's tip (bank/store/journal.py) true: what a ROLLBACK or a failed COMMIT undid, the
    tip forgets. Holds the file's write turn (bank/store/sqlite_turn.py) from before BEGIN to after its end."""

    __slots__ = ("journal",)

    def __init__(self, journal):
        self.journal = journal

    def __enter__(self):
        journal = self.journal
        journal._turn.__enter__()  # the accounts' writers of the file in line with this one (sqlite_turn.py)
        try:
            with journal._errors:
                begin_immediate(journal._conn)
        except BaseException:
            journal._turn.__exit__(None, None, None)
            raise
        journal._in_tx, journal._tx_thread, journal._tip_before = True, threading.get_ident(), journal._tip
        return journal

    def __exit__(self, kind, exc, tb) -> bool:
        try:
            return self._end(kind)
        finally:
            self.journal._turn.__exit__(None, None, None)  # after COMMIT or ROLLBACK: the next in line

    def _end(self, kind) -> bool:
        journal = self.journal
        conn = journal._conn
        if kind is not None:
            # The rows this transaction wrote are gone: so is the tip they moved (a tick before a refused
            # command, a disk full at COMMIT); the next command links to the row really last.
            journal._in_tx, journal._tip = False, journal._tip_before
            # SQLite may already have rolled back by itself (e.g. disk full).
            if conn.in_transaction:
                with journal._errors:
                    conn.execute("ROLLBACK")
            return False
        journal._in_tx = False
        try:
            with journal._errors:
                conn.execute("COMMIT")
        except StorageError:
            journal._tip = journal._tip_before
            # A failed COMMIT (disk full...) may leave the transaction open: end it.
            if conn.in_transaction:
                conn.execute("ROLLBACK")
            raise
        return False
