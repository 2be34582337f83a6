"""Count the SQL statements a command costs on the SQLite store.

sqlite3's trace callback on every connection given, and on every journal reader opened later, notes
the statements the calling thread runs while `during()` runs its action. Used by
tests/services/test_statements_per_command.py (through the real app) and tests/services/test_optimistic_booking.py
(on a Bank).
"""

from __future__ import annotations

import sqlite3
import threading

from bank.store import journal_readers


class Statements:
    """Every SQL statement run by the calling thread on the watched SQLite connections, while `counting`."""

    def __init__(self, connections, monkeypatch):
        self.seen: list[str] = []
        self.counting = False
        self.thread = threading.get_ident()
        for conn in connections:
            self.watch(conn)
        real_connect = journal_readers._connect

        def traced_connect(path, mode):  # readers opened later are counted too
            conn = real_connect(path, mode)
            self.watch(conn)
            return conn
        monkeypatch.setattr(journal_readers, "_connect", traced_connect)

    @classmethod
    def of_bank(cls, bank, monkeypatch, *more: sqlite3.Connection) -> "Statements":
        """The bank's journal: its writer, its idle readers, those it opens later; and `more`."""
        journal = bank._journal
        return cls([journal._conn, *journal._readers, *more], monkeypatch)

    def watch(self, conn: sqlite3.Connection) -> None:
        def note(sql: str) -> None:
            if self.counting and threading.get_ident() == self.thread:
                self.seen.append(" ".join(sql.split())[:90])
        conn.set_trace_callback(note)

    def during(self, action):
        self.seen.clear()
        self.counting = True
        try:
            return action()
        finally:
            self.counting = False

    @property
    def reads(self) -> list[str]:
        """The statements seen that read (SELECT)."""
        return [s for s in self.seen if s.startswith("SELECT")]
