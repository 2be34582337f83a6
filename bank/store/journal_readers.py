"""The journal's read-only connections: one consistent view per thread, and rows streamed without the writer.

Split from bank/store/journal.py when the command's look-ups moved into one statement there
and the file reached its 400 lines. Journal inherits these; they use its `path`, `_views` (thread ->
its read transaction), `_readers` (idle connections) and `_readers_lock`.
"""

from __future__ import annotations

import json
import sqlite3
import threading
from contextlib import contextmanager
from typing import Iterator

from bank.store.sqlite_file import _connect
from bank.store.storage import storage_errors

# Read-only connections kept open for rows(): opening one costs about as much as
# reading a few rows, and every live update after a command reads the journal.
_IDLE_READERS = 4

_COLUMNS = "seq, command_id, fingerprint, type, actor, at, command, events"
_WITH_HEADS = (f"SELECT {', '.join('j.' + c for c in _COLUMNS.split(', '))}, COALESCE(b.hash, c.hash) FROM journal j "
               "LEFT JOIN chain c ON c.seq = j.seq LEFT JOIN chain_snapshot b ON b.seq = j.seq WHERE j.seq>? "
               "ORDER BY j.seq")


def _row_dict(r) -> dict:
    """A journal row as a dict with the command and events decoded."""
    seq, command_id, fingerprint, type_, actor, at, command, events = r
    return {"seq": seq, "command_id": command_id, "fingerprint": fingerprint, "type": type_,
            "actor": actor, "at": at, "command": json.loads(command),
            "events": json.loads(events)}


class JournalReaders:
    """read_view() and rows() of bank/store/journal.Journal, on connections of their own."""

    @contextmanager
    def read_view(self):
        """Every read of this thread inside sees one moment of the journal: one read transaction
        (WAL), so rows, chain and snapshots agree while another process books."""
        me = threading.get_ident()
        if me in self._views:  # already one consistent picture
            yield self
            return
        conn, healthy = self._reader(), False
        try:
            with storage_errors(self.path):
                conn.execute("BEGIN")
                conn.execute("SELECT 1 FROM meta LIMIT 1")  # the read transaction starts here
            self._views[me] = conn
            try:
                yield self
            finally:
                del self._views[me]
                if conn.in_transaction:
                    conn.execute("COMMIT")
            healthy = True
        finally:
            self._release(conn, healthy)

    def rows(self, after_seq: int = 0) -> Iterator[dict]:
        """Rows with seq > after_seq in order, streamed from a read-only connection."""
        return self._stream(f"SELECT {_COLUMNS} FROM journal WHERE seq>? ORDER BY seq", (after_seq,), _row_dict)

    def rows_with_heads(self, after_seq: int = 0) -> Iterator[tuple[dict, str | None]]:
        """(row, the chain's head at its entry as stored) for seq > after_seq in order: one read for an export,
        where a head read per row was a statement per row."""
        return self._stream(_WITH_HEADS, (after_seq,), lambda r: (_row_dict(r[:-1]), r[-1]))

    def _stream(self, sql: str, params: tuple, convert) -> Iterator:
        # A separate connection reads a consistent snapshot (WAL) without holding
        # the writer's connection, so a long export never blocks the bank.
        conn, cur, healthy = self._reader(), None, False
        try:
            with storage_errors(self.path):
                cur = conn.execute(sql, params)
                for r in cur:
                    yield convert(r)
            healthy = True
        except GeneratorExit:  # the caller stopped reading early: the connection is fine
            healthy = True
            raise
        finally:
            if cur is not None:
                cur.close()  # ends the read transaction, so the WAL can be checkpointed
            self._release(conn, healthy)

    def committed_rows(self, after_seq: int) -> Iterator[dict]:
        """The rows after `after_seq` up to the committed seq (inside this thread's transaction, the tip it
        knows: its append claims the next seq); a row booked since is left for the next look."""
        head = self.committed_seq()
        if head <= after_seq:
            return
        for row in self.rows(after_seq):
            if row["seq"] > head:
                return
            yield row

    def _reader(self) -> sqlite3.Connection:
        """This thread's read_view, an idle read-only connection, or a new one."""
        if threading.get_ident() in self._views:
            return self._views[threading.get_ident()]
        with self._readers_lock:
            if self._readers:
                return self._readers.pop()
        with storage_errors(self.path):
            return _connect(self.path, "ro")

    def _release(self, conn: sqlite3.Connection, healthy: bool) -> None:
        """Keep a reader for the next rows() call, unless it failed or the journal is closed."""
        if self._views.get(threading.get_ident()) is conn:
            return  # the read_view's: it ends with the view
        with self._readers_lock:
            if healthy and not self._closed and len(self._readers) < _IDLE_READERS:
                self._readers.append(conn)
                return
        conn.close()
