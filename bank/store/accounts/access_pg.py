"""Facilitator accounts, team tokens and the cookie key in PostgreSQL, keyed by the game's number.

The same rules as the SQLite file (access.py's AccessRules); the rows sit beside the
game's journal, so every `terrabank serve` of the game, on any host, checks the same
passwords and links, and signs cookies with the same key. A replaced account ends its
sessions in the same transaction, and every process's session check joins on the
account's row, so the old password logs nobody in anywhere from that moment on.
"""

from __future__ import annotations

import secrets

from bank.store.accounts.access import AccessRules
from bank.store.accounts.access_pg_connections import GameConnections
from bank.store.accounts.device_reports import PostgresDeviceReports
from bank.store.accounts.lockout_pg import PostgresLockout
from bank.store.accounts.sessions_pg import PostgresSessions
from bank.store.accounts.paper_copies import PostgresPaperCopies
from bank.store.accounts.witness_reports import PostgresWitnessReports


class PostgresAccess(AccessRules):
    """Accounts and team tokens of game `name` in the database at `url`, safe to share between threads."""

    def __init__(self, url: str, name: str, hash_method: str = "scrypt"):
        self.hash_method = hash_method  # tests use a cheap method; real accounts use scrypt
        self.db = GameConnections(url, name)
        self.game = self.db.game

    def _put_user(self, username: str, password_hash: str, role: str, at: float) -> bool:
        """Write the account unless it would demote the last lead (False then, nothing written)."""
        with self.db.transaction() as conn:  # the account and the end of its sessions, together
            # The lead rows are locked first, as in remove_user: two leads demoting each other from
            # two processes wait in turn, and the second counts the leads the first one left.
            leads = [u for (u,) in conn.execute("SELECT username FROM terrabank.facilitators WHERE game = %s "
                                                 "AND role = 'lead' FOR UPDATE", (self.game,)).fetchall()]
            if role != "lead" and leads == [username]:
                return False
            conn.execute("""INSERT INTO terrabank.facilitators(game, username, password_hash, role, created_at)
                            VALUES (%s, %s, %s, %s, %s) ON CONFLICT (game, username) DO UPDATE SET
                            password_hash = EXCLUDED.password_hash, role = EXCLUDED.role,
                            created_at = EXCLUDED.created_at""", (self.game, username, password_hash, role, at))
            conn.execute("DELETE FROM terrabank.sessions WHERE game = %s AND username = %s", (self.game, username))
        return True

    def _password(self, username: str) -> tuple | None:
        rows = self.db.rows("SELECT password_hash, role FROM terrabank.facilitators WHERE game = %s AND username = %s",
                            (self.game, username))
        return rows[0] if rows else None

    def remove_user(self, username: str) -> bool:
        """Delete an account and end its sessions; never the last lead (False if nothing was deleted)."""
        with self.db.transaction() as conn:
            # The lead rows are locked first: two leads deleting each other from two processes at
            # once wait in turn, and the second one counts the leads the first one left.
            conn.execute("SELECT 1 FROM terrabank.facilitators WHERE game = %s AND role = 'lead' FOR UPDATE",
                         (self.game,))
            gone = conn.execute("""DELETE FROM terrabank.facilitators WHERE game = %s AND username = %s AND
                                   (role != 'lead' OR (SELECT COUNT(*) FROM terrabank.facilitators
                                                       WHERE game = %s AND role = 'lead') > 1) RETURNING username""",
                                (self.game, username, self.game)).fetchall()
            if gone:
                conn.execute("DELETE FROM terrabank.sessions WHERE game = %s AND username = %s", (self.game, username))
        return bool(gone)

    def since(self, username: str) -> float | None:
        """When the account was last made or replaced (None: no such account), read before its
        password is checked, so a log-in checked against a replaced password opens no session."""
        rows = self.db.rows("SELECT created_at FROM terrabank.facilitators WHERE game = %s AND username = %s",
                            (self.game, username))
        return rows[0][0] if rows else None

    def users(self) -> list:
        rows = self.db.rows("SELECT username, role FROM terrabank.facilitators WHERE game = %s ORDER BY username",
                            (self.game,))
        return [{"username": u, "role": r} for u, r in rows]

    def _add_tokens(self, tokens, at: float) -> None:
        with self.db.transaction() as conn:
            for team, token in tokens:  # a team that has one (made by another process too) keeps it
                conn.execute("""INSERT INTO terrabank.team_tokens(game, team, token, rotated_at) VALUES (%s, %s, %s, %s)
                                ON CONFLICT (game, team) DO NOTHING""", (self.game, team, token, at))

    def team_tokens(self) -> dict:
        return dict(self.db.rows("SELECT team, token FROM terrabank.team_tokens WHERE game = %s ORDER BY added",
                                 (self.game,)))

    def team_for(self, token: str) -> str | None:
        rows = self.db.rows("SELECT team FROM terrabank.team_tokens WHERE game = %s AND token = %s", (self.game, token))
        return rows[0][0] if rows else None

    def _set_token(self, team: str, token: str, at: float) -> None:
        self.db.rows("UPDATE terrabank.team_tokens SET token = %s, rotated_at = %s WHERE game = %s AND team = %s",
                     (token, at, self.game, team))

    def _setting(self, name: str) -> str | None:  # AccessRules.setting
        rows = self.db.rows("SELECT value FROM terrabank.settings WHERE game = %s AND name = %s", (self.game, name))
        return rows[0][0] if rows else None

    def _put_setting(self, name: str, value: str, at: float) -> None:
        self.db.rows("""INSERT INTO terrabank.settings(game, name, value, set_at) VALUES (%s, %s, %s, %s)
                        ON CONFLICT (game, name) DO UPDATE SET value = EXCLUDED.value, set_at = EXCLUDED.set_at""",
                     (self.game, name, value, at))

    def _display_key(self) -> str | None:  # the big screen's key (AccessRules.display_key)
        rows = self.db.rows("SELECT key FROM terrabank.display_keys WHERE game = %s", (self.game,))
        return rows[0][0] if rows else None

    def _put_display_key(self, key: str, at: float, replace: bool) -> None:
        then = "DO UPDATE SET key = EXCLUDED.key, rotated_at = EXCLUDED.rotated_at" if replace else "DO NOTHING"
        self.db.rows(f"""INSERT INTO terrabank.display_keys(game, key, rotated_at) VALUES (%s, %s, %s)
                         ON CONFLICT (game) {then}""", (self.game, key, at))

    def shared_secret(self) -> str:
        """The game's cookie key, made by the first process that asks; every later one reads the same."""
        with self.db.transaction() as conn:
            conn.execute("INSERT INTO terrabank.cookie_keys(game, key) VALUES (%s, %s) ON CONFLICT (game) DO NOTHING",
                         (self.game, secrets.token_hex(32)))
            return conn.execute("SELECT key FROM terrabank.cookie_keys WHERE game = %s", (self.game,)).fetchone()[0]

    def sessions(self, clock=None) -> PostgresSessions:
        """The log-in sessions of this game, on the same connections."""
        return PostgresSessions(self.db, clock=clock)

    def lockout(self, clock=None) -> PostgresLockout:
        """The failed log-ins of this game, counted for every process together."""
        return PostgresLockout(self.db, clock=clock)

    def device_reports(self) -> PostgresDeviceReports:
        """What each device's outbox holds, for every process of the game."""
        return PostgresDeviceReports(self.db)

    def witness_reports(self) -> PostgresWitnessReports:
        """The pages' reports of a chain head the bank does not hold, for every process of the game."""
        return PostgresWitnessReports(self.db)

    def paper_copies(self) -> PostgresPaperCopies:
        """Which ledger line stood for a move booked from the other team's sheet, for every process of the game."""
        return PostgresPaperCopies(self.db)

    def close(self) -> None:
        self.db.close()


def carry_over(url: str, old_game: int, name: str, teams, *, links: bool) -> tuple[int, int]:
    """After `init --force` of game `name` in PostgreSQL: copy the facilitator accounts (and, if `links`,
    the links of `teams`) of the replaced game, numbered `old_game`, to the new one, as
    gamefile.carry_over does for a file; the old game, kept under a dated name, keeps its own.
    Returns (accounts, links) copied."""
    new = GameConnections(url, name)
    try:
        with new.transaction() as conn:  # all or nothing: no game with half its accounts
            accounts = conn.execute("""INSERT INTO terrabank.facilitators(game, username, password_hash, role, created_at)
                                       SELECT %s, username, password_hash, role, created_at FROM terrabank.facilitators
                                       WHERE game = %s ON CONFLICT DO NOTHING""", (new.game, old_game)).rowcount
            tokens = conn.execute("""INSERT INTO terrabank.team_tokens(game, team, token, rotated_at)
                                     SELECT %s, team, token, rotated_at FROM terrabank.team_tokens
                                     WHERE game = %s AND team = ANY(%s) ORDER BY added ON CONFLICT DO NOTHING""",
                                  (new.game, old_game, list(teams) if links else [])).rowcount
        return accounts, tokens
    finally:
        new.close()
