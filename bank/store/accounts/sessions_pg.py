"""Facilitator log-in sessions in PostgreSQL, keyed by the game's number.

The same rules as the SQLite file (sessions.py's SessionRules): a row is valid while the
account it was opened for exists unchanged, which every process checks by joining on the
account's row, so a log-out, a password change or "log out everywhere" made through one
process ends the session in all of them at once. Only a hash of the id is stored.
"""

from __future__ import annotations

import time

from bank.store.accounts.sessions import IDLE_LIMIT, SessionRules

# Valid: the row exists and its account is the one it was opened for.
_VALID = """SELECT s.id_hash, s.username, s.role, s.last_seen FROM terrabank.sessions s
    JOIN terrabank.facilitators f ON f.game = s.game AND f.username = s.username AND f.role = s.role
    AND f.created_at = s.account_since WHERE s.game = %s"""


class PostgresSessions(SessionRules):
    """The sessions of one game, on its access connections (access_pg_connections.GameConnections)."""

    def __init__(self, db, clock=None):
        # The app passes the bank's time line (bank/services/timeline.py); the system clock otherwise.
        self.db, self.game, self.clock = db, db.game, clock or time.time

    def _open(self, id_hash: str, now: float, address: str, device_name: str, username: str, role: str,
              since: float | None) -> bool:
        with self.db.transaction() as conn:
            conn.execute("DELETE FROM terrabank.sessions WHERE game = %s AND last_seen < %s",
                         (self.game, now - IDLE_LIMIT))
            made = conn.execute("""INSERT INTO terrabank.sessions(game, id_hash, username, role, account_since,
                                   created_at, last_seen, address, device)
                                   SELECT game, %s, username, role, created_at, %s, %s, %s, %s
                                   FROM terrabank.facilitators WHERE game = %s AND username = %s AND role = %s
                                   AND created_at = %s RETURNING id_hash""",
                                (id_hash, now, now, address, device_name, self.game, username, role, since)).fetchall()
        return bool(made)

    def _row(self, id_hash: str) -> tuple | None:
        rows = self.db.rows(_VALID + " AND s.id_hash = %s", (self.game, id_hash))
        return rows[0] if rows else None

    def _touch(self, key: str, now: float) -> None:
        self.db.rows("UPDATE terrabank.sessions SET last_seen = %s WHERE game = %s AND id_hash = %s",
                     (now, self.game, key))

    def valid(self, keys) -> set:
        """Which of these row keys are still valid sessions (for the socket sweep)."""
        keys = list(keys)
        if not keys:
            return set()
        rows = self.db.rows(_VALID + " AND s.id_hash = ANY(%s) AND s.last_seen >= %s",
                            (self.game, keys, self.clock() - IDLE_LIMIT))
        return {row[0] for row in rows}

    def end(self, key: str) -> bool:
        """End one session by its row key; False if there was none."""
        return bool(self.db.rows("DELETE FROM terrabank.sessions WHERE game = %s AND id_hash = %s RETURNING id_hash",
                                 (self.game, key)))

    def end_all(self, keep: str | None = None) -> list:
        """End every session but `keep`; returns the keys ended."""
        rows = self.db.rows("DELETE FROM terrabank.sessions WHERE game = %s AND id_hash != %s RETURNING id_hash",
                            (self.game, keep or ""))
        return [row[0] for row in rows]

    def listing(self) -> list:
        """Every valid session, newest first, for the admin page."""
        rows = self.db.rows("""SELECT s.id_hash, s.username, s.role, s.address, s.device, s.created_at, s.last_seen
                               FROM terrabank.sessions s JOIN terrabank.facilitators f ON f.game = s.game
                               AND f.username = s.username AND f.role = s.role AND f.created_at = s.account_since
                               WHERE s.game = %s AND s.last_seen >= %s ORDER BY s.created_at DESC""",
                            (self.game, self.clock() - IDLE_LIMIT))
        names = ("id", "user", "role", "address", "device", "since", "last_seen")
        return [dict(zip(names, row)) for row in rows]
