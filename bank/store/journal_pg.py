"""The journal in PostgreSQL: many games in one database, same guarantees as the file.

Every table is keyed by the game's number (terrabank.games), so one database hosts
many games. The guarantees of bank/store/journal.py hold here by the database's own means:
- append-only: triggers refuse UPDATE, DELETE and TRUNCATE of journal, snapshots,
  meta and chain rows (a game's row in `games` may only change its name);
- a command id once per game: UNIQUE (game, command_id);
- one writer of a game at a time: every booking transaction takes the game's advisory lock
  (transaction-scoped) in its first round trip, with BEGIN and before it reads the chain's head, so
  the processes of one game wait their turn instead of deciding on the same head and losing the
  race for the seq (without it 2 and 4 processes rolled back 0.7-1.2 tries per booked command, and
  4 spent 2.3x the CPU per command of one). PRIMARY KEY (game, seq) and UNIQUE (game, command_id)
  still refuse a row that a program outside the bank booked meanwhile (`journal_api.retried`);
- fenced: a row, and the time line's checkpoint, are written only while the game's row carries
  the hold epoch of its writer (bank/store/journal_pg_hold.py), so a server that lost its hold
  cannot write beside the one that took it;
- durability: synchronous_commit=on for our sessions (a COMMIT is on disk), and
  integrity_check() says when the server runs with fsync off;
- the hash chain (bank/store/chain.py) over the same bytes as SQLite gives, so a game has
  the same chain head in either store.
Text columns stay TEXT (not JSONB, which would reorder keys): the chain hashes bytes.
"""

from __future__ import annotations

import threading
import time
from contextlib import contextmanager

from bank.store import chain, snapshots
from bank.errors import CommandError
from bank.store.journal import SCHEMA_VERSION, canonical_json
from bank.store.storage import StorageError

# The game functions live beside the connection; re-exported for bank/store/storage_url.py and the tests.
from bank.store.journal_pg_connect import (connect, display_url, game_exists, game_id_of, idle_status,  # noqa: F401
                                     list_games, pg_errors, pipeline_supported, psycopg_module, rename_game,
                                     reconnected, retire_game, settle)
from bank.store.journal_pg_schema import LOCK_SPACE, SAVE_CHECKPOINT, ensure_schema
from bank.store import journal_pg_hold
from bank.store.journal_pg_deadline import deadline
# The reads (and row_bytes, for bank/store/migrate_copy.py) live in their own module.
from bank.store.journal_pg_reads import COLUMNS, HEAD_SQL as _HEAD, PAGE, PostgresReads, row_bytes  # noqa: F401

# Seconds a booking transaction may sit idle between its round trips (its Python deciding) while it holds
# the game: far above a decision's milliseconds, so only a stalled process meets it.
HOLD_SECONDS = 10.0


