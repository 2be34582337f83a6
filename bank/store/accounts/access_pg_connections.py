"""A few connections to one game's access rows in PostgreSQL, shared by an app's accounts, sessions and
lock-outs, and the sentence said when the database fails.

Every request checks its session and every phone its link, from many threads at once: a
connection is taken for one statement or transaction and given back. At most MAX_OPEN are
open, so 40 log-ins at once wait for one instead of opening 40 (the server's
max_connections is shared by every process of every game). A kept connection the server
dropped while it sat idle (PostgreSQL restarted) fails on its first statement, before
anything ran: it is replaced, with every other kept one, and the statement runs on a new
connection, so a restart costs no request. A connection lost in the middle of a
transaction is a StorageError sentence: the change may not have been saved.
"""

from __future__ import annotations

import threading
from contextlib import contextmanager

from bank.store.journal_pg_connect import connect, display_url, first_line, game_id_of, psycopg_module, sound
from bank.store.journal_pg_deadline import deadline
from bank.store.journal_pg_schema import ensure_schema
from bank.store.storage import StorageError

from bank.store.accounts.access_pg_schema import ensure_access_schema

MAX_OPEN = 3
WAIT_SECONDS = 10.0  # for a free connection, before the request is refused with a sentence


@contextmanager
def access_errors(where: str):
    """psycopg's errors as a one-sentence StorageError, as the journal's (journal_pg_connect.pg_errors)."""
    psycopg = psycopg_module()
    try:
        yield
    except psycopg.OperationalError as exc:
        raise StorageError("database_connection_lost", f"The connection to {where} failed ({first_line(exc)}): "
                           "the change may not have been saved; try again once PostgreSQL answers "
                           "(systemctl status postgresql).") from None
    except psycopg.Error as exc:
        raise StorageError("database_error", f"{where} refused the request ({first_line(exc)}); nothing was "
                           "changed.") from None


class GameConnections:
    """Connections to the database holding game `name`; `game` is its number, the key of every row."""

    def __init__(self, url: str, name: str):
        self.url, self.name = url, name
        self.where = f"game {name!r} in {display_url(url)}"
        self._idle: list = []
        self._lock = threading.Lock()
        self._slots = threading.BoundedSemaphore(MAX_OPEN)
        self._closed = False
        with self.connection() as conn:
            ensure_schema(conn)  # the games table the rows refer to
            ensure_access_schema(conn)
            game = game_id_of(conn, name)
        if game is None:
            self.close()
            raise StorageError("database_missing", f"No game named {name!r} in {display_url(url)}: run "
                               f"`terrabank init` (with --db {name}) to create it, or check --db.", path=name)
        self.game = game

    @contextmanager
    def connection(self):
        """A connection for one use (autocommit: each statement is its own transaction); at the start only."""
        with self._slot():
            conn = self._usable(lambda c: None)
            try:
                with access_errors(self.where), deadline(lambda: conn):  # a cut answers within seconds
                    yield conn
            finally:
                self._give_back(conn)

    @contextmanager
    def transaction(self):
        """BEGIN ... COMMIT on one connection; ROLLBACK on any exception, which is re-raised."""
        with self._slot():
            conn = self._usable(lambda c: c.execute("BEGIN"))
            try:
                with access_errors(self.where), deadline(lambda: conn):
                    try:
                        yield conn
                        conn.execute("COMMIT")
                    except BaseException:
                        if not conn.broken and conn.info.transaction_status != _idle():
                            conn.execute("ROLLBACK")
                        raise
            finally:
                self._give_back(conn)

    def rows(self, query: str, params=()) -> list:
        """Run one statement; its rows (an empty list when it returns none)."""
        with self._slot():
            found: list = []

            def run(conn) -> None:
                cur = conn.execute(query, params)
                found[:] = cur.fetchall() if cur.description else []
            conn = self._usable(run)
            self._give_back(conn)
            return found

    @contextmanager
    def _slot(self):
        if not self._slots.acquire(timeout=WAIT_SECONDS):
            raise StorageError("database_error", f"All {MAX_OPEN} connections of this process to {self.where} "
                               f"stayed busy for {WAIT_SECONDS:.0f} s; nothing was changed: try again in a moment.")
        try:
            yield
        finally:
            self._slots.release()

    def _usable(self, first):
        """A connection on which `first(conn)` ran. A kept one the server dropped while it sat idle (PostgreSQL
        restarted) fails before anything ran: it is replaced by a new one, once, and the request goes on."""
        psycopg = psycopg_module()
        with self._lock:
            conn = self._idle.pop() if self._idle else None
        if conn is not None:
            try:
                with deadline(lambda: conn) as cut:
                    first(conn)
                return conn
            except psycopg.OperationalError:
                if not conn.broken or cut.expired:  # a statement's failure, or no answer in time (a cut)
                    self._give_back(conn)
                    with access_errors(self.where):
                        raise
                self._give_back(conn)  # closes it and every other kept one: they met the same restart
            except BaseException:
                self._give_back(conn)
                with access_errors(self.where):
                    raise
        conn = connect(self.url)
        try:
            with access_errors(self.where), deadline(lambda: conn):
                first(conn)
        except BaseException:
            self._give_back(conn)
            raise
        return conn

    def _give_back(self, conn) -> None:
        dead: list = []
        with self._lock:
            keep = not self._closed and sound(conn)  # a failed one is never used again
            if keep:
                self._idle.append(conn)
            elif conn.broken:  # the server went away: the others kept idle met the same end
                dead, self._idle = self._idle, []
        if not keep:
            for each in (conn, *dead):
                each.close()

    def close(self) -> None:
        """Close the idle connections; one in use is closed when given back."""
        with self._lock:
            self._closed, idle, self._idle = True, self._idle, []
        for conn in idle:
            conn.close()


def _idle():
    from psycopg.pq import TransactionStatus
    return TransactionStatus.IDLE
