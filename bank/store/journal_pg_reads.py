"""The read side of a game's journal in PostgreSQL: rows, chain, snapshots, and one consistent view of them.

Split from bank/store/journal_pg.py, which keeps the write side (one transaction under
the game's lock, the rows sent with its COMMIT) and the game's creation. Reads outside that
transaction go to a reader connection, never the writer's; each statement there sees the commits
made before it (READ COMMITTED), so a check made of several statements (the stored chain, then
the rows; the snapshots, then the rows after them) could mix two moments while another process
books, and cry tampering over a row it had read once but not the other time. `read_view()`
pins one reader to the calling thread in one REPEATABLE READ transaction: every read inside it
sees the same moment. The chain check and the snapshot's check take one themselves.
"""

from __future__ import annotations

import json
import threading
from contextlib import contextmanager
from typing import Iterator

from bank.store import chain, snapshots
from bank.store.journal_pg_connect import connect, lost, opened_at, pg_errors, psycopg_module
from bank.store.journal_pg_deadline import deadline
from bank.store.journal_pg_schema import GUARDS
from bank.store.storage import StorageError

IDLE_READERS = 4
PAGE = 500  # rows per read when streaming a journal
_TEXT_COLUMNS = ("command_id", "fingerprint", "type", "actor", "command", "events")
COLUMNS = "seq, command_id, fingerprint, type, actor, at, command, events"
_WITH_HEADS = (f"SELECT {', '.join('j.' + c for c in COLUMNS.split(', '))}, COALESCE(b.hash, c.hash) FROM "
               "terrabank.journal j LEFT JOIN terrabank.chain c ON c.game = j.game AND c.seq = j.seq LEFT JOIN "
               "terrabank.chain_snapshot b ON b.game = j.game AND b.seq = j.seq WHERE j.game = %s AND j.seq > %s "
               f"ORDER BY j.seq LIMIT {PAGE}")


def row_bytes(values) -> bytes:
    """The text columns joined as bank/store/chain.py's ROW_BYTES joins them in SQLite: length:text, '-' if NULL."""
    parts = []
    for value in values:
        if value is None:
            parts.append(b"-")
        else:
            data = value.encode("utf-8")
            parts.append(b"%d:%s" % (len(data), data))
    return b"".join(parts)


# (seq, head) of the last row: its hash, or its snapshot's binding when one stands there (bank/store/chain.py).
HEAD_SQL = ("SELECT c.seq, COALESCE(b.hash, c.hash) FROM terrabank.chain c LEFT JOIN terrabank.chain_snapshot b "
            "ON b.game = c.game AND b.seq = c.seq WHERE c.game = {game} ORDER BY c.seq DESC LIMIT 1")


def _chain_rows(records) -> Iterator[tuple]:
    """(seq, at, row bytes) of rows read as (seq, at, command_id, ..., events), for chain.replay."""
    for seq, at, *texts in records:
        yield seq, at, row_bytes(texts)


def _row_dict(r) -> dict:
    seq, command_id, fingerprint, type_, actor, at, command, events = r
    return {"seq": seq, "command_id": command_id, "fingerprint": fingerprint, "type": type_,
            "actor": actor, "at": at, "command": json.loads(command), "events": json.loads(events)}