class PostgresJournal(PostgresReads):
    """One game's journal in a PostgreSQL database shared with other games (see journal_api.py)."""

    check_name = "PostgreSQL check"  # what `verify` calls integrity_check()'s findings
    optimistic_ids = False  # the id's look-up rides with BEGIN in one round trip: it costs nothing to keep

    def __init__(self, url: str, conn, game_id: int, name: str, pool=None, epoch: int = 0):
        self._url = url
        # The hold epoch every row is written under: the game's when opened, then that of this
        # process's hold on it (journal_pg_hold.state), taken again after a restart.
        self._epoch = epoch
        self._conn = conn  # with a pool: None, except inside transaction()
        # Connections shared with other games (bank/store/journal_pg_pool.py: hundreds of Trias games):
        # taken for one transaction or one read, never held between them.
        self._pool = pool
        self.game_id = game_id
        self.game = name
        self.path = f"game {name!r} in {display_url(url)}"
        self._tx_thread: int | None = None  # the thread inside transaction(), which alone uses the writer
        self._begun = False  # whether this transaction's BEGIN went to the server
        self._seed: str | None = None  # what row 1 links to (PostgresReads._start)
        self._head = (0, chain.GENESIS)  # (seq, hash) of the chain's last row, read when a transaction starts
        self._committed_head = 0  # the head's seq as BEGIN read it: rows committed before this transaction
        self._pending: list[tuple] = []  # (sql, params) written in this transaction, sent with the COMMIT
        self._pending_checkpoint: tuple[float, float] | None = None  # written with the COMMIT
        self._readers: list = []
        self._readers_lock = threading.Lock()
        self._views: dict = {}  # thread -> its REPEATABLE READ reader (read_view)
        self._closed = False

    @classmethod
    def create(cls, url: str, name: str, config_text: str, identity: dict, pool=None,
               previous: dict | None = None) -> "PostgresJournal":
        """A new game named `name`; StorageError if the database already has one of that name. `previous`:
        the game it follows, bound into its chain's seed (bank/store/chain.py)."""
        conn = pool.take() if pool else connect(url)
        try:
            with pg_errors(display_url(url)):
                ensure_schema(conn)
                if game_id_of(conn, name) is not None:
                    raise StorageError("database_exists", f"A game named {name!r} already exists in "
                                       f"{display_url(url)}: use `terrabank init --force` to replace it, or "
                                       "choose another --db name.", path=name)
                with conn.transaction():
                    game_id = conn.execute("INSERT INTO terrabank.games(name, created_at) VALUES (%s, %s) "
                                           "ON CONFLICT (name) DO NOTHING RETURNING id",
                                           (name, time.time())).fetchone()
                    if game_id is None:  # created by another process since the check above
                        raise StorageError("database_exists", f"A game named {name!r} was just created in "
                                           f"{display_url(url)} by another process: choose another --db name.",
                                           path=name)
                    meta = {**chain.creation_meta(SCHEMA_VERSION, config_text, canonical_json(identity),
                                                  previous and canonical_json(previous)), "chain": "1"}
                    with conn.cursor() as cur:
                        cur.executemany("INSERT INTO terrabank.meta(game, key, value) VALUES (%s, %s, %s)",
                                        [(game_id[0], k, v) for k, v in meta.items()])
        except BaseException:
            conn.close()
            if pool:
                pool.give(conn)
            raise
        journal = cls._made(url, conn, game_id[0], name, pool)
        journal._seed = meta[chain.SEED_KEY]  # known: the first row's BEGIN need not read it back
        return journal

    @classmethod
    def _made(cls, url: str, conn, game_id: int, name: str, pool, epoch: int = 0) -> "PostgresJournal":
        """The journal on its own connection `conn`, or, with a pool, on none: `conn` goes back to it."""
        if pool is None:
            return cls(url, conn, game_id, name, epoch=epoch)
        pool.give(conn)
        return cls(url, None, game_id, name, pool, epoch=epoch)

    @classmethod
    def open(cls, url: str, name: str, pool=None) -> "PostgresJournal":
        """The game named `name`; StorageError if there is none."""
        conn = pool.take() if pool else connect(url)
        try:
            with pg_errors(display_url(url)):
                ensure_schema(conn)
                found = conn.execute("SELECT id, hold_epoch FROM terrabank.games WHERE name = %s",
                                     (name,)).fetchone()
                game_id, epoch = found or (None, 0)
        except BaseException:
            conn.close()
            if pool:
                pool.give(conn)
            raise
        if game_id is None:
            conn.close()
            if pool:
                pool.give(conn)
            raise StorageError("database_missing", f"No game named {name!r} in {display_url(url)}: run "
                               f"`terrabank init` (with --db {name}) to create it, or check --db.", path=name)
        return cls._made(url, conn, game_id, name, pool, epoch)

    # --- the write side: one transaction at a time, under the game's advisory lock ---------

    @contextmanager
    def transaction(self, folded: int | None = None):
        """BEGIN ... COMMIT; ROLLBACK on any exception, which is re-raised. A command takes two round trips:
        BEGIN, the game's lock, the chain's head and the rows after `folded` (the caller's last seq, for
        `committed_rows`) go with its first read (the look-up of its id); the rows it writes go with the
        COMMIT as one pipeline. Another process's writer waits for the lock there, before it reads anything."""
        self._check_hold()
        if self._pool is not None:
            self._conn = self._pool.take()
        if self._conn.closed:  # the server restarted since (or a new connection failed): start again on a new one
            self._conn.close()
            self._conn = connect(self._url)
        # No prepared statements in a transaction: a pipeline that fails (a seq booked meanwhile) leaves
        # psycopg believing in ones the server dropped ("prepared statement _pg3_2 does not exist").
        self._conn.prepare_threshold = None
        self._begun, self._pending, self._pending_checkpoint = False, [], None
        self._news = (folded, None)  # (after which seq, the rows BEGIN read after it)
        try:
            self._tx_thread = threading.get_ident()
            try:
                yield self
            finally:
                self._tx_thread = None
            if self._pending_checkpoint is not None:  # fenced: no time line (NOT NULL) unless we hold the epoch
                # Never back: another process's later time line, committed first, stays (its wall too).
                timeline, wall = self._pending_checkpoint
                g = self.game_id
                self._pending.append((SAVE_CHECKPOINT, (g, timeline, g, self._epoch, wall, g, g)))
            if self._pending and not self._begun:
                self._begin()
            if self._begun:
                self._flush(commit=True)
        except BaseException as exc:
            self._pending = []
            settle(self._conn, exc)  # a lost or muddled connection is closed: the next transaction opens one
            raise
        finally:
            if self._pool is not None:  # back to the games' shared connections
                conn, self._conn = self._conn, None
                self._pool.give(conn)

    def _check_hold(self) -> None:
        """Refuse at once while this process's hold on the game is lost; take its epoch when held."""
        held = journal_pg_hold.state(self._url, self.game)
        if held is None:  # no hold in this process (a test, `init`'s new game): the epoch read at open
            return
        if not held.held:
            also = f" ({held.holder} holds it meanwhile: stop one of the two)" if held.holder else ""
            raise StorageError("hold_lost", f"{journal_pg_hold.HOLD_LOST}{also}; nothing was recorded: send the "
                               "command again in a moment, it is booked at most once.", game=self.game)
        if held.game_id is not None and held.game_id != self.game_id:
            raise StorageError("game_replaced", f"The {self.path} was replaced by `terrabank init --force` while "
                               "this server's hold was lost: nothing was recorded; restart the server to serve "
                               "the new game.", game=self.game)
        if held.game_id is not None:
            self._epoch = held.epoch

    def _begin(self, then: tuple | None = None, one: bool = True):
        """BEGIN, read the chain's head, and run `then` (sql, params): one round trip.

        The game's lock first, held until COMMIT or ROLLBACK: the head read after it (READ COMMITTED:
        each statement sees every commit before it) is the last row any writer will have booked
        before this one's, so the row appended at the seq after it cannot lose the race. A writer
        of another process waits for the lock on the server, in this same round trip.
        """
        game = int(self.game_id)
        lock = f"SELECT pg_advisory_xact_lock({LOCK_SPACE}, {game}); "
        # A writer stalled between its round trips (stopped, swapped out) would hold every other process of
        # the game for as long as it stalls: PostgreSQL ends its session after HOLD_SECONDS idle in it.
        bound = f"SET LOCAL idle_in_transaction_session_timeout = {int(HOLD_SECONDS * 1000)}; "
        text = f"BEGIN; {bound}{lock}{_HEAD.format(game=game)}"
        after = self._news[0]
        if after is not None:  # what other processes booked since: no round trip of its own (committed_rows)
            text += f"; SELECT {COLUMNS} FROM terrabank.journal WHERE game = {game} AND seq > {int(after)} " \
                    f"ORDER BY seq LIMIT {PAGE}"
        if then is not None:  # bound here (several statements go only without parameters), quoted by psycopg
            text += "; " + psycopg_module().ClientCursor(self._conn).mogrify(*then)
        self._begun = True  # from here on a failure must be rolled back
        with pg_errors(self.path), deadline(lambda: self._conn) as cut:
            try:
                cur = self._conn.execute(text)
            except psycopg_module().errors.LockNotAvailable:  # lock_timeout: the connection is sound
                raise StorageError("game_busy", f"The {self.path} is busy: this process waited its turn behind "
                                   "the others booking it and gave up (lock_timeout); nothing was recorded: send "
                                   "the command again in a moment, it is booked at most once.") from None
            except psycopg_module().OperationalError:
                if not self._conn.closed or cut.expired:  # a statement's failure, or no answer in time (a cut)
                    raise
                # Nothing written yet: a connection dropped while idle (a restart) is replaced, BEGIN sent again.
                self._conn = reconnected(self._conn, self._url)
                cur = self._conn.execute(text)
            for _ in range(3):
                cur.nextset()  # past BEGIN's, the SET's and the lock's
            last = cur.fetchone()
            if after is not None:
                cur.nextset()
                self._news = (after, cur.fetchall())
            result = None
            if then is not None:
                cur.nextset()
                result = cur.fetchone() if one else cur.fetchall()
        self._head = (last[0], last[1]) if last else (0, self._start())
        self._committed_head = self._head[0]
        return result

    def _flush(self, commit: bool = False) -> None:
        """Send the rows waiting in this transaction (and COMMIT) in one round trip; BEGIN took the lock."""
        statements, self._pending = self._pending, []
        if commit:
            statements.append(("COMMIT", None))
        if not statements:
            return
        with pg_errors(self.path), deadline(lambda: self._conn):
            if len(statements) > 1 and pipeline_supported():
                with self._conn.pipeline():
                    for sql, params in statements:
                        self._conn.execute(sql, params)
            else:  # a libpq older than 14 has no pipeline: one round trip each
                for sql, params in statements:
                    self._conn.execute(sql, params)

    @property
    def _in_tx(self) -> bool:
        return self._tx_thread == threading.get_ident()

    def append(self, row: dict) -> int:
        """Add a row (inside `transaction()`) and its link of the chain, sent with the COMMIT; returns its seq."""
        if not self._in_tx:
            raise RuntimeError("Journal.append must run inside journal.transaction()")
        if not self._begun:
            self._begin()
        seq = row.get("seq") or self._head[0] + 1
        at = float(row["at"])  # as it reads back, so the chain hashes what verify will read
        texts = (row["command_id"], row["fingerprint"], row["type"], row.get("actor"),
                 canonical_json(row["command"]), canonical_json(row["events"]))
        if any(t is not None and "\x00" in t for t in texts):
            raise CommandError("nul_character", "A text of this command contains a NUL character, which "
                               "the database cannot store: remove it.")
        link = chain.link(self._head[1], seq, at, row_bytes(texts))  # the head: the previous row's binding if any
        self._pending.append((f"WITH added AS (INSERT INTO terrabank.journal(game, {COLUMNS}) VALUES "
                              "(%s, %s, %s, %s, %s, %s, %s, %s, %s)) "
                              # The fence: no hash (refused: NOT NULL) unless the game still carries our epoch.
                              "INSERT INTO terrabank.chain(game, seq, hash) VALUES (%s, %s, (SELECT %s::text "
                              "FROM terrabank.games WHERE id = %s AND hold_epoch = %s FOR SHARE))",
                              (self.game_id, seq, texts[0], texts[1], texts[2], texts[3], at, texts[4], texts[5],
                               self.game_id, seq, link, self.game_id, self._epoch)))
        self._head = (seq, link)
        return seq

    def write_snapshot(self, seq: int, state: dict) -> None:
        if not self._in_tx:
            raise RuntimeError("Journal.write_snapshot must run inside journal.transaction()")
        if not self._begun:
            self._begin()
        if seq == self._head[0]:  # the bank's case: the row just appended
            link = self._head[1]
        else:
            found = self._fetch("SELECT hash FROM terrabank.chain WHERE game = %s AND seq = %s", (self.game_id, seq))
            link = found and found[0]
        body = canonical_json(state)
        text = body if link is None else snapshots.sealed(seq, link, body)
        self._pending.append(("INSERT INTO terrabank.snapshots(game, seq, state) VALUES (%s, %s, %s)",
                              (self.game_id, seq, text)))
        if link is not None:  # bound into the chain (bank/store/chain.py): the next row links to the binding
            seal = snapshots.seal_of(text)
            head = chain.bind(link, seq, seal)
            self._pending.append(("INSERT INTO terrabank.chain_snapshot(game, seq, seal, hash) VALUES (%s, %s, %s, %s)",
                                  (self.game_id, seq, seal, head)))
            if seq == self._head[0]:
                self._head = (seq, head)

    def save_checkpoint(self, timeline: float, wall: float) -> None:
        """Remember where the time line is (bank/services/timeline.py); the one row per game that changes.
        Written with the COMMIT inside a transaction (the last asked for); never over a later stored one."""
        if self._in_tx:
            self._pending_checkpoint = (float(timeline), float(wall))
            return
        with self.transaction():
            self._pending_checkpoint = (float(timeline), float(wall))

    # --- reads: inside our transaction on its connection, else on a reader ------------------

    def _fetch(self, sql: str, params=(), *, one: bool = True):
        """Run a query; inside this thread's transaction it sees that transaction's rows."""
        if self._in_tx:
            if not self._begun:  # the transaction's first statement: it goes with BEGIN and the lock
                return self._begin((sql, params), one)
            self._flush()  # the rows this transaction wrote, so the read sees them
            with pg_errors(self.path), deadline(lambda: self._conn):
                return _rows(self._conn.execute(sql, params), one)
        pinned = self._views.get(threading.get_ident())
        if pinned is not None:  # this thread's read_view: one moment for all its reads
            with pg_errors(self.path):
                return _rows(pinned.execute(sql, params), one)
        conn, result = self._on_reader(lambda c: _rows(c.execute(sql, params), one))
        self._release(conn, True)
        return result

    def committed_seq(self) -> int:
        """The last seq committed by any process, as the game's lock holder sees it.

        Inside a transaction it costs no round trip: the chain's head is read with BEGIN and the
        lock (`_begin`), before this transaction appended anything. Outside, a plain read."""
        if not self._in_tx:
            return self.last_seq()
        if not self._begun:
            self._begin()
        return self._committed_head

    def head(self) -> str:
        if self._in_tx:
            if not self._begun:
                self._begin()
            return self._head[1]
        r = self._fetch(_HEAD.format(game="%s"), (self.game_id,))
        return r[1] if r else self._start()

    def checkpoint(self) -> None:
        """Nothing to do: a PostgreSQL COMMIT is already in its final place."""

    def close(self) -> None:
        with self._readers_lock:
            self._closed = True
            readers, self._readers = self._readers, []
        for reader in readers:
            reader.close()
        if self._conn is not None:  # a pooled journal holds none between transactions
            self._conn.close()


def _rows(cur, one: bool):
    """A query's one row (or None), or all its rows."""
    return cur.fetchone() if one else cur.fetchall()


def check_before_serving(url: str, name: str) -> None:
    """`serve`'s check of a game in PostgreSQL (bank/cli/serve.py check_database): its guards, the
    server's fsync and the hash chain, so an edited journal is refused before anyone plays.
    A game not created yet passes (the first start creates it)."""
    if not game_exists(url, name):
        return
    journal = PostgresJournal.open(url, name)
    try:
        report = journal.integrity_check()
        tampered = journal.chain_problem()
    finally:
        journal.close()
    found = "; ".join(p for p in (report if report != "ok" else None, tampered) if p)
    if found:
        raise StorageError("database_corrupt", f"The game {name!r} in {display_url(url)} cannot be trusted: {found}; "
                           f"run `terrabank --db {name} verify` to see every problem, then repair what is named, "
                           "or restore the last backup (pg_dump, docs/DEPLOY.md) knowing that it loses every "
                           "command booked after it.", path=name)
