"""SQLite storage for the bank: append-only journal rows, snapshots and meta. No rules."""

from __future__ import annotations

import json
import os
import sqlite3
import threading
from pathlib import Path
from typing import Iterator

from bank.store import chain, snapshots, sqlite_schema
from bank.store.sqlite_schema import SCHEMA_VERSION  # noqa: F401 (re-exported)
from bank.store.sqlite_transaction import SqliteErrors, Transaction
from bank.store.sqlite_turn import turn_for
from bank.store.canonical_json import canonical_json  # noqa: F401 (re-exported: it lived here)
from bank.store.journal_readers import _COLUMNS, JournalReaders, _row_dict
from bank.store.sqlite_file import _connect, move_database, remove_database  # noqa: F401 (re-exported)
from bank.store.storage import (StorageError, backup_hint, known_failure, private_file,  # noqa: F401 (re-exported)
                          storage_errors, writable)

# Inside a transaction, the last seq and the chain's head, read under the write lock (BEGIN IMMEDIATE):
# they stay true until this transaction appends. The id's look-up goes in the same statement
# (three statements would be three trips through SQLite on every command's path).
_TIP_IN_TX = f"SELECT (SELECT COALESCE(MAX(seq), 0) FROM journal), ({sqlite_schema.HEAD})"
_FIND_IN_TX = (_TIP_IN_TX + ", " + ", ".join(f"j.{c.strip()}" for c in _COLUMNS.split(","))
               + " FROM (SELECT 1) LEFT JOIN journal j ON j.command_id = ?")
_INSERT_ROW = f"INSERT INTO journal({_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?)"
# The row, written only while the stored head at the row before is the one this connection holds in memory (its
# own last write): a file whose chain another program rebuilt meanwhile gets no row linked to a head it lost.
_INSERT_ROW_AFTER = (f"INSERT INTO journal({_COLUMNS}) SELECT ?, ?, ?, ?, ?, ?, ?, ? WHERE (SELECT COALESCE(b.hash, "
                     "c.hash) FROM chain c LEFT JOIN chain_snapshot b ON b.seq = c.seq WHERE c.seq = ?) = ?")
_INSERT_LINK = "INSERT INTO chain(seq, hash) VALUES (?, ?)"
REWRITTEN = "chain_rewritten"


def rewritten(path, seq: int, held: str, why: str | None = None) -> StorageError:
    """The refusal of a row whose previous entry's stored head is no longer `held`, the one this process wrote or
    read there: another program rewrote the journal under the running bank (params: seq, held); `why`: what was
    found instead (a row edited with its chain left, bank/services/chain_watch.py sweep_rows)."""
    found = why or f"entry {seq} no longer holds the chain head this bank knew there ({held[:12]})"
    return StorageError(REWRITTEN, f"The journal of {path} was changed by another program while the bank ran: "
                        f"{found}. Nothing was "
                        "recorded, and the bank books nothing more on it: tell the lead facilitator (stop the bank, "
                        "keep a copy of the game file, and start again from the backup you trust).",
                        seq=seq, held=held)


