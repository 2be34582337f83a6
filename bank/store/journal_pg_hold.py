"""A running server's hold on its game in PostgreSQL, seen from every host, and its fence.

On one host `gamefile.hold` locks a file beside the game: a second server, or an
`init --force`, is refused while a server runs. A game in PostgreSQL may be served from
several hosts, and a file lock on one of them is not seen on the others: an
`init --force` there would rename the game under a running server, which would go on
booking the phones' commands into the old game while the facilitators start the new one.

So the hold is also taken in the database: a session-level advisory lock on the game's
name, on a connection the process keeps open for its whole life. Servers that hear each
other through a queue hold it shared; `init` and a server without a queue need it alone.
PostgreSQL lets it go when the connection ends: the process stopped, was killed, or its
host vanished (the connection asks the server to probe it every 10 s), and when PostgreSQL
itself restarts.

A lock can be lost, so it is not trusted alone (after a restart two servers
booked into one game). Fencing: each taker of the hold writes a new *hold epoch* into the
game's row (terrabank.games.hold_epoch, from the sequence hold_epochs); servers sharing the
game through a queue share one (negative) epoch, which the first of them draws. Every
journal row is written only if the game's row still carries the epoch its writer took
(bank/store/journal_pg.py `append`, in the same statement): a writer whose hold was lost
and taken by another (a second server, an `init --force`) cannot write another row.
A watcher thread probes the hold's connection every second: when it breaks, the process
refuses commands at once (`state()`, read by the journal before each transaction), says
so in one log line, takes the hold back as soon as PostgreSQL answers (a new epoch) and
says so in one line; if another process got in meanwhile it stays refused and names it.
The state lives in memory shared with the worker processes forked after the hold; a worker
never closes the hold's connection (its copy is made inert at the fork: journal_pg_connect.py).

The lock is forgotten when PostgreSQL restarts, so a server's hold is also a lease, a row that
survives the restart (bank/store/journal_pg_lease.py): every taker is refused while
another holder's lease is live, and the watcher renews it, and writes it again the moment it
takes the hold back. Every probe and statement fails within seconds on a network cut
(journal_pg_connect.py: TCP user timeout and keepalives), so a cut process says so and refuses.
"""

from __future__ import annotations

import logging
import mmap
import os
import socket
import struct
import threading
import time
import uuid
import zlib
from typing import NamedTuple

from bank.errors import BankError
from bank.store.gamefile import STOP_HINT
from bank.store import journal_pg_lease as lease
from bank.store.journal_pg_connect import connect, display_url, first_line, on_lost, opened_at, pg_errors
from bank.store.journal_pg_deadline import deadline
from bank.store.journal_pg_schema import ensure_schema
from bank.store.storage import StorageError

HOLD_LOCK_SPACE = 0x7448  # first key ("tH") of a running server's hold; the second is a hash of the game's name
PROBE_SECONDS = 1.0  # how often the watcher looks at the hold's connection
PROBE_DEADLINE = 2.0  # seconds its answer may take: a network cut is said (and commands refused) within 3 s
STEP_SECONDS = 0.1  # how often it reads the state cell for a doubt raised by a worker (a lost connection)
DOUBT_SECONDS = 3.0  # the longest a lost connection elsewhere in the server keeps the hold unconfirmed
TAKE_BACK_SECONDS = 0.25  # how often it tries to take a lost hold back: refused connections cost nothing
HOLD_LOST = "the bank lost its hold on the game in the database; it is taking it back"
LOG = logging.getLogger("terrabank.hold")

# Held (1) or not (0), the game's number (0: no game yet), the epoch, and the number of the game first held
# (0: none yet), which says that `init --force` replaced the game while the hold was lost; then when
# (time.monotonic, one clock for every process of the machine) the hold's connection last answered,
# when any process of the server last saw a connection to the database fail (a doubt the watcher clears),
# and when the hold's connection's session began.
_CELL = struct.Struct("qqqqddd")
_TIMES = struct.calcsize("qqqq")
_WHO = 240  # bytes kept for who holds the game instead of this process
_HOLDS: dict[tuple[str, str], "DatabaseHold"] = {}  # this process's holds, by (url, game name)
_ON_REPLACED: list = []  # called (no argument) by the watcher that finds its game replaced (`serve` ends then)


def on_replaced(callback, remove: bool = False) -> None:
    """Call `callback()` when a hold of this process is taken back on another game of its name (`init --force`
    got in while it was lost): the process cannot serve it (its state is the old game's) and should end."""
    if not remove:
        _ON_REPLACED.append(callback)
    elif callback in _ON_REPLACED:
        _ON_REPLACED.remove(callback)


