"""A game the bank cannot write (its file's disk full or made read-only under it, PostgreSQL's disk full): said,
and said when it is over.

Before, a full disk under a serving bank refused every command with its sentence (a 503 the pages show and send
again) while the log said nothing at all, and /readyz answered 200 "ready": its look reads the file and takes
its write lock, which a full disk leaves working. The one who could free the space (whoever reads the log or
watches readiness) was told nothing. Now:
- the first command refused for it is one log line: the sentence, what is wrong and what to do;
- /readyz answers 503 with that sentence while the disk still has no room (or is still read-only): looked at
  on the disk itself, so it is ready again as soon as there is room, before any command books (else a
  balancer that took the process out for it would wait for a booking it prevents);
- the first command booked after it is one more line, with how many were refused meanwhile and for how long.
So for PostgreSQL's own disk full (`database_disk_full`), whose disk this process cannot look at: /readyz says it
while commands are refused for it, RECENT_SECONDS after the last at most.
"""

from __future__ import annotations

import logging
import threading
import time
from pathlib import Path

from bank.store.storage import StorageError, has_room, writable

FAULTS = ("disk_full", "database_read_only", "database_disk_full")
# A fault on a disk this process cannot look at (PostgreSQL's) is said on /readyz this long after the last command
# refused for it: pages send theirs again every few seconds while it lasts; a balancer that took the process out
# for it sends none, and must see it ready again to let one through.
RECENT_SECONDS = 15.0
KEY = "terrabank_write_fault"
LOG = logging.getLogger("terrabank.write_fault")


class _Fault:
    def __init__(self):
        self.lock = threading.Lock()
        self.exc: StorageError | None = None  # the first refusal of this outage, None when there is none
        self.refused, self.since, self.last = 0, 0.0, 0.0


def _of(app) -> _Fault:
    return app.extensions.setdefault(KEY, _Fault())


def refused(app, exc: StorageError) -> None:
    """A command was refused for `exc`: the outage's first line when it is a write fault."""
    if exc.code not in FAULTS:
        return
    fault = _of(app)
    with fault.lock:
        fault.refused, fault.last = fault.refused + 1, time.monotonic()
        if fault.exc is None:
            fault.exc, fault.since = exc, time.monotonic()
            LOG.warning("terrabank: commands are refused until the bank can write the game again: %s", exc.message)


def booked(app) -> None:
    """A command was booked: the outage's last line, if there was one."""
    fault = app.extensions.get(KEY)
    if fault is None or fault.exc is None:  # the common case: no lock taken
        return
    with fault.lock:
        if fault.exc is None:
            return
        LOG.warning("terrabank: the bank writes the game again: commands are booked again "
                    "(%d refused over %.0f s, each booked when its page sent it again)", fault.refused,
                    time.monotonic() - fault.since)
        fault.exc, fault.refused = None, 0


def reason(app) -> str | None:
    """The sentence of a write fault still there (no room on the disk yet, still read-only), else None."""
    fault = app.extensions.get(KEY)
    exc = None if fault is None else fault.exc
    if exc is None:
        return None
    path = exc.params.get("path")
    if path and _over(exc.code, Path(path)):
        return None
    if not path and time.monotonic() - fault.last > RECENT_SECONDS:
        return None
    return exc.message


def _over(code: str, path: Path) -> bool:
    """Whether the disk says the fault is over: room on it, or writable again."""
    return writable(path) if code == "database_read_only" else has_room(path)
