"""Is this process alive, and may it be sent commands?

- `/healthz`: the process answers (200 `{"ok": true, "process": <pid>}`): for systemd's watchdog or a plain
  `curl -f`; nothing is read but what the process knows (`degraded`, below).
- `/readyz` says whether this process can book (it said ready while every command was
  refused, and not ready while booking worked): 200 `{"ready": true, ...}` when the database
  answers, the process holds its game there (bank/store/journal_pg_hold.py) and it is still the
  game this process serves (not replaced by `init --force`), and the process is not draining
  (SIGTERM, bank/web/serving/stopping.py); else 503 with `reason`, one sentence, and the failing
  checks. A queue (Redis) that does not answer does not stop booking (the others' rows are read
  once a second instead of heard): still ready, with `degraded` saying why, in /healthz too, so a
  balancer polling readiness does not take the whole bank out with the queue. A game busy with the
  other processes' bookings (the look waits for the game's lock behind them) is ready too, `degraded`
  saying so, while the hold's watcher still hears the database and for up to BUSY_SECONDS. A game file whose
  disk filled up (or went read-only) under the bank is not ready while the disk says so (bank/web/write_fault.py).
  nginx (deploy/nginx-terrabank.conf) takes a process out after failed requests
  (`max_fails`) and retries only idempotent requests on the next one; a load balancer
  with active checks, or `compose`, polls `/readyz`.

And the log: a database that stops answering is one line ("lost the database"), and one
when it answers again, instead of the ticker's traceback every second; when the hold on the
game went with it, the hold's watcher's two lines say it ("lost the hold", "took back the
hold") and these are not said: one outage, two lines per `serve` (peers.py says the queue's).
"""

from __future__ import annotations

import logging
import os
import threading
import time

from flask import Blueprint, current_app, jsonify

from bank.store import storage_url
from bank.store.journal_pg_deadline import LOCK_WAIT
from bank.store.journal_pg_hold import PROBE_SECONDS as HOLD_PROBE_SECONDS
from bank.store.storage import StorageError
from bank.web.serving import log_lines
from bank.web.serving import stopping
from bank.web import write_fault

bp = Blueprint("health", __name__)
LOOK_SECONDS = 0.5  # the longest /readyz waits for the command path's answer: a balancer's probe times out at 1-2 s
# A look still waiting this long is not "busy" any more: a command waits as long for the game's lock, then is
# refused (lock_timeout, bank/store/journal_pg_connect.py SESSION_LIMITS).
BUSY_SECONDS = LOCK_WAIT
# A command refused for the hold or the game is said by the hold's own checks below, not as a silent database.
_NOT_THE_DATABASE = ("hold_lost", "hold_taken", "game_replaced")
LOG = logging.getLogger("terrabank.health")
DATABASE_LOST = ("database_unreachable", "database_connection_lost")
# One outage, one line each way, per process and game: held while the database is said lost, by
# whichever app of the game met it first. Per app it was said twice in a served process (the start-up app,
# forked into the worker with the logger's filter, and the serving app).
_DOWN: dict = {}  # the game's db -> its lock
_DOWN_MADE = threading.Lock()
_LATEST: dict = {}  # "app": the app registered last, the one serving in this process (the worker's)


@bp.get("/healthz")
def healthz():
    # The process id tells an operator (and the spread test) which of several processes answered.
    degraded = _degraded(current_app._get_current_object())
    return jsonify({"ok": True, "process": os.getpid(), **({"degraded": degraded} if degraded else {})})


def _degraded(app) -> str | None:
    """Why this process works, but less well (the queue does not answer), or None."""
    peers = app.extensions.get("terrabank_peers")
    if peers is None or peers.listening.is_set():
        return None
    return (f"the queue ({peers.url}) does not answer: commands are booked, and the other processes' rows "
            "show here within a second instead of at once")


