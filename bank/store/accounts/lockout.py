"""The log-in guard: failed log-ins counted in the game's SQLite file (or in PostgreSQL with the game's
journal, shared by every process of the game: lockout_pg.py), and a bound on password hashes at once.

An attempt is counted as a failure before its password is hashed, in one
transaction with the check of the lock, and given back when it succeeds: N log-ins
sent at once for one username from one device get at most MAX_FAILURES hashes between
them, and from any number of devices at most ACCOUNT_MAX_FAILURES. The
counts live beside the journal (not in it), so a restart does not reset them.
"""

from __future__ import annotations

import sqlite3
import threading
import time
from contextlib import contextmanager, nullcontext
from pathlib import Path

from bank.store.journal import storage_errors
from bank.store.sqlite_file import traced
from bank.store.sqlite_turn import turn_for

MAX_FAILURES = 5
LOCK_SECONDS = 300
# Failures are also counted per client address under this prefix, so rotating
# usernames or spraying one password over every account from one machine is
# stopped too. Generous: a Raspberry Pi access point gives each device its own
# address, so only the attacker's device is locked.
# Usernames are counted under their own prefix, so a username typed as
# "client:<address>" cannot lock out somebody else's device.
CLIENT, USER = "client:", "user:"
CLIENT_MAX_FAILURES = 20
# MAX_FAILURES is per username *and* device (user_key): strangers guessing "lead" from their
# phones lock only their phones, and the real lead on a device that has not failed still
# gets in. Each account also has a cap over all devices (ACCOUNT), so guesses spread over
# many addresses stay bounded: 20 per account per LOCK_SECONDS, and 5 per device.
ACCOUNT = "account:"
ACCOUNT_MAX_FAILURES = 20
# Each scrypt hash holds about 32 MB (werkzeug's n=2**15, r=8) while it runs: 60
# log-ins at once would take a server of ~50 MB past 1.5 GB. Two at a time cost about
# 64 MB, safe on a 2 GB Raspberry Pi, and use both cores of a small machine. A device the
# account logged in on before hashes in its account's lane beside them (bank/web/access/hash_lanes.py):
# one more hash per account logging in on a trusted device at that moment (the lead's few accounts).
HASH_SLOTS = 2
# How long a log-in waits for a free slot before it is refused with 429 "busy".
HASH_WAIT_SECONDS = 3.0

_SCHEMA = "CREATE TABLE IF NOT EXISTS login_failures (key TEXT PRIMARY KEY, count INTEGER NOT NULL, since REAL NOT NULL)"


def user_key(username: str, address: str) -> str:
    """The count of one username's failures from one device (the address first: a username cannot forge it)."""
    return f"{USER}{address} {username}"


def wait_text(seconds: int) -> str:
    """A lock's remaining time as a person reads it: "4 min 32 s", or "45 s" under a minute."""
    minutes, seconds = divmod(max(0, int(seconds)), 60)
    return f"{minutes} min {seconds} s" if minutes else f"{seconds} s"


class Busy(Exception):
    """Every hash slot stayed taken for HASH_WAIT_SECONDS."""


class LoginGuard:
    """The rules of the lock, whichever store counts: the SQLite file (Lockout, below) or PostgreSQL
    (lockout_pg.PostgresLockout). A store adds _transaction(): its failure counts (get, put, give_back,
    clear, keys already lower-case) in one transaction that the other processes' transactions wait for."""

    def __init__(self, max_failures: int = MAX_FAILURES, lock_seconds: int = LOCK_SECONDS,
                 hash_slots: int = HASH_SLOTS, hash_wait: float = HASH_WAIT_SECONDS, clock=None):
        self.max_failures, self.lock_seconds, self.hash_wait = max_failures, lock_seconds, hash_wait
        self.clock = clock or time.time  # the bank's time line in the app: a jump of the machine's clock moves no lock
        # Per process: what it bounds is this machine's memory.
        self._slots = threading.BoundedSemaphore(hash_slots)

    def _limit(self, key: str) -> int:
        if key.startswith(CLIENT):
            return CLIENT_MAX_FAILURES
        return ACCOUNT_MAX_FAILURES if key.startswith(ACCOUNT) else self.max_failures

    def _left(self, counts, key: str, now: float) -> int:
        count, since = counts.get(key.lower()) or (0, 0.0)
        if count >= self._limit(key) and now - since < self.lock_seconds:
            return int(self.lock_seconds - (now - since)) + 1
        return 0

    def _count(self, counts, key: str, now: float) -> None:
        count = (counts.get(key.lower()) or (0, 0.0))[0]
        if count >= self._limit(key):
            count = 0  # the lock expired: a new series starts
        counts.put(key.lower(), count + 1, now)

    def seconds_left(self, key: str, now: float | None = None) -> int:
        """Seconds until `key` may try again; 0 if it is not locked."""
        with self._transaction() as counts:
            return self._left(counts, key, self.clock() if now is None else now)

    def failed(self, key: str, now: float | None = None) -> None:
        """Count one failed log-in for `key`."""
        with self._transaction() as counts:
            self._count(counts, key, self.clock() if now is None else now)

    def reserve(self, keys, now: float | None = None) -> int:
        """In one step: the seconds left of the longest lock among `keys`, or 0 and one failure counted on each."""
        now = self.clock() if now is None else now
        with self._transaction() as counts:
            wait = max((self._left(counts, key, now) for key in keys), default=0)
            if not wait:
                for key in keys:
                    self._count(counts, key, now)
            return wait

    def refund(self, keys) -> None:
        """Give back an attempt reserved but never checked (no hash slot came free)."""
        with self._transaction() as counts:
            for key in keys:
                counts.give_back(key.lower())

    def succeeded(self, *keys: str) -> None:
        """A good log-in clears the count of each key."""
        with self._transaction() as counts:
            counts.clear([key.lower() for key in keys])

    @contextmanager
    def hash_slot(self):
        """One of HASH_SLOTS places to hash a password in; Busy if none comes free within the wait."""
        if not self._slots.acquire(timeout=self.hash_wait):
            raise Busy()
        try:
            yield
        finally:
            self._slots.release()

    def close(self) -> None:
        """Nothing held between calls, unless a store says otherwise."""


