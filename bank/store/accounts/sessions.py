"""Facilitator log-in sessions kept on the server: one row per logged-in device, in the game's SQLite file
(or in PostgreSQL with the game's journal: sessions_pg.py).

The signed cookie holds only a random session id; the row says who it is. A row
is valid while the account it was opened for exists unchanged (same role, not
replaced since: `terrabank user` gives every replaced account a new created_at),
so logout, a password or role change and "log out everywhere" end a session at
once, also when the CLI changes the account from another process. Only a hash
of the id is stored: a copied game file does not hand out live sessions.

A valid session is remembered by the process for up to SEEN_EVERY seconds (the row's look-up
was a statement on every command), and forgotten at once when any session ends or any account changes,
in this process or another: each ending bumps the game's session generation, a small file beside the
game whose size grows by one byte per ending (`generation`), read with one stat() per request.
"""

from __future__ import annotations

import hashlib
import os
import re
import secrets
import sqlite3
import time
from dataclasses import dataclass
from pathlib import Path

from bank.store.journal import StorageError, storage_errors
from bank.store.sqlite_file import sessions_generation_file

SCHEMA = """
CREATE TABLE IF NOT EXISTS sessions (
    id_hash TEXT PRIMARY KEY, username TEXT NOT NULL, role TEXT NOT NULL, account_since REAL NOT NULL,
    created_at REAL NOT NULL, last_seen REAL NOT NULL, address TEXT NOT NULL, device TEXT NOT NULL);
"""
# A tablet left a whole day without a request logs in again; a game lasts a day at most.
IDLE_LIMIT = 24 * 3600
# last_seen is written at most once a minute per session, not on every request.
SEEN_EVERY = 60
# Valid: the row exists and its account is the one it was opened for.
_VALID = """SELECT s.id_hash, s.username, s.role, s.last_seen FROM sessions s
    JOIN facilitators f ON f.username = s.username AND f.role = s.role AND f.created_at = s.account_since"""


@dataclass(frozen=True)
class Login:
    """A valid session: its row key (the hash), the facilitator and the role."""

    key: str
    user: str
    role: str


def digest(session_id: str) -> str:
    """The row key of a session id (sha256): the id itself is never stored."""
    return hashlib.sha256(session_id.encode()).hexdigest()


def generation_file(path) -> str:
    """The file whose stat() is the session generation of the game at `path` (see `bump`)."""
    return sessions_generation_file(path)  # named beside the game's other companions, removed and moved with it


def generation(stamp: str) -> tuple | None:
    """The game's session generation, read from its `generation_file`: it changes whenever a session ends
    or an account changes."""
    try:
        found = os.stat(stamp)
    except FileNotFoundError:
        return None
    return found.st_ino, found.st_size, found.st_mtime_ns