@bp.get("/readyz")
def readyz():
    app = current_app._get_current_object()
    checks, reasons = {}, []
    held = storage_url.hold_state(app.extensions["terrabank_health"].db, app.extensions["terrabank"].config)
    health = _watch(app)
    failed = health.look()  # the command path, asked within LOOK_SECONDS, never longer
    busy = _busy(health, failed, held)
    if busy:
        failed = None
    checks["database"] = failed is None or failed.code in _NOT_THE_DATABASE
    if not checks["database"]:
        reasons.append(f"the database does not answer ({failed.code})")
    unwritable = write_fault.reason(app)  # a full or read-only disk: the look above reads, and finds it well
    if unwritable:
        checks["writable"] = False
        reasons.append(unwritable)
    if held is not None:
        checks["hold"] = held.held and held.confirmed
        if not held.held:
            reasons.append("the bank lost its hold on the game in the database; it is taking it back"
                           + (f" ({held.holder} holds it meanwhile)" if held.holder else ""))
        elif not held.confirmed:
            reasons.append("a connection to the database failed; the bank is asking whether it still holds the game")
        elif held.replaced:
            checks["game"] = False
            reasons.append("the game was replaced by `terrabank init --force` while this process's hold was lost; "
                           "restart this process to serve the new game")
    peers = app.extensions.get("terrabank_peers")
    if peers is not None:
        checks["queue"] = peers.listening.is_set()
    if app.extensions["terrabank_health"].draining.is_set() or stopping.STOPPING.is_set():
        checks["draining"] = True
        reasons.append("the process is stopping")
    if reasons:
        return jsonify({"ready": False, "reason": "; ".join(reasons), "checks": checks}), 503
    degraded = "; ".join(filter(None, (_degraded(app), busy)))
    return jsonify({"ready": True, "checks": checks, **({"degraded": degraded} if degraded else {})})


def _busy(health: "Health", failed: StorageError | None, held) -> str | None:
    """Why a slow look is a busy game, not a silent database, or None.

    Every booking of a PostgreSQL game takes the game's lock with its BEGIN, and so does the look: with
    several processes booking on a loaded machine it waited over LOOK_SECONDS behind their commands, and
    /readyz said "the database does not answer" (503) while every command booked. The hold's watcher is
    the witness: its own connection answered within its last probe, and says a cut within 3 s
    (journal_pg_hold PROBE_DEADLINE). Past BUSY_SECONDS the look is a refusal, as a command's wait is."""
    if failed is None or failed.code != "database_slow" or held is None:
        return None  # a game in a SQLite file has no such witness: slow is said as slow
    waited = health.looking_for()
    if waited is None or waited >= BUSY_SECONDS or not (held.held and held.confirmed):
        return None
    return (f"the game is busy: the command path has waited {waited:.1f} s behind other bookings, "
            "while the database answers this process's hold")


