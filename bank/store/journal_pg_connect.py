"""Connecting to PostgreSQL for the journal, what to say when it fails, and the games' names.

Every failure becomes a StorageError with a sentence saying what is wrong and what to
do: psycopg missing, a URL that cannot be read, a server that cannot be reached or
refuses the log-in, a connection lost in the middle. Never a traceback.
"""

from __future__ import annotations

import logging
import os
import time
import traceback
import weakref
from contextlib import contextmanager

from bank.store.journal_pg_deadline import LOCK_WAIT, failed as request_failed, left as request_left
from bank.store.journal_pg_schema import LOCK_SPACE, ensure_schema
from bank.store.storage import StorageError, display_url  # noqa: F401 (its callers name it here)

CONNECT_TIMEOUT = 2  # seconds (libpq's least), unless the URL says otherwise: a request may need two connections in a cut
# What the server itself gives a session (requests that hang in a partition): a statement at most
# 10 s, a lock waited for at most LOCK_WAIT, 2 s (the game's lock is held for one round trip), and a transaction
# left open 10 s (a writer cut in the middle of its COMMIT's pipeline) ends, letting the others book. Not for
# `migrate` (journal_pg_connect.connect patient=True), whose copy is one long transaction.
SESSION_LIMITS = (f"-c statement_timeout=10s -c lock_timeout={int(LOCK_WAIT * 1000)}ms "
                  "-c idle_in_transaction_session_timeout=10s")
# A network cut drops packets and closes nothing: without these a statement sent into it
# waited for TCP's own retries (a quarter of an hour), and /readyz with it. Data unacknowledged for
# 5 s, or an idle connection unanswered for 5 + 3 x 2 s, fails, and the caller says the database is lost.
CUT_SETTINGS = {"tcp_user_timeout": 5000, "keepalives": 1, "keepalives_idle": 5, "keepalives_interval": 2,
                "keepalives_count": 3}
_OPEN: "weakref.WeakSet" = weakref.WeakSet()  # this process's connections, made inert in a forked child
# When each connection's session began (time.monotonic, one clock for every process of the machine): a kept
# connection found dropped tells the hold something only if its session is younger than the hold's own.
_OPENED: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()
_ON_LOST: list = []  # called when a connection fails or cannot be made (journal_pg_hold.doubt)
# A request may need two or three connections (its session, its touch, the command): in a network cut each
# waited CONNECT_TIMEOUT, 6 s in all. A URL whose connection just waited its whole timeout (no answer at all,
# not a refusal, which costs nothing) fails again at once for this long.
FAIL_FAST_SECONDS = 1.0
_FAILED: dict = {}  # url -> (time.monotonic() of the failure, its StorageError)


def on_lost(callback) -> None:
    """Call `callback(since)` whenever a connection of this process to PostgreSQL is found lost or refused:
    `since` is when the lost connection's session began, None when unknown or when no connection could be made."""
    _ON_LOST.append(callback)


def opened_at(conn) -> float | None:
    """When `conn`'s session began (time.monotonic), None for a connection not made by `connect`."""
    try:
        return _OPENED.get(conn)
    except TypeError:  # not weakly referable: not one of ours
        return None


def lost(since: float | None = None) -> None:
    """A connection failed: tell whoever keeps what depends on it (the hold's state, for readiness).
    `since`: when the failed connection's session began (`opened_at`), if known."""
    for callback in _ON_LOST:
        try:
            callback(since)
        except Exception:  # noqa: BLE001 - telling must never hide the failure being raised
            pass


class _PipelineExitNoise(logging.Filter):
    """psycopg logs a line when a pipeline whose statement failed is closed; the failure itself is raised
    (and said by pg_errors), so a refused row (an id taken, the hold's fence) is not also a log line."""

    def filter(self, record: logging.LogRecord) -> bool:
        return not str(record.msg).startswith("error ignored terminating")


logging.getLogger("psycopg").addFilter(_PipelineExitNoise())


