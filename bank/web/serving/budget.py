"""A time budget for the database work of each request that changes something (a command, a log-in).

Each round trip to PostgreSQL has its own deadline (bank/store/journal_pg_deadline.py), but a
request makes several (its session's look-up and touch, the command's BEGIN and COMMIT) and may
open a connection: in a network cut their deadlines added up, and a command was answered after
more than 5 s, past what a page waits before it says the bank does not answer. Inside the budget,
once the database failed the request, every later round trip also ends by the request's deadline,
and no connection is opened once too little time is left for its connect: the request is answered
503 with Retry-After within REQUEST_SECONDS and a little Python. A request only slow (a loaded
machine, a password's hash) with a database that answers is never cut for its budget. Reads (GET) keep their per-round-trip deadlines only: an export or a page of
many rows may rightly take longer. A live page's socket is left alone: it holds its thread for
hours, and its events are not one request.
"""

from __future__ import annotations

from bank.store.journal_pg_deadline import request_budget

REQUEST_SECONDS = 4.0  # a command answered within 5 s: its database work, then its reply
_READS = ("GET", "HEAD", "OPTIONS")
SOCKET_PATH = "/socket.io"


class Budgeted:
    """WSGI wrapper: the app's work on a request that changes something runs within REQUEST_SECONDS."""

    def __init__(self, app, seconds: float = REQUEST_SECONDS):
        self.app, self.seconds = app, seconds

    def __call__(self, environ, start_response):
        if environ.get("REQUEST_METHOD", "GET") in _READS or SOCKET_PATH in environ.get("PATH_INFO", ""):
            return self.app(environ, start_response)
        with request_budget(self.seconds):
            return self.app(environ, start_response)
