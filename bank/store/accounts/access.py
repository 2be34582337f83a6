"""Facilitator accounts and team tokens, kept in the game's SQLite file beside the journal,
or in PostgreSQL beside the game's journal there (access_pg.py; `open_access` in this package's __init__ chooses).

These rows are access data, not the ledger: a password change or a token
rotation updates them, and they are not part of the replayed journal.
"""

from __future__ import annotations

import functools
import json
import secrets
import sqlite3
import threading
import time
from contextlib import nullcontext
from pathlib import Path

from werkzeug.security import check_password_hash, generate_password_hash

from bank.errors import BankError
from bank.store.journal import storage_errors
from bank.store.sqlite_file import traced
from bank.store.accounts import device_reports, paper_copies, witness_reports
from bank.store.sqlite_turn import turn_for
from bank.store.accounts.lockout import Lockout
from bank.store.accounts.sessions import Sessions, bump, end_user_sessions, generation, generation_file

# The facilitators' roles; what each may send is the web layer's table (bank/web/access/permissions.py).
ROLES = ("lead", "banker", "referee")

_SCHEMA = """
CREATE TABLE IF NOT EXISTS facilitators (
    username TEXT PRIMARY KEY, password_hash TEXT NOT NULL, role TEXT NOT NULL, created_at REAL NOT NULL);
CREATE TABLE IF NOT EXISTS team_tokens (team TEXT PRIMARY KEY, token TEXT NOT NULL UNIQUE, rotated_at REAL NOT NULL);
CREATE TABLE IF NOT EXISTS display_key (id INTEGER PRIMARY KEY CHECK (id = 1), key TEXT NOT NULL, rotated_at REAL NOT NULL);
CREATE TABLE IF NOT EXISTS settings (name TEXT PRIMARY KEY, value TEXT NOT NULL, set_at REAL NOT NULL);
"""


# Team link tokens are typed from a printed card: no 0/o, 1/l/i, no case. 20 of these
# 31 characters are 99 bits, as many as the 96 of token_urlsafe(12) before; old tokens still work.
TOKEN_ALPHABET = "abcdefghjkmnpqrstuvwxyz23456789"


def team_token() -> str:
    """A new secret for a team's link, from an alphabet without look-alikes."""
    return "".join(secrets.choice(TOKEN_ALPHABET) for _ in range(20))


class AccessRules:
    """What the accounts and team tokens do, whichever store keeps them: the SQLite file (Access, below)
    or PostgreSQL (access_pg.PostgresAccess). A store adds the rows' reads and writes (_put_user, which
    never demotes the last lead, _password, _add_tokens, _set_token) and the rest of the interface: remove_user, since, users,
    team_tokens, team_for, sessions(clock), lockout(clock), device_reports(),
    witness_reports(), paper_copies(), close."""

    hash_method = "scrypt"

    def add_user(self, username: str, password: str, role: str) -> None:
        """Create or replace a facilitator account; its sessions end (the old password or role logs nobody in)."""
        username = username.strip()
        if not username or len(username) > 40:
            raise BankError("bad_username", "a username is 1 to 40 characters")
        if role not in ROLES:
            raise BankError("bad_role", f"role must be one of {', '.join(ROLES)}, got {role!r}")
        if len(password) < 8:
            raise BankError("weak_password", "a password needs at least 8 characters")
        if not self._put_user(username, generate_password_hash(password, method=self.hash_method), role, time.time()):
            raise BankError("last_lead", f"{username} is the only lead account; make another lead first")

    def check(self, username: str, password: str) -> str | None:
        """The user's role if the password is right, else None."""
        found = self._password(username)
        # Exactly one hash on every path, with the accounts' own method for an unknown
        # username: a wrong username must take as long as a wrong password.
        stored, role = found or (_dummy_hash(self.hash_method), None)
        matches = check_password_hash(stored, password)
        return role if matches else None

    def ensure_team_tokens(self, teams) -> dict:
        """Give every team a secret token the first time; keep existing ones."""
        self._add_tokens([(team, team_token()) for team in teams], time.time())
        return self.team_tokens()

    def rotate(self, team: str) -> str:
        """A new secret for a team whose link leaked; the old link stops working at once."""
        token = team_token()
        self._set_token(team, token, time.time())
        self._links_replaced()
        return token

    def display_key(self) -> str:
        """The big screen's key: its link is /display?key=<this>; made on first use."""
        key = self._display_key()
        if key is None:
            self._put_display_key(secrets.token_urlsafe(12), time.time(), replace=False)
            key = self._display_key()
        return key

    def rotate_display_key(self) -> str:
        """A new key for a big-screen link that leaked; the old link stops working at once."""
        key = secrets.token_urlsafe(12)
        self._put_display_key(key, time.time(), replace=True)
        self._links_replaced()
        return key

    def links_generation(self):
        """A stamp that changes whenever a team link or the big screen's key is replaced, by this process or
        another: the server keeps the links in memory and reads them again only then, not on a timer.
        None here: the store keeps no such stamp (PostgreSQL: the other processes hear of a replacement on
        the game's queue, bank/web/push/peers.py; one process alone forgets its copy when it replaces one)."""
        return None

    def _links_replaced(self) -> None:
        """After a link or the key was replaced (committed): change `links_generation` for every process."""

    def setting(self, name: str, default: bool) -> bool:
        """A yes/no choice of the lead kept with the accounts (Trias games for visitors)."""
        value = self._setting(name)
        return default if value is None else value == "1"

    def set_setting(self, name: str, value: bool) -> None:
        self._put_setting(name, "1" if value else "0", time.time())

    def remember_team_names(self, teams) -> None:
        """Keep every name the game's teams were opened with (`teams`: config.teams): a reload renaming a team
        twice leaves sheets printed under the name in between, which the paper re-entry reads back (paper_syntax.py).
        Only names not kept yet are written (a worker's start writes nothing, mostly)."""
        kept = self.team_names()
        merged = {team.id: list(dict.fromkeys(kept.get(team.id, []) + [t for t in team.label.values() if isinstance(t, str)]))
                  for team in teams.values()}
        if any(merged[t] != kept.get(t) for t in merged):
            self._put_setting("team_names", json.dumps({**kept, **merged}, ensure_ascii=False), time.time())

    def team_names(self) -> dict:
        """team id -> every name it was opened with, oldest first (remember_team_names)."""
        try:
            names = json.loads(self._setting("team_names") or "{}")
        except ValueError:
            return {}
        return names if isinstance(names, dict) else {}

    def shared_secret(self) -> str | None:
        """The key that signs cookies when the store holds it (every process of the game signs alike);
        None: the file beside the game (create_app's _secret_key)."""
        return None