def psycopg_module():
    """The psycopg module, or a StorageError saying how to install it."""
    try:
        import psycopg
    except ImportError:
        raise StorageError("postgres_driver_missing", "The database URL names PostgreSQL but psycopg is not "
                           "installed: run `.venv/bin/pip install 'terrabank[postgres]'` (or "
                           "`pip install 'psycopg[binary]'`), or remove TERRABANK_DATABASE_URL and "
                           "[storage] url to keep the game in the SQLite file.") from None
    return psycopg


def pipeline_supported() -> bool:
    return psycopg_module().Pipeline.is_supported()


def idle_status():
    from psycopg.pq import TransactionStatus
    return TransactionStatus.IDLE


def sound(conn) -> bool:
    """Whether `conn` may be used again: open, out of pipeline mode, no transaction left open or failed.

    A connection that met a lost server, a protocol error or a pipeline left busy ("cannot exit
    pipeline mode while busy") is neither closed nor broken in psycopg's eyes, yet every statement
    sent on it fails: reused, it refused every command of its process after a PostgreSQL restart."""
    from psycopg.pq import PipelineStatus

    return (not conn.closed and conn.pgconn.pipeline_status == PipelineStatus.OFF
            and conn.info.transaction_status == idle_status())


def settle(conn, exc: BaseException | None) -> bool:
    """After a failure on `conn`: rolled back and kept (True) when it was a refusal on a sound connection
    (a rule, a row another process booked first); closed (False) after any other, never used again."""
    failed = isinstance(exc, psycopg_module().OperationalError) or getattr(exc, "code", None) in (
        "database_connection_lost", "database_unreachable")
    if not failed and not conn.closed and conn.pgconn.pipeline_status == 0:
        if conn.info.transaction_status != idle_status():
            try:
                conn.execute("ROLLBACK")
            except Exception:  # noqa: BLE001 - the connection goes below
                pass
        if sound(conn):
            return True
    conn.close()
    return False


def reconnected(conn, url: str):
    """A new connection in place of `conn`, found dropped (closed here, and said: `lost`), for a writer."""
    since = opened_at(conn)
    conn.close()
    lost(since)
    fresh = connect(url)
    fresh.prepare_threshold = None  # a writer's: see PostgresJournal.transaction
    return fresh