class Lockout(LoginGuard):
    """Failed log-ins per key (user_key, ACCOUNT + name, CLIENT + address) in SQLite; too many in a row lock it for a while."""

    def __init__(self, path=":memory:", max_failures: int = MAX_FAILURES, lock_seconds: int = LOCK_SECONDS,
                 hash_slots: int = HASH_SLOTS, hash_wait: float = HASH_WAIT_SECONDS, clock=None):
        super().__init__(max_failures, lock_seconds, hash_slots, hash_wait, clock)
        self.path = Path(path)
        self._lock = threading.Lock()  # one transaction at a time in this process; BEGIN IMMEDIATE for the others
        # A file is opened per transaction, so no handle outlives the app (nothing to close, the disk can be
        # unmounted); ":memory:" (unit tests) keeps its one connection or it would forget everything.
        self._memory = self._open() if str(path) == ":memory:" else None
        # In line with the journal's and the accounts' writers of the same file (bank/store/sqlite_turn.py).
        self._turn = nullcontext() if self._memory is not None else turn_for(self.path)
        with self._connection() as conn:
            conn.execute(_SCHEMA)  # takes no write lock when the table exists

    def _open(self) -> sqlite3.Connection:
        conn = traced(sqlite3.connect(str(self.path), check_same_thread=False, isolation_level=None, timeout=5))
        try:
            conn.execute("PRAGMA busy_timeout=5000")
            # NORMAL, not the journal's FULL: a count survives a crash or a SIGKILL of the bank (WAL), and
            # only a power cut may forget the last few; no fsync per log-in keeps a burst of them quick.
            conn.execute("PRAGMA synchronous=NORMAL")
            return conn
        except BaseException:
            conn.close()
            raise

    @contextmanager
    def _connection(self):
        """The file opened for one use (or the in-memory one); a full, read-only or damaged file is a StorageError."""
        with storage_errors(self.path):
            conn = self._memory if self._memory is not None else self._open()
            try:
                yield conn
            finally:
                if conn is not self._memory:
                    conn.close()

    @contextmanager
    def _transaction(self):
        """BEGIN IMMEDIATE ... COMMIT under the thread lock: the check and the count are one step, also across processes."""
        # The file's turn (bank/store/sqlite_turn.py) around the transaction only: opening the file is no write.
        with self._lock, self._connection() as conn, self._turn:
            conn.execute("BEGIN IMMEDIATE")
            try:
                yield _FileCounts(conn)
                conn.execute("COMMIT")
            finally:
                if conn.in_transaction:  # an error, or a COMMIT refused by a full disk
                    conn.execute("ROLLBACK")

    def close(self) -> None:
        """Only an in-memory lockout holds a connection between calls."""
        if self._memory is not None:
            self._memory.close()


class _FileCounts:
    """The login_failures table of one SQLite transaction."""

    def __init__(self, conn: sqlite3.Connection):
        self.conn = conn

    def get(self, key: str) -> tuple | None:
        return self.conn.execute("SELECT count, since FROM login_failures WHERE key = ?", (key,)).fetchone()

    def put(self, key: str, count: int, since: float) -> None:
        self.conn.execute("INSERT OR REPLACE INTO login_failures VALUES (?, ?, ?)", (key, count, since))

    def give_back(self, key: str) -> None:
        self.conn.execute("UPDATE login_failures SET count = count - 1 WHERE key = ? AND count > 0", (key,))

    def clear(self, keys) -> None:
        self.conn.executemany("DELETE FROM login_failures WHERE key = ?", [(key,) for key in keys])
