"""Work that waits until the reply's last byte is written: a command's live-update round.

A command wakes the app's broadcaster thread (bank/web/push/broadcaster.py). Woken before the
reply is out, that thread waits for the GIL, and takes it the moment the request's thread
lets go of it to write: Gunicorn writes the headers and the body in two calls, so the
facilitator's reply waited for a whole round of live updates between the two (0.1-0.3 ms
at p50 on an idle bank, more with phones connected; docs/PERFORMANCE.md). Run from the
reply's `close()`, which every WSGI server calls once the body is written, or when the
client has gone (Gunicorn and Werkzeug call it in a `finally`), the round starts after
the reply and is never lost.

Only the servers set this up (`serving.prepare`). Elsewhere (Flask's test client, which
closes a reply only when the test does) `later()` runs the work at once, as before.
"""

from __future__ import annotations

from flask import request

ENVIRON_KEY = "terrabank.after_reply"


def later(work) -> None:
    """Run `work()` once this request's reply is written; at once when no server defers it."""
    pending = request.environ.get(ENVIRON_KEY)
    if pending is None:
        work()
    else:
        pending.append(work)


class AfterReply:
    """WSGI wrapper: gives each request a list for `later()` and runs it when the reply is closed."""

    def __init__(self, app):
        self.app = app

    def __call__(self, environ, start_response):
        pending = environ[ENVIRON_KEY] = []
        try:
            body = self.app(environ, start_response)
        except BaseException:
            _run(pending)  # the command may be booked even if the reply failed: its round still goes
            raise
        if not pending:
            return body  # most requests: the server gets the app's own iterable (sendfile for static files)
        return _ThenRun(body, pending)


class _ThenRun:
    """The app's body, unchanged, whose close() then runs the work left for after the reply."""

    def __init__(self, body, pending: list):
        self.body, self.pending = body, pending

    def __iter__(self):
        return iter(self.body)

    def close(self) -> None:
        try:
            close = getattr(self.body, "close", None)
            if close is not None:
                close()
        finally:
            _run(self.pending)


def _run(pending: list) -> None:
    while pending:  # each piece once, even if close() is called twice
        pending.pop(0)()