def first_line(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    return text[0].strip() if text else type(exc).__name__


def connect(url: str, patient: bool = False):
    """A connection in autocommit mode (we open transactions ourselves), durable commits, SESSION_LIMITS
    unless `patient` (or the URL's own `options`)."""
    psycopg = psycopg_module()
    failed = _FAILED.get(url)
    if failed is not None and time.monotonic() - failed[0] < FAIL_FAST_SECONDS:
        request_failed()
        raise failed[1]
    budget = request_left()
    if budget is not None and budget < CONNECT_TIMEOUT:
        # libpq waits at least its 2 s for a server that does not answer: the request would outlive its budget.
        raise StorageError("database_unreachable", f"This request spent its time waiting for {display_url(url)} "
                           "and has none left to open a connection to it: nothing was recorded; send it again "
                           "in a moment, it is booked at most once.", url=display_url(url))
    try:
        params = psycopg.conninfo.conninfo_to_dict(url)
    except psycopg.ProgrammingError as exc:
        raise StorageError("bad_database_url", f"The database URL cannot be read ({first_line(exc)}): write it "
                           "as postgresql://USER@HOST:PORT/DATABASE (see docs/DEPLOY.md).") from None
    params.setdefault("connect_timeout", CONNECT_TIMEOUT)
    for setting, value in CUT_SETTINGS.items():
        params.setdefault(setting, value)
    params.setdefault("application_name", "terrabank")
    if not patient:
        params.setdefault("options", SESSION_LIMITS)
    conn, started = None, time.monotonic()
    try:
        conn = psycopg.connect(**params, autocommit=True)
        # A server configured with synchronous_commit=off could lose the last commits in a crash.
        conn.execute("SET synchronous_commit = on")
    except psycopg.Error as exc:  # the SET too: a server stopping between the two (a restart)
        # psycopg's connect that timed out keeps its half-made connection (and its socket) in its frame, which the
        # exception's traceback holds in a cycle: open until Python's cycle collector ran. In a network cut each
        # try to take the hold back left one (a master's descriptors 7 -> 35 over two 45 s cuts), and PostgreSQL
        # met them all when the cut healed. Its frames let go of it now.
        traceback.clear_frames(exc.__traceback__)
        if conn is not None:
            conn.close()
        lost()
        request_failed()
        refused = StorageError("database_unreachable", f"Cannot connect to {display_url(url)}: {first_line(exc)}. "
                               "Check that PostgreSQL runs (systemctl status postgresql) and that the URL's "
                               "host, port, user, password and database are right (see docs/DEPLOY.md); "
                               "nothing was recorded.", url=display_url(url))
        if time.monotonic() - started >= 0.9 * float(params["connect_timeout"]):
            _FAILED[url] = (time.monotonic(), refused)
        raise refused from None
    except BaseException:
        if conn is not None:
            conn.close()
        raise
    _OPEN.add(conn)
    _OPENED[conn] = started
    _FAILED.pop(url, None)
    return conn


def _disown_inherited() -> None:
    """In a process just forked: let go of every connection the parent opened, without ending it.

    A forked child shares its parent's sockets. Closing an inherited libpq connection sends
    PostgreSQL the Terminate message on the socket the parent still uses, and PostgreSQL ends
    the parent's session cleanly: Gunicorn's worker, ending (each stop, each worker restart),
    unwound through `serve`'s `with hold(...)` and so ended its master's hold on the game
    (journal_pg_hold.py: "lost the hold ... server closed the connection unexpectedly", commands
    refused until it was taken back under a new epoch). Here the child's copy of each socket is
    replaced by /dev/null before the connection is closed: its Terminate goes nowhere, the parent's
    session is untouched, and no use of the copy here can mix with the parent's messages.
    """
    inherited = list(_OPEN)
    _OPEN.clear()
    if not inherited:
        return
    nowhere = os.open(os.devnull, os.O_RDWR)
    try:
        for conn in inherited:
            if conn.closed:
                continue
            try:
                os.dup2(nowhere, conn.pgconn.socket, inheritable=False)
            except Exception:  # noqa: BLE001 - a connection already broken has no socket to protect
                pass
            conn.close()
    finally:
        os.close(nowhere)


os.register_at_fork(after_in_child=_disown_inherited)


@contextmanager
def pg_errors(where: str):
    """psycopg's errors as a StorageError sentence (a rule's refusal passes through untouched)."""
    psycopg = psycopg_module()
    try:
        yield
    except psycopg.errors.UniqueViolation as exc:
        if "command_id" in str(exc):
            raise StorageError("id_taken", f"Another process booked this command id in {where} at the same "
                               "moment: send the command again, it is answered as the retry it is.") from None
        # Each process claims the seq after the last row it folded (journal_pg.py): another process
        # booked it first. The caller folds that row and decides again (journal_api.retried).
        raise StorageError("journal_moved_on", f"Another process booked the same entry of {where} at the same "
                           f"moment ({first_line(exc)}): nothing was recorded; send the command again, it is "
                           "booked at most once.") from None
    except psycopg.errors.NotNullViolation as exc:
        if getattr(exc.diag, "table_name", None) not in ("chain", "clock_checkpoint"):
            raise StorageError("database_error", f"{where} refused the request ({first_line(exc)}); nothing was "
                               "recorded.") from None
        # The fence of journal_pg.append and of the time line's checkpoint: the game's row carries
        # another writer's hold epoch (journal_pg_hold.py).
        raise StorageError("hold_taken", f"Another process took {where} (a second server, or `terrabank init "
                           "--force`) while this server's hold on it was lost: nothing was recorded; this server "
                           "refuses commands until it holds the game again.") from None
    except psycopg.errors.DiskFull as exc:
        # SQLSTATE 53100, "could not extend file ...: No space left on device": the statement failed and its
        # transaction is rolled back, on a connection that stays sound (a WAL that cannot be written is no such
        # error: PostgreSQL stops, and the connection is lost). Before, it was taken for a lost connection: each
        # command closed its connection and opened another (294 in 10 s in a probe), the pages said "the
        # connection to the database was lost", readiness that the hold was in doubt, and the log nothing.
        raise StorageError("database_disk_full", f"The disk of the database holding {where} is full "
                           f"({first_line(exc)}): free some space on the database's machine, then send the "
                           "command again; nothing was recorded.") from None
    except psycopg.OperationalError as exc:
        lost()
        request_failed()
        raise StorageError("database_connection_lost", f"The connection to {where} failed ({first_line(exc)}): "
                           "the command may not have been recorded; send it again with the same id, "
                           "it is booked at most once.") from None
    except psycopg.Error as exc:
        raise StorageError("database_error", f"{where} refused the request ({first_line(exc)}); nothing was "
                           "recorded.") from None


def game_id_of(conn, name: str) -> int | None:
    r = conn.execute("SELECT id FROM terrabank.games WHERE name = %s", (name,)).fetchone()
    return r[0] if r else None


@contextmanager
def short_connection(url: str):
    """A connection for one administrative step (exists, rename, retire), closed after it."""
    conn = connect(url)
    try:
        with pg_errors(display_url(url)):
            ensure_schema(conn)
            yield conn
    finally:
        conn.close()


def game_exists(url: str, name: str) -> bool:
    with short_connection(url) as conn:
        return game_id_of(conn, name) is not None


def list_games(url: str) -> list[str]:
    """The names of the bank games in the database, in creation order (for a host's game list)."""
    with short_connection(url) as conn:
        # A name with a line break is a game being created (storage_url.PostgresTarget.temporary).
        # A Trias game (its kind "trias", bank/store/trias_store.py) belongs to the bank game it is named after.
        return [r[0] for r in conn.execute("SELECT name FROM terrabank.games g WHERE name IS NOT NULL "
                                           "AND strpos(name, E'\\n') = 0 AND NOT EXISTS (SELECT 1 FROM "
                                           "terrabank.meta m WHERE m.game = g.id AND m.key = 'config_text' "
                                           "AND m.value = 'trias') ORDER BY id")]


def game_summary(url: str, name: str) -> tuple[int, int] | None:
    """(number, commands booked by people: not the setup, not the clock's ticks) of the game named
    `name`, for what `init --force` says it replaces; None when there is no such game."""
    with short_connection(url) as conn:
        r = conn.execute("SELECT g.id, (SELECT count(*) FROM terrabank.journal j WHERE j.game = g.id "
                         "AND j.type NOT IN ('setup', 'tick')) FROM terrabank.games g WHERE g.name = %s",
                         (name,)).fetchone()
        return (r[0], r[1]) if r else None


def game_name_by_number(url: str, number: int) -> str | None:
    """The name a game carries now (a replaced game is kept under a dated name); None if retired."""
    with short_connection(url) as conn:
        r = conn.execute("SELECT name FROM terrabank.games WHERE id = %s", (number,)).fetchone()
        return r[0] if r else None


def retire_game(url: str, name: str, why: str) -> None:
    """Take a game's name away (its rows stay: nothing is ever deleted); no-op if no such game."""
    with short_connection(url) as conn, conn.transaction():
        conn.execute("UPDATE terrabank.games SET name = NULL, retired = %s WHERE name = %s", (why, name))


def rename_game(url: str, source: str, destination: str) -> str | None:
    """Give `source` the name `destination`; an existing `destination` keeps its rows under a
    dated name (as `init --force` keeps a dated copy of a file), which is returned."""
    with short_connection(url) as conn, conn.transaction():
        kept = None
        old = game_id_of(conn, destination)
        if old is not None:
            conn.execute("SELECT pg_advisory_xact_lock(%s, %s)", (LOCK_SPACE, old))
            kept = f"{destination}-{time.strftime('%Y%m%d-%H%M%S')}-{old}"
            conn.execute("UPDATE terrabank.games SET name = %s WHERE id = %s", (kept, old))
        conn.execute("UPDATE terrabank.games SET name = %s WHERE name = %s", (destination, source))
        return kept