class PostgresReads:
    """The reads of PostgresJournal (bank/store/journal_pg.py), which gives `_fetch`, `game_id`, `path`,
    `_url`, `_pool`, `_readers`, `_readers_lock`, `_views`, `_seed` and `_closed`."""

    @contextmanager
    def read_view(self):
        """Every read of this thread inside sees one moment of the game: one REPEATABLE READ, READ ONLY
        transaction on one reader (inside this thread's write transaction: that transaction's reads)."""
        me = threading.get_ident()
        if me in self._views or self._in_tx:
            yield self
            return
        conn, _ = self._on_reader(lambda c: c.execute("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY"))
        healthy = False
        try:
            self._views[me] = conn
            try:
                yield self
            finally:
                del self._views[me]
            with pg_errors(self.path):
                conn.execute("COMMIT")
            healthy = True
        finally:
            if not healthy and not conn.broken:
                try:
                    conn.execute("ROLLBACK")
                except Exception:  # the connection is dropped below anyway
                    pass
            self._release(conn, healthy)

    def _on_reader(self, first, again: bool = True) -> tuple:
        """(a reader, what `first(reader)` returned). A kept reader that PostgreSQL dropped while it sat idle
        (a restart) fails before anything ran: it goes, with every other kept one (`_release`), and `first`
        runs once more on a new one. Give the reader back with `_release(conn, True)`."""
        conn, kept = self._reader()
        try:
            with pg_errors(self.path), deadline(lambda: conn) as cut:
                try:
                    return conn, first(conn)
                except psycopg_module().OperationalError:
                    if not (kept and again) or cut.expired:  # no answer in time (a cut): no second wait
                        raise
                    lost(opened_at(conn))  # the restart that dropped it may have ended the hold too
        except BaseException:
            self._release(conn, False)
            raise
        self._release(conn, False)
        return self._on_reader(first, again=False)

    def _reader(self) -> tuple:
        """(connection, taken from the idle ones?): never the writer's, whose open transaction
        would show rows not yet committed (or be aborted by a failed read)."""
        if threading.get_ident() in self._views:
            return self._views[threading.get_ident()], True
        if self._pool is not None:
            return self._pool.take(), True
        with self._readers_lock:
            if self._readers:
                return self._readers.pop(), True
        return connect(self._url), False

    def _release(self, conn, healthy: bool) -> None:
        if self._views.get(threading.get_ident()) is conn:
            return  # the read_view's: it ends with the view
        if self._pool is not None:
            return self._pool.give(conn, healthy)
        dropped: list = []
        with self._readers_lock:
            if healthy and not self._closed and not conn.broken and len(self._readers) < IDLE_READERS:
                self._readers.append(conn)
                return
            if conn.broken:  # PostgreSQL went away: the readers kept idle met the same end
                dropped, self._readers = self._readers, []
        for each in (conn, *dropped):
            each.close()

    def meta(self, key: str) -> str | None:
        r = self._fetch("SELECT value FROM terrabank.meta WHERE game = %s AND key = %s", (self.game_id, key))
        return r[0] if r else None

    def identity(self) -> dict:
        return json.loads(self.meta("identity") or "{}")

    def _start(self) -> str:
        """What row 1 links to (bank/store/chain.py: the seed, GENESIS in an older game); read once."""
        if self._seed is None:
            self._seed = chain.start_of(self.meta)
        return self._seed

    def settings(self) -> dict:
        """The durability settings our sessions run with, for tests and `verify`."""
        names = ("synchronous_commit", "fsync", "transaction_isolation", "server_version")
        return {n: self._fetch(f"SHOW {n}")[0] for n in names}

    def find(self, command_id: str) -> dict | None:
        r = self._fetch(f"SELECT {COLUMNS} FROM terrabank.journal WHERE game = %s AND command_id = %s",
                        (self.game_id, command_id))
        return _row_dict(r) if r else None

    def row(self, seq: int) -> dict | None:
        if not -2**63 <= seq < 2**63:
            return None
        r = self._fetch(f"SELECT {COLUMNS} FROM terrabank.journal WHERE game = %s AND seq = %s",
                        (self.game_id, seq))
        return _row_dict(r) if r else None

    def last_seq(self) -> int:
        return self._fetch("SELECT COALESCE(MAX(seq), 0) FROM terrabank.journal WHERE game = %s",
                           (self.game_id,))[0]

    def rows(self, after_seq: int = 0) -> Iterator[dict]:
        """Rows with seq > after_seq in order, a page at a time (no connection held between pages)."""
        while True:
            page = self._fetch(f"SELECT {COLUMNS} FROM terrabank.journal WHERE game = %s AND seq > %s "
                               f"ORDER BY seq LIMIT {PAGE}", (self.game_id, after_seq), one=False)
            for r in page:
                yield _row_dict(r)
            if len(page) < PAGE:
                return
            after_seq = page[-1][0]

    def rows_with_heads(self, after_seq: int = 0) -> Iterator[tuple[dict, str | None]]:
        """(row, the chain's head at its entry as stored) for seq > after_seq in order, a page at a time: one round
        trip a page for an export, where a head read per row was a round trip per row."""
        while True:
            page = self._fetch(_WITH_HEADS, (self.game_id, after_seq), one=False)
            for r in page:
                yield _row_dict(r[:-1]), r[-1]
            if len(page) < PAGE:
                return
            after_seq = page[-1][0]

    def committed_rows(self, after_seq: int) -> Iterator[dict]:
        """The rows after `after_seq` a decision builds on: inside this thread's transaction, those committed
        before it began (up to the head BEGIN read under the game's lock; when `after_seq` is the seq the
        transaction was opened with, the rows came with BEGIN: no round trip); outside, every one committed
        now, in one read (a page) without asking for the last seq first."""
        if not self._in_tx:
            yield from self.rows(after_seq)
            return
        if not self._begun:
            self._begin()
        head, (after, page) = self._committed_head, self._news
        if after == after_seq and page is not None:
            for r in page:
                if r[0] > head:
                    return
                yield _row_dict(r)
            if len(page) < PAGE:
                return
            after_seq = page[-1][0]
        for row in self.rows(after_seq):
            if row["seq"] > head:  # booked after this transaction began, by a writer outside the game's lock
                return
            yield row

    def _chain_records(self, up_to: int | None = None) -> list:
        limit = "" if up_to is None else " AND seq <= %s"
        params = (self.game_id,) if up_to is None else (self.game_id, up_to)
        return self._fetch(f"SELECT seq, at, {', '.join(_TEXT_COLUMNS)} FROM terrabank.journal "
                           f"WHERE game = %s{limit} ORDER BY seq", params, one=False)

    def _bound(self) -> dict:
        """{seq: (seal, head)} of the snapshots the chain binds."""
        return {seq: (seal, head) for seq, seal, head in self._fetch(
            "SELECT seq, seal, hash FROM terrabank.chain_snapshot WHERE game = %s", (self.game_id,), one=False)}

    def chain_at(self, seq: int) -> str | None:
        """The chain's head at row `seq`, recomputed from the rows themselves (and the seals it binds)."""
        with self.read_view():
            seals = {s: seal for s, (seal, _) in self._bound().items()}
            return next((h for s, h in chain.replay(_chain_rows(self._chain_records(seq)), seals, self._start())
                         if s == seq), None)

    def head_at(self, seq: int) -> str | None:
        """The chain's head at row `seq` as stored (what a phone that saw that entry holds), None: no such row."""
        if not 0 < seq < 2**63:
            return None
        r = self._fetch("SELECT COALESCE(b.hash, c.hash) FROM terrabank.chain c LEFT JOIN terrabank.chain_snapshot b "
                        "ON b.game = c.game AND b.seq = c.seq WHERE c.game = %s AND c.seq = %s", (self.game_id, seq))
        return r and r[0]

    def chain_problem(self) -> str | None:
        """The first row whose content no longer matches the chain, as a sentence, or None.
        The chain and the rows are read in one view: a row booked meanwhile is not a break."""
        with self.read_view():
            stored = dict(self._fetch("SELECT seq, hash FROM terrabank.chain WHERE game = %s", (self.game_id,),
                                      one=False))
            tip = self._fetch("SELECT seq, head FROM terrabank.clock_checkpoint WHERE game = %s", (self.game_id,))
            made = dict(self._fetch("SELECT key, value FROM terrabank.meta WHERE game = %s", (self.game_id,), one=False))
            return chain.meta_problem(made.get) or chain.first_break(
                _chain_rows(self._chain_records()), stored, self._bound(), tip, chain.start_of(made.get))

    def chain_problem_between(self, first: int, last: int) -> str | None:
        """chain_problem for rows `first`..`last` only, each hashed on the head stored before it (a sweep's window)."""
        with self.read_view():
            window = (self.game_id, first, last)
            start = self._start() if first <= 1 else self.head_at(first - 1)
            stored = dict(self._fetch("SELECT seq, hash FROM terrabank.chain WHERE game = %s AND seq BETWEEN %s AND %s",
                                      window, one=False))
            bound = {seq: (seal, head) for seq, seal, head in self._fetch(
                "SELECT seq, seal, hash FROM terrabank.chain_snapshot WHERE game = %s AND seq BETWEEN %s AND %s",
                window, one=False)}
            records = self._fetch(f"SELECT seq, at, {', '.join(_TEXT_COLUMNS)} FROM terrabank.journal WHERE game = %s "
                                  "AND seq BETWEEN %s AND %s ORDER BY seq", window, one=False)
            return chain.first_break(_chain_rows(records), stored, bound, None, start or chain.GENESIS)

    def last_checkpoint(self) -> tuple[float, float] | None:
        r = self._fetch("SELECT timeline, wall FROM terrabank.clock_checkpoint WHERE game = %s", (self.game_id,))
        return (r[0], r[1]) if r else None

    def latest_snapshot(self) -> tuple[int, dict] | None:
        """The newest sealed snapshot, checked against the chain (bank/store/snapshots.py); StorageError if edited."""
        with self.read_view():
            game = int(self.game_id)
            r = self._fetch("SELECT s.seq, s.state, c.hash, b.seal FROM terrabank.snapshots s LEFT JOIN terrabank.chain c "
                            "ON c.game = s.game AND c.seq = s.seq LEFT JOIN terrabank.chain_snapshot b ON b.game = s.game "
                            f"AND b.seq = s.seq WHERE s.game = %s AND {snapshots.SEALED_SQL} AND "
                            + snapshots.TRUSTED_SQL.format(bindings=f"terrabank.chain_snapshot WHERE game = {game}")
                            + " ORDER BY s.seq DESC LIMIT 1", (self.game_id,))
            return None if r is None else (r[0], snapshots.trusted(r[0], r[1], r[2], self.path, r[3]))

    def snapshots(self) -> Iterator[tuple[int, dict]]:
        """Every (seq, state) in order, unchecked (`verify` compares each with its replay)."""
        for seq, state in self._fetch("SELECT seq, state FROM terrabank.snapshots WHERE game = %s ORDER BY seq",
                                      (self.game_id,), one=False):
            yield seq, snapshots.state_of(state)

    def snapshot_problems(self) -> list[str]:
        """The sealed snapshots whose seal or chain hash no longer match, as sentences."""
        found = self._fetch("SELECT s.seq, s.state, c.hash, b.seal FROM terrabank.snapshots s LEFT JOIN terrabank.chain c "
                            "ON c.game = s.game AND c.seq = s.seq LEFT JOIN terrabank.chain_snapshot b "
                            "ON b.game = s.game AND b.seq = s.seq WHERE s.game = %s ORDER BY s.seq",
                            (self.game_id,), one=False)
        return [p for seq, text, link, seal in found if (p := snapshots.problem(seq, text, link, seal))]

    def integrity_check(self) -> str:
        """What PostgreSQL can tell: the append-only guards are in place and enabled, the server
        writes commits to disk (fsync), and, where the amcheck extension is installed, the
        journal's indexes are sound. "ok" or the problems, one a line."""
        problems = []
        found = dict(self._fetch("SELECT tgname, tgenabled FROM pg_trigger WHERE tgrelid IN "
                                 "(SELECT oid FROM pg_class WHERE relnamespace = 'terrabank'::regnamespace)",
                                 one=False))
        for guard in sorted(GUARDS):
            if guard not in found:
                problems.append(f"the guard {guard} is missing: rows can be edited (restore it from a backup)")
            elif found[guard] == "D":
                problems.append(f"the guard {guard} is disabled (ALTER TABLE ... ENABLE TRIGGER {guard})")
        if self._fetch("SHOW fsync")[0] != "on":
            problems.append("the server runs with fsync=off: a power cut can lose booked commands")
        if self._fetch("SELECT 1 FROM pg_extension WHERE extname = 'amcheck'") is not None:
            for index in ("journal_pkey", "journal_game_command_id_key", "chain_pkey"):
                try:
                    self._fetch("SELECT bt_index_check(%s::regclass)", (f"terrabank.{index}",))
                except StorageError as exc:
                    problems.append(f"the index {index} is damaged: {exc.message}")
        return "\n".join(problems) or "ok"
