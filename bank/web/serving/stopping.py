"""A process asked to stop (SIGTERM) says so before it stops answering (operable).

`systemctl stop`, a redeploy or compose sends SIGTERM. Gunicorn's worker would stop at once;
with a drain window (TERRABANK_DRAIN_SECONDS, 0 by default: a Pi's `serve` stops as before)
it keeps serving for that long while `/readyz` answers 503 "the process is stopping", so a
load balancer that polls readiness sends new pages elsewhere before the process goes, and
commands in flight finish. Then the worker stops as Gunicorn does (graceful_timeout later).
"""

from __future__ import annotations

import os
import threading

STOPPING = threading.Event()  # one per process: every game it serves is stopping with it
ENV = "TERRABANK_DRAIN_SECONDS"
MAX_DRAIN = 60.0


def drain_seconds(environ=os.environ) -> float:
    """The drain window, from the environment; a wrong value is a clear error at start, not a surprise at stop."""
    raw = environ.get(ENV, "").strip()
    if not raw:
        return 0.0
    try:
        seconds = float(raw)
    except ValueError:
        raise SystemExit(f"{ENV}={raw!r} is not a number of seconds: set it to 0-{MAX_DRAIN:g}, or remove it")
    if not 0 <= seconds <= MAX_DRAIN:
        raise SystemExit(f"{ENV}={raw!r} is out of range: set it to 0-{MAX_DRAIN:g} seconds")
    return seconds


def begin(drain: float, stop) -> None:
    """SIGTERM arrived: say so at once (readiness), then call `stop()` after the drain window."""
    STOPPING.set()
    if drain <= 0:
        stop()
        return
    timer = threading.Timer(drain, stop)
    timer.daemon = True
    timer.start()