class Journal(JournalReaders):
    """One game's database: meta, the append-only journal, state snapshots (bank/store/journal_api.py)."""

    check_name = "SQLite integrity_check"  # what `verify` calls integrity_check()'s findings
    # The bank books a command's first try without looking its id up (bank/store/journal_api.py):
    # the row's constraints refuse a seq another process booked, or an id already booked.
    optimistic_ids = True

    def __init__(self, conn: sqlite3.Connection, path):
        self._conn = conn
        self.path = Path(path)
        self._in_tx = False
        self._readers: list[sqlite3.Connection] = []
        self._readers_lock = threading.Lock()
        self._views: dict[int, sqlite3.Connection] = {}  # thread -> its read transaction (read_view)
        self._closed = False
        self._errors = SqliteErrors(self.path)  # storage_errors(self.path), made once
        self._turn = turn_for(self.path)  # the bank's writers of this file wait in line (sqlite_turn.py)
        # (last seq, chain head) as this connection last read or wrote them, kept from one transaction to
        # the next: what committed_seq(), head() and append() answer inside a transaction without asking
        # SQLite again. It may be stale (another process booked since): the append's seq is then
        # refused by the PRIMARY KEY (journal_moved_on) and the tip forgotten, so the next try reads it.
        self._tip: tuple[int, str] | None = None
        self._tip_before: tuple[int, str] | None = None  # the tip at BEGIN: what a ROLLBACK puts back
        self._tx_thread: int | None = None
        self._seed: str | None = None  # _start()

    @classmethod
    def create(cls, path, config_text: str, identity: dict, previous: dict | None = None) -> "Journal":
        """Create a new database at `path` (which must not exist) with its meta rows; `previous`: the game
        it follows ({"game", "seq", "hash"}), bound into its chain's seed (bank/store/chain.py)."""
        if Path(path).exists():
            raise StorageError("database_exists", f"A game already exists at {path}: use "
                               "`terrabank init --force` to replace it, or choose another "
                               "--db path.", path=str(path))
        with storage_errors(path):
            # Created empty and private first: SQLite gives its -wal and -shm files the
            # database's permissions, and the file holds password hashes and team tokens.
            try:
                os.close(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600))
            except OSError as exc:
                raise sqlite3.OperationalError(f"unable to open database file ({exc.strerror})") from exc
            journal = cls(_connect(path, "rwc"), path)
        try:
            with journal.transaction(), storage_errors(path):
                journal._create_schema(config_text, identity, previous)
        except BaseException:
            journal.close()
            remove_database(path)
            raise
        return journal

    def _create_schema(self, config_text: str, identity: dict, previous: dict | None) -> None:
        """Tables, the append-only triggers and the meta rows of a new game, its chain's seed among them."""
        sqlite_schema.create(self._conn)
        meta = chain.creation_meta(SCHEMA_VERSION, config_text, canonical_json(identity),
                                   previous and canonical_json(previous))
        self._conn.executemany("INSERT INTO meta(key, value) VALUES (?, ?)", meta.items())

    @classmethod
    def open(cls, path) -> "Journal":
        """Open an existing database; StorageError if missing, damaged or not ours."""
        if not Path(path).is_file():
            raise StorageError("database_missing", f"No game database at {path}: run "
                               "`terrabank init` to create one (or pass --db).", path=str(path))
        private_file(path)
        with storage_errors(path):
            journal = cls(_connect(path, "rw"), path)
            try:
                journal._check_schema()
                if not sqlite_schema.up_to_date(journal._conn):
                    with journal.transaction():
                        sqlite_schema.add_later_tables(journal._conn)
            except BaseException:
                journal.close()
                raise
        for suffix in ("-wal", "-shm"):
            private_file(f"{path}{suffix}")
        return journal

    def _has_table(self, name: str) -> bool:
        return sqlite_schema.has_table(self._conn, name)

    def _check_schema(self) -> None:
        """Refuse a valid SQLite file that is not a Terrabank game of our schema."""
        has_meta = self._fetch("SELECT 1 FROM sqlite_master WHERE type='table' AND name='meta'")
        version = self.meta("schema_version") if has_meta else None
        if version is None:
            raise StorageError("not_a_terrabank_database", f"{self.path} is an SQLite file "
                               "but not a Terrabank game: check --db.", path=str(self.path))
        if version != SCHEMA_VERSION:
            raise StorageError("unsupported_schema", f"{self.path} uses storage version "
                               f"{version}; this Terrabank reads version {SCHEMA_VERSION}: "
                               "update Terrabank.", path=str(self.path), version=version)

    def transaction(self, folded: int | None = None) -> Transaction:
        """BEGIN IMMEDIATE ... COMMIT; ROLLBACK on any exception, which is re-raised (bank/store/sqlite_transaction.py).
        `folded` (the caller's last seq) is PostgreSQL's hint; reading the file's rows costs no round trip."""
        return Transaction(self)

    def _fetch(self, sql: str, params=(), *, one: bool = True):
        """Run a query on the writer connection (or this thread's read_view); one row or all, as tuples."""
        conn = self._views.get(threading.get_ident(), self._conn)
        with self._errors:
            cur = conn.execute(sql, params)
            return cur.fetchone() if one else cur.fetchall()

    def meta(self, key: str) -> str | None:
        """The meta value stored under `key`, or None."""
        r = self._fetch("SELECT value FROM meta WHERE key=?", (key,))
        return r[0] if r else None

    def identity(self) -> dict:
        """The config identity (team, resource... ids) this game was created with."""
        return json.loads(self.meta("identity") or "{}")

    def settings(self) -> dict:
        """The connection's durability PRAGMAs, for tests and `verify`."""
        return {name: self._fetch(f"PRAGMA {name}")[0] for name in
                ("journal_mode", "synchronous", "busy_timeout", "foreign_keys")}

    def _in_my_tx(self) -> bool:
        """Whether the calling thread is the one that began the open transaction (and reads through it)."""
        me = threading.get_ident()
        return self._in_tx and self._tx_thread == me and me not in self._views

    def find(self, command_id: str) -> dict | None:
        """The journal row recorded under `command_id`, or None."""
        if self._in_my_tx():  # the command's transaction: learn the last seq and head in the same statement
            last, head, *r = self._fetch(_FIND_IN_TX, (command_id,))
            self._tip = (last, head or self._start())
            return _row_dict(r) if r[0] is not None else None
        r = self._fetch(f"SELECT {_COLUMNS} FROM journal WHERE command_id=?", (command_id,))
        return _row_dict(r) if r else None

    def append(self, row: dict) -> int:
        """Insert a row (inside `transaction()`); returns its seq."""
        if not self._in_tx:
            raise RuntimeError("Journal.append must run inside journal.transaction()")
        values = (row.get("seq"), row["command_id"], row["fingerprint"], row["type"],
                  row.get("actor"), row["at"], canonical_json(row["command"]),
                  canonical_json(row["events"]))
        mine = self._in_my_tx()  # asked once per row, not by each step below
        previous, remembered = self._link_before(values[0], mine)
        with self._errors:
            try:
                if remembered is None:
                    cur = self._conn.execute(_INSERT_ROW, values)
                elif not (cur := self._conn.execute(_INSERT_ROW_AFTER, (*values, remembered, previous))).rowcount:
                    raise rewritten(self.path, remembered, previous)
            except sqlite3.IntegrityError as exc:
                refusal = self._refusal(exc)
                if refusal is None:
                    raise
                raise refusal from None
            seq = cur.lastrowid
            # The row's bytes as the check will read them (chain.ROW_BYTES), made here from the values
            # just written; a value SQLite might store otherwise than Python writes it is read back.
            stored = chain.row_bytes(values[1:5] + values[6:], values[5])
            if stored is None:
                _, at, row_bytes = self._conn.execute(f"{chain.SELECT_ROWS} WHERE seq=?", (seq,)).fetchone()
            else:
                at, row_bytes = stored
            link = chain.link(previous, seq, at, row_bytes)
            self._conn.execute(_INSERT_LINK, (seq, link))
        if mine:
            self._tip = (seq, link)
        return seq

    def _link_before(self, seq: int | None, mine: bool) -> tuple[str, int | None]:
        """The chain's hash the row at `seq` (None: after the last) links to: the tip's when it is the
        row before, else the head read now (the tip unknown, or stale: another process booked since, and
        the PRIMARY KEY will refuse `seq` if that process took it). With the seq of a tip held in memory
        (the chain row is then written only while the stored head there is still that one), else None."""
        if self._tip is not None and mine and (seq is None or self._tip[0] == seq - 1):
            return self._tip[1], (self._tip[0] or None)
        return self._read_tip()[1], None

    def _refusal(self, exc: sqlite3.IntegrityError) -> StorageError | None:
        """The row's constraints said no: the refusals journal_api.retried decides again on, as on PostgreSQL
        (bank/store/journal_pg_connect.pg_errors); any other constraint is the usual storage failure."""
        if "journal.command_id" in str(exc):
            return StorageError("id_taken", f"This command id is already booked in {self.path}: send the command "
                                "again, it is answered as the retry it is.")
        if "journal.seq" in str(exc):
            self._tip_before = None  # stale: the next try reads the last seq and head under the write lock
            return StorageError("journal_moved_on", f"Another process booked the same entry of {self.path} at the "
                                "same moment: nothing was recorded; send the command again, it is booked at most "
                                "once.")
        return None

    def _read_tip(self) -> tuple[int, str]:
        """(last seq, chain head) read now; inside this thread's transaction, kept as its tip."""
        last, head = self._fetch(_TIP_IN_TX)
        tip = (last, head or self._start())
        if self._in_my_tx():
            self._tip = tip
        return tip

    def head(self) -> str:
        """The hash of the last row (the chain's start for an empty journal): write it down to anchor the chain."""
        if self._tip is not None and self._in_my_tx():
            return self._tip[1]
        r = self._fetch(sqlite_schema.HEAD)
        return r[0] if r else self._start()

    def _start(self) -> str:
        """What row 1 links to (bank/store/chain.py: the seed, GENESIS in an older game); read once."""
        if self._seed is None:
            self._seed = chain.start_of(self.meta)
        return self._seed

    def head_at(self, seq: int) -> str | None:
        """The chain's head at row `seq` as stored (what a phone that saw that entry holds), None: no such row.
        On a reader connection: the pictures' thread asks it while the bank's thread books."""
        conn, healthy = self._reader(), False
        try:
            with self._errors:
                found = conn.execute("SELECT COALESCE(b.hash, c.hash) FROM chain c LEFT JOIN chain_snapshot b ON "
                                     "b.seq = c.seq WHERE c.seq = ?", (seq,)).fetchall() if 0 < seq < 2**63 else []
            healthy = True  # fetchall: the statement done, no read transaction left open on the idle reader
            return found[0][0] if found else None
        finally:
            self._release(conn, healthy)

    def chain_at(self, seq: int) -> str | None:
        """The chain's hash at row `seq`, recomputed from the rows themselves (not the stored chain)."""
        with self.read_view():
            rows = self._fetch(f"{chain.SELECT_ROWS} WHERE seq<=? ORDER BY seq", (seq,), one=False)
            seals = dict(self._fetch("SELECT seq, seal FROM chain_snapshot", one=False))
            return next((h for s, h in chain.replay(rows, seals, self._start()) if s == seq), None)

    def chain_problem(self) -> str | None:
        """The first row whose content no longer matches the chain, as a sentence, or None."""
        # One read transaction: a row committed between reading the chain and the rows is not a break.
        with self.read_view(), self._errors:
            conn = self._views.get(threading.get_ident(), self._conn)
            stored = dict(conn.execute("SELECT seq, hash FROM chain").fetchall())
            bound = {seq: (seal, head) for seq, seal, head in conn.execute("SELECT seq, seal, hash FROM chain_snapshot")}
            made = dict(conn.execute("SELECT key, value FROM meta").fetchall())
            return chain.meta_problem(made.get) or chain.first_break(
                conn.execute(f"{chain.SELECT_ROWS} ORDER BY seq"), stored, bound, sqlite_schema.checkpoint_tip(conn),
                chain.start_of(made.get))

    def chain_problem_between(self, first: int, last: int) -> str | None:
        """chain_problem for rows `first`..`last` only, each hashed on the head stored before it: a window of a sweep
        off the booking path (bank/services/chain_watch.py sweep_rows); None when they match their chain."""
        with self.read_view(), self._errors:
            conn = self._views.get(threading.get_ident(), self._conn)
            window = (first, last)
            start = self._start() if first <= 1 else (conn.execute(
                "SELECT COALESCE(b.hash, c.hash) FROM chain c LEFT JOIN chain_snapshot b ON b.seq = c.seq "
                "WHERE c.seq = ?", (first - 1,)).fetchone() or (None,))[0]
            stored = dict(conn.execute("SELECT seq, hash FROM chain WHERE seq BETWEEN ? AND ?", window).fetchall())
            bound = {seq: (seal, head) for seq, seal, head in conn.execute(
                "SELECT seq, seal, hash FROM chain_snapshot WHERE seq BETWEEN ? AND ?", window)}
            return chain.first_break(conn.execute(f"{chain.SELECT_ROWS} WHERE seq BETWEEN ? AND ? ORDER BY seq",
                                                  window), stored, bound, None, start or chain.GENESIS)

    def save_checkpoint(self, timeline: float, wall: float) -> None:
        """Remember where the bank's time line is and what the system clock said (bank/services/timeline.py),
        with the last row written and its chain head (bank/store/chain.py: a deleted tail falls short of it)."""
        with self._errors:
            if self._tip is not None and self._in_my_tx():  # the row just appended: known, no subquery (6% CPU)
                self._conn.execute(sqlite_schema.SAVE_CHECKPOINT_AT, (timeline, wall, *self._tip))
            else:  # a heartbeat: read in the statement
                self._conn.execute(sqlite_schema.SAVE_CHECKPOINT, (timeline, wall))

    def last_checkpoint(self) -> tuple[float, float] | None:
        """(timeline, wall) of the last checkpoint, or None for a game that has none yet."""
        r = self._fetch("SELECT timeline, wall FROM clock_checkpoint WHERE id = 1")
        return (r[0], r[1]) if r else None

    def row(self, seq: int) -> dict | None:
        """The row at `seq`, or None."""
        r = self._fetch(f"SELECT {_COLUMNS} FROM journal WHERE seq=?", (seq,))
        return _row_dict(r) if r else None

    def last_seq(self) -> int:
        """The highest seq in the journal, 0 when empty."""
        return self._fetch("SELECT COALESCE(MAX(seq), 0) FROM journal")[0]

    def committed_seq(self) -> int:
        """The last seq committed by any process; inside this thread's transaction, the tip it knows."""
        if not self._in_my_tx():
            return self.last_seq()
        # The tip this connection knows (from find(), its last append, or read now under the write lock).
        # Another process may have booked since a previous transaction: the append claiming the next seq
        # is then refused (journal_moved_on), and the command decided again on a tip read anew.
        return (self._tip or self._read_tip())[0]

    def latest_snapshot(self) -> tuple[int, dict] | None:
        """(seq, state dict) of the newest sealed snapshot, checked against the chain (bank/store/snapshots.py);
        None if there is none; StorageError if it was edited."""
        with self.read_view():
            r = self._fetch("SELECT s.seq, s.state, c.hash, b.seal FROM snapshots s LEFT JOIN chain c ON c.seq = s.seq "
                            f"LEFT JOIN chain_snapshot b ON b.seq = s.seq WHERE {snapshots.SEALED_SQL} AND "
                            f"{snapshots.TRUSTED_SQL.format(bindings='chain_snapshot')} ORDER BY s.seq DESC LIMIT 1")
            return None if r is None else (r[0], snapshots.trusted(r[0], r[1], r[2], self.path, r[3]))

    def snapshots(self) -> Iterator[tuple[int, dict]]:
        """Every (seq, state dict) snapshot in order (unchecked: `verify` compares them with a replay)."""
        for seq, state in self._fetch("SELECT seq, state FROM snapshots ORDER BY seq", one=False):
            yield seq, snapshots.state_of(state)

    def snapshot_problems(self) -> list[str]:
        """The sealed snapshots whose seal or chain hash no longer match, as sentences."""
        return [p for seq, text, link, seal in self._fetch(
                "SELECT s.seq, s.state, c.hash, b.seal FROM snapshots s LEFT JOIN chain c ON c.seq = s.seq "
                "LEFT JOIN chain_snapshot b ON b.seq = s.seq ORDER BY s.seq", one=False)
                if (p := snapshots.problem(seq, text, link, seal))]

    def write_snapshot(self, seq: int, state: dict) -> None:
        """Store the state after `seq` (inside `transaction()`), sealed with the chain's hash at `seq`."""
        if not self._in_tx:
            raise RuntimeError("Journal.write_snapshot must run inside journal.transaction()")
        link = self._fetch("SELECT hash FROM chain WHERE seq=?", (seq,))
        body = canonical_json(state)
        text = body if link is None else snapshots.sealed(seq, link[0], body)
        with self._errors:
            self._conn.execute("INSERT INTO snapshots(seq, state) VALUES (?, ?)", (seq, text))
            if link is not None:  # bound into the chain (bank/store/chain.py): the next row links to the binding
                head = chain.bind(link[0], seq, snapshots.seal_of(text))
                self._conn.execute("INSERT INTO chain_snapshot(seq, seal, hash) VALUES (?, ?, ?)",
                                   (seq, snapshots.seal_of(text), head))
                if self._tip is not None and self._tip[0] == seq:
                    self._tip = (seq, head)

    def integrity_check(self) -> str:
        """SQLite's own check of the file: "ok" or the problems it found."""
        return "\n".join(r[0] for r in self._fetch("PRAGMA integrity_check", one=False))

    def checkpoint(self) -> None:
        """Copy the WAL into the main file and empty it (before renaming the file)."""
        self._fetch("PRAGMA wal_checkpoint(TRUNCATE)")

    def close(self) -> None:
        """Close the connections (SQLite checkpoints the WAL on the last close)."""
        with self._readers_lock:
            self._closed = True
            readers, self._readers = self._readers, []
        for reader in readers:
            reader.close()
        self._conn.close()