class Health:
    """One app's health: what `db` it serves, whether it is draining, and the database's one-line log."""

    def __init__(self, app, db):
        self.app, self.db = app, db
        self.draining = threading.Event()  # set by whoever stops the process gracefully
        self._looking: "_Look | None" = None  # the command path's look in flight, shared by every /readyz
        self._looking_lock = threading.Lock()
        with _DOWN_MADE:  # held while the database is said lost: one line each way, per process and game
            self._down = _DOWN.setdefault(str(db), threading.Lock())

    def look(self, wait: float = LOOK_SECONDS) -> StorageError | None:
        """What a command would meet now (bank probe: the hold, the writer, BEGIN): None when it would book.

        Asked in a thread of its own, one look at a time: a /readyz waits for it at most `wait` seconds,
        and one that finds it still running (a statement sent into a network cut) says so at once, so
        readiness never hangs on a dead socket (19.9 s, then time-outs, during a cut)."""
        with self._looking_lock:
            look = self._looking
            if look is None or look.done.is_set():
                look = self._looking = _Look(self.app.extensions["terrabank"].bank.probe)
        if not look.done.wait(wait):
            return StorageError("database_slow", f"the command path did not answer within {wait:g} s "
                                f"(asked {time.monotonic() - look.started:.1f} s ago)")
        if look.failed is not None and look.failed.code in DATABASE_LOST:
            self.lost(look.failed)
        return look.failed

    def looking_for(self) -> float | None:
        """Seconds the look in flight has run (None when none is: the last one ended, with its answer)."""
        look = self._looking
        return None if look is None or look.done.is_set() else time.monotonic() - look.started

    def lost(self, exc: StorageError) -> bool:
        """Watch for the database's return, once per outage; True if this call started the watch. The
        line is said by `_until_back`, unless the hold's watcher says the outage (`_hold_says_it`)."""
        if not self._down.acquire(blocking=False):
            return False
        self._tell_pages(False)
        threading.Thread(target=self._until_back, args=(exc.message,), name="database watch", daemon=True).start()
        return True

    def _tell_pages(self, reachable: bool) -> None:
        """Every page of this process hears it (static/js/live.js: its badge says "the bank cannot reach its
        database", then that it does again): before, a cut process's pages got no rows and no word."""
        try:
            self.app.extensions["socketio"].emit("database", {"reachable": reachable})
        except Exception:  # noqa: BLE001 - the log said it; a page that misses it sees its commands refused
            LOG.debug("could not tell the pages", exc_info=True)

    def _hold_says_it(self) -> bool:
        """Whether this process's hold on the game is lost: its watcher (in Gunicorn's master, whose state
        the worker reads) said so in its own line and will say when it takes it back. One outage of
        PostgreSQL is then two lines from the whole `serve`, not four (a lost/answers pair beside
        the hold's)."""
        held = storage_url.hold_state(self.db, self.app.extensions["terrabank"].config)
        return held is not None and not held.held

    def _until_back(self, why: str) -> None:
        said, failed = False, 0
        try:
            # The hold's watcher probes every second: past two, a lost hold is known to the worker too.
            time.sleep(2 * HOLD_PROBE_SECONDS)
            while True:
                try:
                    self.app.extensions["terrabank"].bank.catch_up()
                except StorageError:
                    # Said once a second look fails too: a first may meet the next outage (PostgreSQL restarted
                    # again just after it answered) before the hold's watcher says it, which was then said twice
                    # (in 1 of 10 restarts 2 s apart, a probe: this pair beside the hold's).
                    failed += 1
                    if not said and failed > 1 and not self._hold_says_it():
                        LOG.warning("terrabank: lost the database (%s): commands are refused until it is back", why)
                        said = True
                    time.sleep(1.0)
                    continue
                if said:
                    LOG.warning("terrabank: the database answers again")
                self._tell_pages(True)
                return
        finally:
            self._down.release()


class _Look:
    """One run of `probe` in its own thread: whether it ended, and its StorageError if it failed."""

    def __init__(self, probe):
        self.started, self.done, self.failed = time.monotonic(), threading.Event(), None
        threading.Thread(target=self._run, args=(probe,), name="readiness look", daemon=True).start()

    def _run(self, probe) -> None:
        try:
            probe()
        except StorageError as exc:
            self.failed = exc
        except Exception as exc:  # noqa: BLE001 - a surprise is a reason not to be ready, said with its name
            self.failed = StorageError("storage_failed", f"{type(exc).__name__}: {exc}")
        finally:
            self.done.set()


class _OneLinePerOutage(logging.Filter):
    """The ticker's "tick failed" (bank/web/push/ticker.py) with a lost database: one line, not a traceback a second."""

    def __init__(self, app):
        super().__init__()
        self.app = app

    def filter(self, record: logging.LogRecord) -> bool:
        exc = record.exc_info[1] if record.exc_info else None
        if isinstance(exc, StorageError) and exc.code in DATABASE_LOST + _NOT_THE_DATABASE:
            if exc.code in DATABASE_LOST:
                _watch(_LATEST.get("app", self.app)).lost(exc)  # an app whose bank is open, not the start-up one
            return False  # said once by Health (the database) or by the hold's watcher
        return True


def _watch(app) -> Health:
    return app.extensions["terrabank_health"]


def register(app, db) -> None:
    """The routes, the one-line log of the database; called by create_app."""
    app.extensions["terrabank_health"] = Health(app, db)
    _LATEST["app"] = app
    app.register_blueprint(bp)
    if not any(isinstance(f, _OneLinePerOutage) for f in app.logger.filters):  # hosted games share the logger
        app.logger.addFilter(_OneLinePerOutage(app))
    # Timestamped lines; a page reconnecting during an outage is the one line too, not Engine.IO's traceback.
    log_lines.install(app, _OneLinePerOutage(app))
