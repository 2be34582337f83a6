"""Admission by authority, not by address (issue 23): live pages and bodies, counted by who holds a secret.

One laptop adds addresses with one command, so caps per address do not protect the game:
idle big screens from two addresses took all 450 live slots, slow log-in bodies from two
addresses all 500 threads. Here a live page (it holds a pool thread for its life) and a
request with a body (it holds one until the body is in) are admitted by the secret they
carry (identity.py): each team link, the big screen's key, each facilitator session may
hold up to `per_secret` live pages; clients without a secret share `anonymous` live slots
and `anonymous_bodies` threads, with a short deadline for their body. No number of
anonymous clients can then refuse a phone that holds its link, or a facilitator.
Pages, scripts and plain reads have no body and are answered at once: never counted.
Split from server.py (it grew past 400 lines with this).
"""

from __future__ import annotations

import json
import threading
from urllib.parse import parse_qs

from bank.web.serving.deadlines import DEADLINES

LIVE_REFUSAL = ("Trop de pages en direct sont ouvertes sur la banque : fermez la page de la banque sur un "
                "autre téléphone ou écran, ou prévenez l'animateur principal. Cette page réessaie toute seule.\n"
                "Too many live pages are open on the bank: close the bank's page on another phone or screen, "
                "or tell the lead facilitator. This page tries again by itself.\n")
BUSY = ("La banque est très occupée ; réessayez dans quelques secondes.",
        "The bank is very busy; try again in a few seconds.")


def live_kind(environ) -> str | None:
    """What a Socket.IO request does to the pool (any game's: /socket.io/ or /g/<name>/socket.io/).

    "open": a new page's Engine.IO handshake (a GET poll without sid): answered at once, but
    the start of a page that will hold a thread, so it is refused when the slots are full.
    "socket": a WebSocket (new, or an open page's upgrade): holds a thread for its life.
    "poll": an open page's long poll (GET with its sid): holds a thread until data or the ping,
    and is never refused, or a page on long polling would die (its slot was counted at "open").
    None: anything else (a page, the API, a POST of a poll, which is answered at once).
    """
    if not environ.get("PATH_INFO", "").rstrip("/").endswith("/socket.io"):
        return None
    if environ.get("HTTP_UPGRADE", "").lower() == "websocket":
        return "socket"
    if environ.get("REQUEST_METHOD") != "GET":
        return None
    query = parse_qs(environ.get("QUERY_STRING", ""))
    if query.get("transport") == ["websocket"]:
        return "socket"  # without the Upgrade header Engine.IO answers at once, but do not count on it
    return "poll" if query.get("sid") else "open"


def has_body(environ) -> bool:
    return (environ.get("CONTENT_LENGTH") not in (None, "", "0")
            or "chunked" in environ.get("HTTP_TRANSFER_ENCODING", "").lower())