def _forked_child() -> None:
    for held in list(_HOLDS.values()):
        held._forked()


os.register_at_fork(after_in_child=_forked_child)


def lock_key(game: str) -> int:
    """The hold's second key: by name, not number, since `init --force` gives the name a new game number.
    Two names with the same hash (one chance in four billion) would only refuse each other's init."""
    return zlib.crc32(game.encode()) - 2**31  # a signed 32-bit number


class HoldState(NamedTuple):
    held: bool
    game_id: int | None  # the number of the game the hold's epoch was written into (None: no game then)
    epoch: int
    holder: str  # who holds the game instead of this process, when known
    first_game_id: int | None = None  # the game this process started serving
    # False while a connection of this server failed after the hold's last answer: the hold may have
    # gone with it (a PostgreSQL restart ends every session), unknown until the watcher asks again.
    confirmed: bool = True

    @property
    def replaced(self) -> bool:
        """The game under this name is not the one this process serves (`init --force` got in): it cannot book."""
        return self.first_game_id is not None and self.game_id is not None and self.game_id != self.first_game_id


def state(url: str, game: str) -> HoldState | None:
    """This process's hold on `game` (forked workers see their server's), or None when it holds none.

    Read from memory, never from the network: a PostgreSQL restart ends the hold without a word, and
    the watcher sees it only when it asks; `confirmed` says whether a connection failed since it last
    did (readiness waits for that answer instead of saying ready while the next command is refused)."""
    held = _HOLDS.get((url, game))
    return None if held is None else held.state()


def all_held() -> bool:
    """Whether every hold of this process is held now (the database answers its watchers); True with none."""
    return all(held.state().held for held in list(_HOLDS.values()))


def doubt(since: float | None = None) -> None:
    """A connection of this process to PostgreSQL failed: every hold here is unconfirmed until its watcher
    asks (within STEP_SECONDS). Called by journal_pg_connect for every lost or refused connection, with
    `since`, when the lost connection's session began (None: unknown, or no connection could be made)."""
    for held in list(_HOLDS.values()):
        held.doubt(since)


on_lost(doubt)