def bump(path) -> None:
    """After a session ended (committed): every process forgets the sessions it remembered.

    One byte appended: the size only grows, so two endings never give the same generation (a coarse
    file time alone could). Owner-only, as the game file; nothing secret in it.
    """
    fd = os.open(generation_file(path), os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
    try:
        os.write(fd, b".")
    finally:
        os.close(fd)


def end_user_sessions(conn: sqlite3.Connection, username: str) -> None:
    """End every session of a user: Access calls it when it replaces the account (also from the CLI)."""
    with conn.turn, conn.lock:  # access.SharedConnection: in line with the file's writers, one statement at a time
        conn.executescript(SCHEMA)
        conn.execute("DELETE FROM sessions WHERE username = ?", (username,))
        path = next(row[2] for row in conn.execute("PRAGMA database_list") if row[1] == "main")
    bump(path)  # after the DELETE committed (autocommit): a process reading the row now finds it gone


class SessionRules:
    """What a session store does, whichever keeps the rows: the SQLite file (Sessions, below) or
    PostgreSQL (sessions_pg.PostgresSessions). A store adds _open, _row, _touch, valid, end,
    end_all and listing; `clock` is its time."""

    clock = staticmethod(time.time)

    def endings(self) -> tuple | None:
        """A stamp that changes whenever a session may have ended, here or in another process (the
        socket sweep reads the rows only then); None: the store keeps none, read the rows each time."""
        return None

    def start(self, username: str, role: str, address: str, agent: str, since: float | None) -> str | None:
        """Open a session for an account just checked; the new session id, or None if the account changed meanwhile.

        `since` is the account's created_at read before its password was checked: a replace
        during the check (a password change) makes it differ, and no session is opened.
        """
        session_id = secrets.token_urlsafe(32)
        made = self._open(digest(session_id), self.clock(), address[:45], device(agent), username, role, since)
        return session_id if made else None

    def check(self, session_id: str) -> Login | None:
        """The session's login if it is still valid, else None (an idle one is ended here)."""
        if not isinstance(session_id, str) or not session_id:
            return None
        return self._looked_up(digest(session_id))[0]

    def _looked_up(self, id_hash: str) -> tuple[Login | None, float]:
        """(the session's login or None, its last_seen as it now stands) from its row."""
        row = self._row(id_hash)
        if row is None:
            return None, 0.0
        key, user, role, seen = row
        now = self.clock()
        if now - seen > IDLE_LIMIT:
            self.end(key)
            return None, 0.0
        if now - seen > SEEN_EVERY:
            try:
                self._touch(key, now)
                seen = now
            except StorageError:  # a full or read-only disk: the bank still shows its pages; the time can wait
                pass
        return Login(key, user, role), seen


class Sessions(SessionRules):
    """The sessions table, on the accounts' connection (Access.conn: autocommit, shared between threads
    under its lock: access.SharedConnection).

    Sharing it means no second handle on the game file to leave open: closing the accounts closes this.
    """

    def __init__(self, conn: sqlite3.Connection, path, clock=None):
        # The app passes the bank's time line (bank/services/timeline.py); the system clock otherwise.
        self.conn, self.path, self.clock = conn, Path(path), clock or time.time
        with storage_errors(self.path), self.conn.lock:
            self.conn.executescript(SCHEMA)
        # id hash -> (login, its last_seen, the generation read before its row): one tuple per entry,
        # replaced whole, so threads never see half an entry.
        self._known: dict[str, tuple[Login, float, tuple | None]] = {}
        self._stamp = generation_file(self.path)  # resolved once: realpath costs an lstat per folder

    def check(self, session_id: str) -> Login | None:
        """As SessionRules.check, without the row's look-up for a session checked less than SEEN_EVERY
        seconds ago when no session has ended and no account changed since (the generation)."""
        if not isinstance(session_id, str) or not session_id:
            return None
        id_hash = digest(session_id)
        now_generation = generation(self._stamp)  # read BEFORE the row: an ending after it changes it
        known = self._known.get(id_hash)
        if known is not None and known[2] == now_generation and 0 <= self.clock() - known[1] <= SEEN_EVERY:
            return known[0]
        login, seen = self._looked_up(id_hash)
        if login is None:
            self._known.pop(id_hash, None)
        else:
            if len(self._known) >= 1000:  # devices that left: start again rather than grow
                self._known.clear()
            self._known[id_hash] = (login, seen, now_generation)
        return login

    def endings(self) -> tuple | None:
        return generation(self._stamp)  # every ending bumps it (end, end_all, an account changed: end_user_sessions)

    def _ended(self, keys) -> None:
        """After sessions ended here: forget them, and tell every process (bump)."""
        for key in keys:
            self._known.pop(key, None)
        with storage_errors(self.path):
            bump(self.path)

    def _sql(self, query: str, params=()) -> list:
        """Run one statement; a full, read-only or damaged file is a StorageError with a sentence, not a 500."""
        with storage_errors(self.path):
            return self.conn.rows(query, params)  # under the shared connection's lock (access.SharedConnection)

    def _open(self, id_hash: str, now: float, address: str, device_name: str, username: str, role: str,
              since: float | None) -> bool:
        self._sql("DELETE FROM sessions WHERE last_seen < ?", (now - IDLE_LIMIT,))
        return bool(self._sql("""INSERT INTO sessions SELECT ?, username, role, created_at, ?, ?, ?, ?
                                 FROM facilitators WHERE username = ? AND role = ? AND created_at = ? RETURNING id_hash""",
                              (id_hash, now, now, address, device_name, username, role, since)))

    def _row(self, id_hash: str) -> tuple | None:
        rows = self._sql(_VALID + " WHERE s.id_hash = ?", (id_hash,))
        return rows[0] if rows else None

    def _touch(self, key: str, now: float) -> None:
        self._sql("UPDATE sessions SET last_seen = ? WHERE id_hash = ?", (now, key))

    def valid(self, keys) -> set:
        """Which of these row keys are still valid sessions (for the socket sweep)."""
        keys = list(keys)
        if not keys:
            return set()
        marks = ",".join("?" * len(keys))
        rows = self._sql(_VALID + f" WHERE s.id_hash IN ({marks}) AND s.last_seen >= ?",
                         (*keys, self.clock() - IDLE_LIMIT))
        return {row[0] for row in rows}

    def end(self, key: str) -> bool:
        """End one session by its row key; False if there was none."""
        ended = bool(self._sql("DELETE FROM sessions WHERE id_hash = ? RETURNING id_hash", (key,)))
        self._ended([key])
        return ended

    def end_all(self, keep: str | None = None) -> list:
        """End every session but `keep`; returns the keys ended."""
        ended = [row[0] for row in self._sql("DELETE FROM sessions WHERE id_hash != ? RETURNING id_hash", (keep or "",))]
        self._ended(ended)
        return ended

    def listing(self) -> list:
        """Every valid session, newest first, for the admin page."""
        rows = self._sql("""SELECT s.id_hash, s.username, s.role, s.address, s.device, s.created_at, s.last_seen
                            FROM sessions s JOIN facilitators f ON f.username = s.username AND f.role = s.role
                            AND f.created_at = s.account_since WHERE s.last_seen >= ? ORDER BY s.created_at DESC""",
                         (self.clock() - IDLE_LIMIT,))
        names = ("id", "user", "role", "address", "device", "since", "last_seen")
        return [dict(zip(names, row)) for row in rows]


_BROWSERS = (("Edg", "Edge"), ("Firefox", "Firefox"), ("SamsungBrowser", "Samsung"), ("Chrome", "Chrome"),
             ("Safari", "Safari"))
_SYSTEMS = (("Android", "Android"), ("iPhone", "iPhone"), ("iPad", "iPad"), ("Windows", "Windows"),
            ("Mac OS X", "Mac"), ("CrOS", "ChromeOS"), ("Linux", "Linux"))


def device(agent: str) -> str:
    """A short name for a User-Agent ("Chrome, Android"), so the lead can tell devices apart; no word of
    either language in it, since it is stored at log-in and shown on the French and English admin pages."""
    agent = agent or ""
    browser = next((name for key, name in _BROWSERS if key in agent), None)
    system = next((name for key, name in _SYSTEMS if key in agent), None)
    if browser and system:
        return f"{browser}, {system}"
    return browser or system or re.sub(r"[^\w./ -]", "", agent)[:40] or "?"