_WRITES = {"INSERT", "UPDATE", "DELETE", "REPLAC"}  # a statement's first word, cut to 6 letters


class SharedConnection(sqlite3.Connection):
    """The accounts' connection, shared by the server's threads (and by the sessions, sessions.py).

    Every statement runs to its end under one lock. Without it, a write could start on this
    connection while another thread's read was still open on it, inside that read's snapshot:
    SQLite refuses the write once the snapshot is out of date (SQLITE_BUSY_SNAPSHOT), and a
    log-in, a log-out or a link replacement answered 503 now and then under load.
    """

    turn = nullcontext()  # the file's write turn (bank/store/sqlite_turn.py), set by Access once opened

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.lock = threading.RLock()

    def rows(self, query: str, params=()) -> list:
        """One statement, run to its end: its rows. A write waits in line with the journal's (the turn
        first, then this connection's lock: a reader holding the lock never waits for the turn)."""
        if query.lstrip()[:6].upper() in _WRITES:
            with self.turn, self.lock:
                return self.execute(query, params).fetchall()
        with self.lock:
            return self.execute(query, params).fetchall()


class Access(AccessRules):
    """Accounts and team tokens in one SQLite file, safe to share between threads.

    Its `links_generation` is the game's session generation (sessions.py `generation`: one stat(), no
    statement), bumped by a replaced link or key as by an ended session: every process of the game, and
    the server beside a terminal's command, learns of it at its next request."""

    def __init__(self, path, hash_method: str = "scrypt"):
        self.hash_method = hash_method  # tests use a cheap method; real accounts use scrypt
        self.path = Path(path)
        with storage_errors(self.path):
            self.conn = traced(sqlite3.connect(str(self.path), check_same_thread=False, isolation_level=None,
                                               timeout=5, factory=SharedConnection))
            self.conn.execute("PRAGMA busy_timeout=5000")
            self.conn.turn = turn_for(self.path)
            with self.conn.turn:  # a new file's tables are a write
                self.conn.executescript(_SCHEMA + device_reports.SCHEMA + witness_reports.SCHEMA + paper_copies.SCHEMA)
        self._stamp = generation_file(self.path)  # resolved once: realpath costs an lstat per folder

    def links_generation(self):
        return generation(self._stamp)

    def _links_replaced(self) -> None:
        with storage_errors(self.path):
            bump(self.path)  # after the row's write committed (autocommit): a process reading it now finds the new one

    def _sql(self, query: str, params=()) -> list:
        """Run one statement; a full, read-only or damaged file is a StorageError with a sentence, not a 500."""
        with storage_errors(self.path):
            return self.conn.rows(query, params)

    def _put_user(self, username: str, password_hash: str, role: str, at: float) -> bool:
        """Write the account unless it would demote the last lead (False then, nothing written)."""
        # One statement, as remove_user: two leads demoting each other at once (or one deleting the
        # other) cannot both see two leads and leave the game with none.
        written = self._sql("""INSERT OR REPLACE INTO facilitators SELECT ?, ?, ?, ? WHERE ? = 'lead'
                               OR COALESCE((SELECT role FROM facilitators WHERE username = ?), '') != 'lead'
                               OR (SELECT COUNT(*) FROM facilitators WHERE role = 'lead') > 1 RETURNING username""",
                            (username, password_hash, role, at, role, username))
        if written:
            with storage_errors(self.path):  # the old password or role logs nobody in any more (sessions.py)
                end_user_sessions(self.conn, username)
        return bool(written)

    def _password(self, username: str) -> tuple | None:
        rows = self._sql("SELECT password_hash, role FROM facilitators WHERE username = ?", (username,))
        return rows[0] if rows else None

    def remove_user(self, username: str) -> bool:
        """Delete an account and end its sessions; never the last lead (False if nothing was deleted)."""
        # One statement: two leads deleting each other at once cannot leave the game without a lead.
        gone = self._sql("""DELETE FROM facilitators WHERE username = ? AND (role != 'lead'
                            OR (SELECT COUNT(*) FROM facilitators WHERE role = 'lead') > 1) RETURNING username""",
                         (username,))
        if gone:
            with storage_errors(self.path):
                end_user_sessions(self.conn, username)
        return bool(gone)

    def since(self, username: str) -> float | None:
        """When the account was last made or replaced (None: no such account), read before its
        password is checked, so a log-in checked against a replaced password opens no session."""
        rows = self._sql("SELECT created_at FROM facilitators WHERE username = ?", (username,))
        return rows[0][0] if rows else None

    def users(self) -> list:
        return [{"username": u, "role": r} for u, r in self._sql("SELECT username, role FROM facilitators ORDER BY username")]

    def _add_tokens(self, tokens, at: float) -> None:
        for team, token in tokens:
            self._sql("INSERT OR IGNORE INTO team_tokens VALUES (?, ?, ?)", (team, token, at))

    def team_tokens(self) -> dict:
        return dict(self._sql("SELECT team, token FROM team_tokens ORDER BY rowid"))

    def team_for(self, token: str) -> str | None:
        rows = self._sql("SELECT team FROM team_tokens WHERE token = ?", (token,))
        return rows[0][0] if rows else None

    def _set_token(self, team: str, token: str, at: float) -> None:
        self._sql("UPDATE team_tokens SET token = ?, rotated_at = ? WHERE team = ?", (token, at, team))

    def _setting(self, name: str) -> str | None:
        rows = self._sql("SELECT value FROM settings WHERE name = ?", (name,))
        return rows[0][0] if rows else None

    def _put_setting(self, name: str, value: str, at: float) -> None:
        self._sql("INSERT OR REPLACE INTO settings VALUES (?, ?, ?)", (name, value, at))

    def _display_key(self) -> str | None:
        rows = self._sql("SELECT key FROM display_key WHERE id = 1")
        return rows[0][0] if rows else None

    def _put_display_key(self, key: str, at: float, replace: bool) -> None:
        self._sql(f"INSERT OR {'REPLACE' if replace else 'IGNORE'} INTO display_key VALUES (1, ?, ?)", (key, at))

    def sessions(self, clock=None) -> Sessions:
        """The log-in sessions kept beside these accounts, on the same connection (sessions.py)."""
        return Sessions(self.conn, self.path, clock=clock)

    def lockout(self, clock=None) -> Lockout:
        """The failed log-ins counted in the same file (lockout.py)."""
        return Lockout(self.path, clock=clock)

    def device_reports(self) -> device_reports.DeviceReports:
        """What each device's outbox holds, in the same file (device_reports.py)."""
        return device_reports.DeviceReports(self._sql)

    def witness_reports(self) -> witness_reports.WitnessReports:
        """The pages' reports of a chain head the bank does not hold, in the same file (witness_reports.py)."""
        return witness_reports.WitnessReports(self._sql)

    def paper_copies(self) -> paper_copies.PaperCopies:
        """Which ledger line stood for a move booked from the other team's sheet, in the same file (paper_copies.py)."""
        return paper_copies.PaperCopies(self._sql)

    def close(self) -> None:
        # Under the statements' lock: closing finalizes the connection's cached statements, and one
        # another thread is running then is freed under it (a segmentation fault of the whole process,
        # seen when a test closed the accounts under its server's threads). A statement after this one
        # is refused with a sentence (storage_errors: "closed database").
        with self.conn.lock:
            self.conn.close()


@functools.cache
def _dummy_hash(method: str) -> str:
    """Made on the first unknown username, not at import: a scrypt hash costs about 0.1 s of every start."""
    return generate_password_hash(secrets.token_urlsafe(16), method=method)