class DatabaseHold:
    """The connection that holds the lock, and its watcher; close() (or the process ending) lets go."""

    def __init__(self, url: str, game: str, who: str, shared: bool, conn, game_id: int | None, epoch: int,
                 watch: bool = True, token: str | None = None):
        self.url, self.game, self.who, self.shared, self.conn = url, game, who, shared, conn
        self.token = token  # this hold's lease (journal_pg_lease.py); None: no lease (init, migrate)
        self._renewed = time.monotonic()
        self.where = f"game {game!r} in {display_url(url)}"
        self._cell = mmap.mmap(-1, _CELL.size + _WHO)  # shared with the processes forked from this one (zeros)
        self._set(True, game_id, epoch, session=opened_at(conn))
        self._conn_lock = threading.Lock()
        self._stop = threading.Event()
        _HOLDS[(url, game)] = self
        if watch:
            threading.Thread(target=self._watch, name=f"hold {game}", daemon=True).start()

    def _forked(self) -> None:
        """In a worker forked from the holder: the hold stays the holder's (its connection was made inert
        by journal_pg_connect; closing it here ended the holder's session). The state cell
        is shared, so the worker reads the holder's; the watcher stays the holder's. A parent's thread
        may have held the connection's lock at the fork: this process gets a free one."""
        self._conn_lock = threading.Lock()
        self._stop.set()
        self.conn = None

    def state(self) -> HoldState:
        held, game_id, epoch, first, answered, doubted, _ = _CELL.unpack_from(self._cell, 0)
        who = bytes(self._cell[_CELL.size:]).rstrip(b"\0").decode(errors="replace")
        # A doubt the watcher has not answered within DOUBT_SECONDS (it asks within STEP_SECONDS) is left to
        # the command path's own look (readiness runs it too): never a process not ready for good.
        settled = answered >= doubted or time.monotonic() - doubted > DOUBT_SECONDS
        return HoldState(bool(held), game_id or None, epoch, who, first or None, settled)

    def _set(self, held: bool, game_id: int | None, epoch: int, holder: str = "", asked: float | None = None,
             session: float | None = None) -> None:
        """`asked`: when the question the hold's connection just answered was sent (now if not given);
        `session`: when the hold's connection (taken, or taken back) began its session (now if not given)."""
        self._cell[_CELL.size:] = holder.encode()[:_WHO].ljust(_WHO, b"\0")
        first = _CELL.unpack_from(self._cell, 0)[3] or game_id or 0
        self._cell[:_TIMES] = _CELL.pack(int(held), game_id or 0, epoch, first, 0, 0, 0)[:_TIMES]
        if held:
            now = time.monotonic()
            self._cell[_TIMES + 16:_CELL.size] = struct.pack("d", now if session is None else session)
            self._answered(now if asked is None else asked)

    def _answered(self, asked: float) -> None:
        """The hold's connection answered a question sent at `asked`: a failure seen before that is cleared."""
        self._cell[_TIMES:_TIMES + 8] = struct.pack("d", asked)

    def doubt(self, since: float | None = None) -> None:
        """A connection failed. One whose session began before the hold's own (a reader or writer kept idle
        through the outage the hold was lost and taken back in, found dropped at its next use) says nothing
        about the hold: its session ended before the hold's began, or in a new outage that ended the hold's
        session too, which the watcher finds within PROBE_SECONDS. Doubted, it would turn readiness to 503 just
        after the hold is taken back: readiness's own look finds the idle writer dropped and replaces it."""
        session = struct.unpack_from("d", self._cell, _TIMES + 16)[0]
        if since is not None and since < session:
            return
        self._cell[_TIMES + 8:_TIMES + 16] = struct.pack("d", time.monotonic())

    def _doubted(self) -> bool:
        return not self.state().confirmed

    def close(self) -> None:
        self._stop.set()
        if _HOLDS.get((self.url, self.game)) is self:
            del _HOLDS[(self.url, self.game)]
        with self._conn_lock:
            if self.conn is not None:
                if self.token is not None:  # a clean stop: nobody waits for this holder to come back
                    try:
                        lease.release(self.conn, self.game, self.token)
                    except Exception:  # noqa: BLE001 - the database is gone: the lease runs out alone
                        pass
                _let_go(self.conn)
                self.conn = None

    def __enter__(self) -> "DatabaseHold":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    # --- the watcher ------------------------------------------------------------------------

    def _watch(self) -> None:
        said = None  # the last refusal logged, so that each change is one line
        last = time.monotonic()
        while not self._stop.wait(STEP_SECONDS):
            held = self.state().held
            due = PROBE_SECONDS if held else TAKE_BACK_SECONDS
            if time.monotonic() - last < due and not (held and self._doubted()):
                continue
            last = time.monotonic()
            try:
                if held:
                    said = self._probe()
                else:
                    said = self._take_back(said)
            except Exception:  # the watcher must go on: a surprise is logged once per kind
                if said != "surprise":
                    LOG.exception("terrabank: the watcher of the hold on %s failed", self.where)
                said = "surprise"

    def _probe(self) -> str | None:
        asked = time.monotonic()
        with self._conn_lock:
            if self._stop.is_set():
                return None
            try:
                with deadline(lambda: self.conn, PROBE_DEADLINE):  # a cut is a lost hold within seconds
                    self._look()
                self._answered(asked)
                return None
            except Exception as exc:
                reason = first_line(exc)
                self.conn.close()
                self.conn = None
        now = self.state()
        self._set(False, now.game_id, now.epoch)
        LOG.warning("terrabank: lost the hold on %s (%s): commands are refused until it is taken back",
                    self.where, reason)
        return "lost"

    def _look(self) -> None:
        """The watcher's question to the hold's connection: its lease renewed when due, else SELECT 1."""
        if self.token is not None and time.monotonic() - self._renewed >= lease.RENEW_SECONDS:
            lease.renew(self.conn, self.game, self.token, _name(self.who), self.shared)
            self._renewed = time.monotonic()
        else:
            self.conn.execute("SELECT 1")

    def _take_back(self, said: str | None) -> str | None:
        before, asked = self.state(), time.monotonic()
        try:
            conn, game_id, epoch, holder = _take(self.url, self.game, self.who, self.shared, self.token)
        except StorageError:
            return said  # PostgreSQL does not answer yet: already said
        if conn is None:
            if said != holder:
                self._set(False, before.game_id, before.epoch, holder)
                LOG.warning("terrabank: cannot take back the hold on %s: %s holds it now; commands stay "
                            "refused here (stop one of the two)", self.where, holder)
            return holder
        with self._conn_lock:
            if self._stop.is_set():
                _let_go(conn)
                return said
            self.conn = conn
            self._renewed = time.monotonic()  # _take wrote the lease again
        self._set(True, game_id, epoch, asked=asked, session=opened_at(conn))
        if before.game_id is not None and game_id != before.game_id:
            LOG.warning("terrabank: took back the hold on %s, but it is another game now (terrabank init "
                        "--force ran meanwhile): commands stay refused; %s", self.where,
                        "this server stops, for its supervisor to start it on the new game" if _ON_REPLACED
                        else "restart this server to serve the new game")
            for callback in _ON_REPLACED:
                callback()
        else:
            # The epoch is the fence's number; a queue's servers share a negative one: said without its sign.
            LOG.warning("terrabank: took back the hold on %s (epoch %s%s): commands are booked again", self.where,
                        abs(epoch), ", shared by the servers on one queue" if epoch < 0 else "")
        return None


