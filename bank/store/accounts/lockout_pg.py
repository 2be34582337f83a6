"""Failed log-ins counted in PostgreSQL, keyed by the game's number.

The same rules as the SQLite file (lockout.py's LoginGuard). Every process of the game
counts in the same rows, each check-and-count under the game's log-in advisory lock, so
an attacker who sends guesses to N processes gets the same five tries as with one, and
a restart of any of them forgets nothing. The hash slots stay per process: they bound
this machine's memory.
"""

from __future__ import annotations

from contextlib import contextmanager

from bank.store.accounts.access_pg_schema import LOGIN_LOCK_SPACE
from bank.store.accounts.lockout import LoginGuard


class PostgresLockout(LoginGuard):
    """The login_failures rows of one game, on its access connections (access_pg_connections.GameConnections)."""

    def __init__(self, db, clock=None, **limits):
        super().__init__(clock=clock, **limits)
        self.db = db

    @contextmanager
    def _transaction(self):
        """BEGIN, the game's log-in lock (held until COMMIT), ... COMMIT: the check and the count are one step
        for every process; commands wait on another lock, so a burst of log-ins does not slow the bank."""
        with self.db.transaction() as conn:
            conn.execute("SELECT pg_advisory_xact_lock(%s, %s)", (LOGIN_LOCK_SPACE, self.db.game))
            yield _DatabaseCounts(conn, self.db.game)


class _DatabaseCounts:
    """The login_failures rows of one game, in one transaction."""

    def __init__(self, conn, game: int):
        self.conn, self.game = conn, game

    def get(self, key: str) -> tuple | None:
        return self.conn.execute("SELECT count, since FROM terrabank.login_failures WHERE game = %s AND key = %s",
                                 (self.game, key)).fetchone()

    def put(self, key: str, count: int, since: float) -> None:
        self.conn.execute("""INSERT INTO terrabank.login_failures(game, key, count, since) VALUES (%s, %s, %s, %s)
                             ON CONFLICT (game, key) DO UPDATE SET count = EXCLUDED.count, since = EXCLUDED.since""",
                          (self.game, key, count, since))

    def give_back(self, key: str) -> None:
        self.conn.execute("UPDATE terrabank.login_failures SET count = count - 1 WHERE game = %s AND key = %s "
                          "AND count > 0", (self.game, key))

    def clear(self, keys) -> None:
        self.conn.execute("DELETE FROM terrabank.login_failures WHERE game = %s AND key = ANY(%s)",
                          (self.game, list(keys)))
