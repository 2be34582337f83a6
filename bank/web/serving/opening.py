"""A worker whose game cannot be opened yet answers 503 with the reason, and opens it as soon as it can.

Gunicorn starts a worker again after a crash, an out-of-memory kill or its watchdog's timeout, and a reload
starts a new one. A worker whose app could not be built exited "failed to boot", and Gunicorn's master then
ends itself (status 3) and every worker with it: a worker lost while PostgreSQL was away, or while another
program held the SQLite file's write lock (a database browser, `sqlite3` inside a transaction), or a reload
whose check passed a moment before the database went, took the whole `serve` down, and on a Pi with no
supervisor the bank stayed down after the database came back.

So a worker whose app fails to build for a reason that passes by itself (`TRANSIENT`: the database does not
answer, or another program holds its lock) serves `Opening` instead: every request gets a 503 with the
sentence of the failure (JSON under /api, with `Retry-After`; the pages send a command again with its key,
booked once), `/readyz` 503, `/healthz` 200 with `degraded`, and a thread builds the app again every
RETRY_SECONDS, the worker's loop (and its heartbeat) running meanwhile. The first app built takes over at
once. Two log lines: when the game cannot be opened, and when it is. Any other failure (a damaged file, a
game replaced, a config the game refuses) ends the worker as a failed boot, as before: that needs the
operator, and a supervisor's restart says it again.

Flask-free: Gunicorn's master imports worker.py, which imports this.
"""

from __future__ import annotations

import json
import logging
import os
import threading

TRANSIENT = ("database_unreachable", "database_connection_lost", "database_busy")
RETRY_SECONDS = 2.0
BOOT_ERROR = 3  # Gunicorn's Arbiter.WORKER_BOOT_ERROR: its master ends, as for any worker that cannot boot
LOG = logging.getLogger("terrabank.opening")


def transient(exc: BaseException) -> bool:
    """Whether building the app failed for a reason that passes without the operator."""
    from bank.store.storage import StorageError

    return isinstance(exc, StorageError) and exc.code in TRANSIENT


class Opening:
    """The WSGI app of a worker until its game opens (`worker.wsgi` is then the game's own app)."""

    def __init__(self, worker, failure: BaseException):
        self.worker, self.failure = worker, failure
        self.app = None
        self.tries = 1
        self._woken = threading.Event()
        LOG.warning("terrabank: this worker cannot open the game yet (%s); it answers 503 and tries again every "
                    "%.0f s", _said(failure), RETRY_SECONDS)
        threading.Thread(target=self._open_when_possible, name="terrabank-opening", daemon=True).start()

    def __call__(self, environ, start_response):
        app = self.app
        if app is not None:  # a request that came in just as the game opened
            return app(environ, start_response)
        return self._unavailable(environ, start_response)

    def stop(self) -> None:
        self._woken.set()

    def _open_when_possible(self) -> None:
        while not self._woken.wait(RETRY_SECONDS) and self.worker.alive:
            self.tries += 1
            try:
                app = self.worker.app.wsgi()  # Gunicorn's BaseApplication: load() again until one succeeds
            except Exception as exc:  # noqa: BLE001 - the next try, or the end of the worker, below
                if transient(exc):
                    self.failure = exc
                    continue
                LOG.exception("terrabank: this worker cannot open the game")
                os._exit(BOOT_ERROR)
            self.app = app
            self.worker.wsgi = app
            LOG.warning("terrabank: this worker opened the game (after %d tries) and serves it", self.tries)
            return

    def _unavailable(self, environ, start_response):
        from bank.web.serving import stopping

        path = environ.get("PATH_INFO", "")
        exc = self.failure
        reason = f"the game cannot be opened yet: {exc.message if hasattr(exc, 'message') else exc}"
        headers = [("Retry-After", "2"), ("Cache-Control", "no-store")]
        if path == "/healthz":
            status, body = "200 OK", {"ok": True, "process": os.getpid(), "degraded": reason}
        elif path == "/readyz":
            reasons = [reason] + (["the process is stopping"] if stopping.STOPPING.is_set() else [])
            status, body = "503 Service Unavailable", {"ready": False, "reason": "; ".join(reasons),
                                                       "checks": {"database": False}}
        elif path.startswith("/api/") or path.startswith("/trias/api/"):
            status = "503 Service Unavailable"
            body = {"error": {"code": getattr(exc, "code", "database_unreachable"),
                              "message": getattr(exc, "message", str(exc)), "params": getattr(exc, "params", {})}}
        else:
            data = (f"{reason}\nLa banque n'arrive pas à ouvrir la partie pour l'instant : rien n'est perdu, "
                    "réessayez dans quelques secondes.\n").encode()
            start_response("503 Service Unavailable", [("Content-Type", "text/plain; charset=utf-8"),
                                                       ("Content-Length", str(len(data))), *headers])
            return [data]
        data = json.dumps(body).encode()
        start_response(status, [("Content-Type", "application/json"), ("Content-Length", str(len(data))), *headers])
        return [data]


def _said(exc: BaseException) -> str:
    code = getattr(exc, "code", type(exc).__name__)
    return f"{code}: {getattr(exc, 'message', exc)}"
