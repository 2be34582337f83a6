"""A few PostgreSQL connections shared by many games' journals (Trias games in PostgreSQL).

The bank's own journal keeps a writer and a few readers of its own: one game per
process. A process serving Trias keeps hundreds of games open, and a connection per
game would be hundreds of server processes (PostgreSQL's default max_connections is
100). So the journals of those games take a connection for one transaction or one read
and give it back: the process holds at most `size` connections, whatever the number of
games, and a thread finding them all busy waits its turn (a command takes milliseconds).

No journal holds a pooled connection while it asks for another, so waiting cannot deadlock.
"""

from __future__ import annotations

import os
import threading
import time
from contextlib import contextmanager

from bank.store.journal_pg_connect import connect, display_url, idle_status, pg_errors
from bank.store.journal_pg_schema import ensure_schema
from bank.store.storage import StorageError

SIZE = 4  # connections per process for all its Trias games: commands are short, screens read between them
WAIT = 10.0  # seconds a thread waits for a free connection before it is told the database is busy


class ConnectionPool:
    """At most `size` connections to `url`, opened when first needed, kept idle between uses."""

    def __init__(self, url: str, size: int = SIZE, wait: float = WAIT):
        self.url, self.size, self.wait = url, size, wait
        self._idle: list = []
        self._opened = 0  # connections open now, idle or in use
        self.peak = 0  # the most ever open at once, for measurements
        self._cond = threading.Condition()
        self._closed = False
        self._schema_checked = False
        self._pid = os.getpid()

    @property
    def opened(self) -> int:
        """How many connections the pool holds now (idle or in use)."""
        with self._cond:
            return self._opened

    def take(self):
        """A connection in autocommit mode; give it back with `give` (or use `connection()`)."""
        deadline = time.monotonic() + self.wait
        with self._cond:
            if self._pid != os.getpid():  # a forked child: the parent's connections were made inert there
                self._pid, self._idle, self._opened = os.getpid(), [], 0
            while True:
                if self._closed:
                    raise StorageError("pool_closed", f"The connections to {display_url(self.url)} were closed "
                                       "(the server is stopping): nothing was recorded; send it again once it runs.")
                if self._idle:
                    return self._idle.pop()
                if self._opened < self.size:
                    self._opened += 1
                    self.peak = max(self.peak, self._opened)
                    break
                left = deadline - time.monotonic()
                if left <= 0 or not self._cond.wait(left):
                    raise StorageError("database_busy", f"All {self.size} connections to {display_url(self.url)} "
                                       f"stayed busy for {self.wait:g} seconds: nothing was recorded; send it again "
                                       "(same id: it is booked at most once), and check the database's load.")
        try:
            conn = connect(self.url)
            if not self._schema_checked:  # a fresh database gets its tables before the first query
                with pg_errors(display_url(self.url)):
                    ensure_schema(conn)
                self._schema_checked = True
            return conn
        except BaseException:
            self._forget()
            raise

    def give(self, conn, healthy: bool = True) -> None:
        """Take back a connection: kept if it is sound and idle, else closed (a new one opens when needed)."""
        reusable = (healthy and not conn.closed and not conn.broken
                    and conn.info.transaction_status == idle_status())
        dropped: list = []
        with self._cond:
            if reusable and not self._closed:
                self._idle.append(conn)
                self._cond.notify()
                return
            if conn.broken:  # PostgreSQL went away (a restart): the idle ones met the same end
                dropped, self._idle = self._idle, []
                self._opened -= len(dropped)
        for each in (conn, *dropped):
            each.close()
        self._forget()

    def _forget(self) -> None:
        with self._cond:
            self._opened -= 1
            self._cond.notify()

    @contextmanager
    def connection(self):
        """A connection for the block, given back after it (closed if the block failed)."""
        conn = self.take()
        healthy = False
        try:
            yield conn
            healthy = True
        finally:
            self.give(conn, healthy)

    def close(self) -> None:
        """Close the idle connections; one in use is closed when it is given back."""
        with self._cond:
            self._closed = True
            idle, self._idle = self._idle, []
            self._opened -= len(idle)
            self._cond.notify_all()
        for conn in idle:
            conn.close()
