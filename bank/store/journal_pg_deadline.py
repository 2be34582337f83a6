"""A deadline for each round trip a request makes to PostgreSQL, kept by this process.

A network cut drops packets and closes nothing. The connection's TCP settings (journal_pg_connect.py:
5 s user timeout, keepalives) bound a socket, not a request: a statement sent and acknowledged
before the cut waits for keepalives to fail, tens of seconds in a measured cut, while /readyz and
the pages wait with it. PostgreSQL's own timeouts (statement_timeout, lock_timeout,
set at connect) bound what the server does, but a server that cannot be reached sends nothing.

A request makes several round trips (its session's look-up and touch, the command's BEGIN and COMMIT)
and may need a new connection: each bounded alone, a cut cost their sum. Inside `request_budget(seconds)`
(bank/web/serving/budget.py: a command, a log-in), once the database failed the request (a round trip
without an answer in time, a connection that could not be made), every later round trip ends by the
request's own deadline too, and a new connection is not even tried once less time is left than its
connect could wait. A request that is only slow (a loaded machine, a password's hash) with a database
that answers is never cut for its budget: that would refuse work a healthy database would have booked.

So a round trip on the command path runs under `deadline(conn)`: one watchdog thread per process
looks every WATCH_STEP seconds, and a round trip still waiting after its seconds has its socket
shut down (both ways): the read waiting in libpq returns at once, psycopg raises its
OperationalError, the caller says `database_connection_lost` (a 503 the page sends again with the
same id) and closes the connection (journal_pg_connect.settle). Shutting the socket down is
local: nothing is sent, so it works in a cut.
"""

from __future__ import annotations

import itertools
import os
import socket
import threading
import time
from contextlib import contextmanager

ROUND_TRIP = 3.0  # seconds one round trip of a command may take: the command answered within 5 s in a cut
# The longest a session waits for a lock (PostgreSQL's lock_timeout): a second under ROUND_TRIP, so a writer
# queued behind the others hears "busy" from the server before its round trip's deadline cuts the connection.
# Equal (both 3 s), the cut won the race on a loaded machine: "the database connection was lost", a doubt on the
# hold and a new connection, for a game that was only busy.
LOCK_WAIT = ROUND_TRIP - 1.0
WATCH_STEP = 0.1
_ARMED: dict[int, tuple] = {}  # token -> (monotonic deadline, a callable giving the connection, its Deadline)
_LOCK = threading.Lock()
_COUNTER = itertools.count()
_WATCHER: list = []  # the watchdog thread of this process (a forked child starts its own)
# `until`: the time.monotonic() by which this thread's request must be answered; `failed`: whether the
# database already failed it (from then on the budget bounds its round trips and connections).
_REQUEST = threading.local()


def _forked_child() -> None:
    """A forked child's copies of the parent's round trips are not its own to cut (their sockets are the parent's)."""
    global _LOCK
    _LOCK = threading.Lock()
    _ARMED.clear()
    _WATCHER.clear()


os.register_at_fork(after_in_child=_forked_child)


class Deadline:
    """What `deadline` gives the block: `expired` once its round trips were cut short."""

    __slots__ = ("expired",)

    def __init__(self):
        self.expired = False


@contextmanager
def request_budget(seconds: float):
    """The database work of this thread's request ends within `seconds` (an outer budget, if shorter, stays)."""
    outer, failed = getattr(_REQUEST, "until", None), getattr(_REQUEST, "failed", False)
    until = time.monotonic() + seconds
    _REQUEST.until = until if outer is None else min(outer, until)
    # A pool thread serves one request after another: a failure met outside any budget (a page's read) is not
    # this request's.
    _REQUEST.failed = failed if outer is not None else False
    try:
        yield
    finally:
        _REQUEST.until, _REQUEST.failed = outer, failed


def failed() -> None:
    """The database failed this thread's request (no answer in time, no connection): its budget binds now."""
    _REQUEST.failed = True


def left() -> float | None:
    """Seconds left of this thread's request budget once the database failed it; None otherwise."""
    until = getattr(_REQUEST, "until", None)
    if until is None or not getattr(_REQUEST, "failed", False):
        return None
    return until - time.monotonic()


@contextmanager
def deadline(connection, seconds: float = ROUND_TRIP):
    """Run the block's round trips on `connection()` (a callable: the block may replace the connection)
    within `seconds`, and within the request's budget if any, else cut them short (the block then raises
    psycopg's OperationalError)."""
    token, kept = next(_COUNTER), Deadline()
    until, budget = time.monotonic() + seconds, left()
    with _LOCK:
        _ARMED[token] = (until if budget is None else min(until, time.monotonic() + budget), connection, kept)
        if not _WATCHER or not _WATCHER[0].is_alive():
            _WATCHER[:] = [threading.Thread(target=_watch, name="postgres deadlines", daemon=True)]
            _WATCHER[0].start()
    try:
        yield kept
    finally:
        with _LOCK:
            _ARMED.pop(token, None)
        if kept.expired:
            failed()


def _watch() -> None:
    while True:
        time.sleep(WATCH_STEP)
        now = time.monotonic()
        with _LOCK:
            late = [(token, get, kept) for token, (until, get, kept) in _ARMED.items() if until <= now]
            for token, _, kept in late:
                del _ARMED[token]  # cut once
                kept.expired = True
        for _, get, _ in late:
            _cut(get())


def _cut(conn) -> None:
    """Shut `conn`'s socket down both ways: a read or write waiting on it ends now, with an error."""
    try:
        if conn is None or conn.closed:
            return
        fd = conn.pgconn.socket
        dup = socket.socket(fileno=socket.dup(fd))  # shutdown acts on the socket, shared by both descriptors
        try:
            dup.shutdown(socket.SHUT_RDWR)
        finally:
            dup.close()
    except Exception:  # noqa: BLE001 - a connection closed meanwhile has nothing to cut
        pass