def _take(url: str, game: str, who: str, shared: bool, token: str | None = None):
    """(connection, game number, epoch, None) holding `game`, or (None, None, 0, holder) when another holds
    it, by its lock or its lease. `token`: this hold's lease, written (or written again) here; None: no lease."""
    where = f"game {game!r} in {display_url(url)}"
    conn = connect(url)
    try:
        with pg_errors(where):
            ensure_schema(conn)
            lease.ensure(conn)
            # Seen by the next one refused (pg_stat_activity), so its sentence can say who holds the game.
            name = _name(who)
            conn.execute("SELECT set_config('application_name', %s, false)", (name[:63],))
            for setting, seconds in (("tcp_keepalives_idle", 10), ("tcp_keepalives_interval", 10),
                                     ("tcp_keepalives_count", 4)):
                conn.execute("SELECT set_config(%s, %s, false)", (setting, str(seconds)))
            if token is not None:  # taking back: this holder's session from before a network cut goes first
                lease.end_old_session(conn, game, token)
            take = "pg_try_advisory_lock_shared" if shared else "pg_try_advisory_lock"
            got = conn.execute(f"SELECT {take}(%s, %s)", (HOLD_LOCK_SPACE, lock_key(game))).fetchone()[0]
            # The lock is forgotten by a restart of PostgreSQL; the leases are not (journal_pg_lease.py).
            holder = _holder(conn, game) if not got else lease.blocking(conn, game, token or "", shared)
            if holder is not None:  # a shared lock may have been got, and the lease refused it
                _let_go(conn)
                return None, None, 0, holder
            # The fence: a new epoch for a holder alone; holders through a queue share theirs (negative).
            epoch = ("CASE WHEN hold_epoch < 0 THEN hold_epoch ELSE -nextval('terrabank.hold_epochs') END"
                     if shared else "nextval('terrabank.hold_epochs')")
            row = conn.execute(f"UPDATE terrabank.games SET hold_epoch = {epoch} WHERE name = %s "
                               "RETURNING id, hold_epoch", (game,)).fetchone()
            if token is not None:
                lease.renew(conn, game, token, name, shared)
    except BaseException:
        conn.close()
        raise
    return conn, (row[0] if row else None), (row[1] if row else 0), None


def _let_go(conn) -> None:
    """Unlock, then close. Closing alone lets PostgreSQL drop the lock when the session's backend exits, a
    moment after this process has gone on: the command typed next (`init --force` right after `init`) was
    refused by the lock of the very process that asked."""
    try:
        with deadline(lambda: conn, PROBE_DEADLINE):
            conn.execute("SELECT pg_advisory_unlock_all()")
    except Exception:  # noqa: BLE001 - the database is gone or cut: the lock ends with the session
        pass
    conn.close()


def _name(who: str) -> str:
    return f"{who} on {socket.gethostname()}, process {os.getpid()}"


def hold(url: str, game: str, who: str, shared: bool = False, watch: bool = True,
         lease_it: bool = True) -> DatabaseHold:
    """Hold game `game` of the database at `url` for `who`, or BankError("bank_running") naming the holder.
    `lease_it`: also write a lease that outlives a restart of PostgreSQL (a server's; not a one-off
    command's, which a restart ends anyway)."""
    token = uuid.uuid4().hex if lease_it else None
    conn, game_id, epoch, holder = _take(url, game, who, shared, token)
    if conn is None:
        raise BankError("bank_running", f"the bank is already running on game {game!r} in {display_url(url)} "
                        f"({holder}): {STOP_HINT} on that machine, then run this command again; nothing was "
                        "changed", path=game)
    return DatabaseHold(url, game, who, shared, conn, game_id, epoch, watch, token)


def _holder(conn, game: str) -> str:
    """Who holds the game, as its connection named itself; a plain phrase when it cannot be seen."""
    row = conn.execute(
        "SELECT a.application_name FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid "
        "WHERE l.locktype = 'advisory' AND l.granted AND l.classid::bigint = %s AND l.objid::bigint = %s "
        "AND l.objsubid = 2 AND l.pid <> pg_backend_pid() LIMIT 1",
        (HOLD_LOCK_SPACE, lock_key(game) & 0xFFFFFFFF)).fetchone()
    return row[0] if row and row[0] else "another terrabank process"