class LiveSlots:
    """WSGI wrapper: live pages take at most `slots` pool threads, by secret; bodies get a deadline.

    A live page's WebSocket holds a thread of the pool for its whole life: at as many live pages
    as threads, a console command waited for a thread for ever (issue 15). Beyond `slots` (or
    beyond its secret's `per_secret`, or the anonymous share) a new live page gets a 503 and a
    sentence instead (its Socket.IO client tries again every few seconds). The counts go down in
    `finally`, however the request ends. `identify(environ)`: the secret's name, or None.
    Without `identify` every client is anonymous and `anonymous` defaults to `slots` (issue 15).
    """

    def __init__(self, app, slots: int, anonymous: int | None = None, per_secret: int | None = None,
                 identify=None, anonymous_bodies: int | None = None, body_seconds: float = 30.0,
                 anonymous_body_seconds: float = 5.0):
        self.app, self.slots = app, slots
        self.anonymous = slots if anonymous is None else anonymous
        self.per_secret = slots if per_secret is None else per_secret
        self.identify = identify or (lambda environ: None)
        self.anonymous_bodies = anonymous_bodies  # None: not counted
        self.body_seconds, self.anonymous_body_seconds = body_seconds, anonymous_body_seconds
        self.lock = threading.Lock()
        self.held = 0            # live requests holding a thread now
        self.held_anonymous = 0  # of which without a secret
        self.by_secret: dict[str, int] = {}
        self.bodies = 0          # anonymous requests reading their body now
        self.refused = 0         # since the start

    def __call__(self, environ, start_response):
        kind = live_kind(environ)
        sock = environ.get("gunicorn.socket")
        body = has_body(environ)
        if sock is not None and not body:
            DEADLINES.clear(sock)
            if environ.get("HTTP_UPGRADE", "").lower() == "websocket":
                # A live page's socket for the rest of its life: no read timeout, as under Werkzeug.
                # Engine.IO's ping (every 10 s, 10 s to answer) closes a page that went away. With
                # the 30 s timeout kept, a soak on a machine at load 18 lost 76 of 200 pages in one
                # burst (docs/PERFORMANCE.md): a page slow to read must not be cut by the server.
                sock.settimeout(None)
        if kind is None and not body:
            return self.app(environ, start_response)  # a page, a script, a read: answered at once
        who = self.identify(environ)
        if kind is None:
            return self._body(environ, start_response, who, sock)
        with self.lock:
            full = self._full(who)
            if full and kind != "poll":
                self.refused += 1
            elif kind != "open":
                self._count(who, 1)
        if full and kind != "poll":
            return _refuse(start_response, LIVE_REFUSAL.encode(), "text/plain; charset=utf-8")
        if kind == "open":
            return self.app(environ, start_response)
        try:
            # The thread is held inside this call: Engine.IO answers a long poll, and runs a
            # WebSocket to its end, before returning (or raising StopIteration under Gunicorn).
            return self.app(environ, start_response)
        finally:
            with self.lock:
                self._count(who, -1)

    def _full(self, who: str | None) -> bool:
        if self.held >= self.slots:
            return True
        if who is None:
            return self.held_anonymous >= self.anonymous
        return self.by_secret.get(who, 0) >= self.per_secret

    def _count(self, who: str | None, step: int) -> None:
        self.held += step
        if who is None:
            self.held_anonymous += step
            return
        left = self.by_secret.get(who, 0) + step
        if left > 0:
            self.by_secret[who] = left
        else:
            self.by_secret.pop(who, None)

    def _body(self, environ, start_response, who, sock):
        """A request with a body: a deadline for it (shorter without a secret), anonymous ones counted."""
        counted = who is None and self.anonymous_bodies is not None
        if counted:
            with self.lock:
                full = self.bodies >= self.anonymous_bodies
                if full:
                    self.refused += 1
                else:
                    self.bodies += 1
            if full:
                if sock is not None:
                    DEADLINES.close_after(sock)
                error = {"error": {"code": "busy", "message": f"{BUSY[0]} / {BUSY[1]}", "params": {}}}
                return _refuse(start_response, json.dumps(error, ensure_ascii=False).encode(), "application/json")
        if sock is None:  # not under the guarded worker (`serve --dev`, a test client): no deadline
            try:
                return self.app(environ, start_response)
            finally:
                self._done(counted)
        DEADLINES.set(sock, self.body_seconds if who else self.anonymous_body_seconds)

        def started(status, headers, exc_info=None):
            DEADLINES.clear(sock)
            return start_response(status, headers, exc_info)

        try:
            return self.app(environ, started)
        finally:
            DEADLINES.clear(sock)
            self._done(counted)

    def _done(self, counted: bool) -> None:
        if counted:
            with self.lock:
                self.bodies -= 1


def _refuse(start_response, body: bytes, content_type: str) -> list:
    start_response("503 Service Unavailable", [
        ("Content-Type", content_type), ("Content-Length", str(len(body))),
        ("Retry-After", "5"), ("Cache-Control", "no-store")])
    return [body]
