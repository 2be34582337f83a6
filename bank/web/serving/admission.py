"""Admission by authority, not by address: live pages and bodies, counted by who holds a secret.

One laptop adds addresses with one command, so caps per address do not protect the game:
idle big screens from two addresses took all 450 live slots, slow log-in bodies from two
addresses all 500 threads. Here a live page (it holds a connection for its life, and a pool
thread while it long-polls or its upgrade is answered) and a request with a body (it holds a
thread until the body is in) are admitted by the secret they carry (identity.py): each team link, the big screen's key, each facilitator session may
hold up to `per_secret` live pages; clients without a secret share `anonymous` live slots
and `anonymous_bodies` threads, with a short deadline for their body. No number of
anonymous clients can then refuse a phone that holds its link, or a facilitator.
Pages, scripts and plain reads have no body and are answered at once: never counted.
Split from server.py (it grew past 400 lines with this).

Authority a stranger can mint is kept apart from the authority the lead issues. Anyone on
the Wi-Fi may create a Trias game and so hold its seat links (an admission hook names them): those
live pages draw from a bounded pool of their own (`strangers`), at most `per_stranger_secret` a
seat and `per_stranger_address` a client address, so the lead's team links, big-screen key and
facilitator sessions always find their share. Slots are counted per secret (a link's name carries a
fingerprint of the link, identity.py), and `revoke()` closes the sockets opened with a replaced one
on the server's side (a hostile client that ignores the request to leave is cut all the same) and
frees their slots at once.

A request with a body draws on its sender's pool whatever secret it claims (body_pools.py), and
a link full of one address's pages gives way to a page from another address (LiveSlots._give_way).
"""

from __future__ import annotations

import json
import socket
import threading

from bank.web.serving.body_pools import BodyPools
from bank.web.serving.opens import Handshakes
from bank.web.serving.poll_sessions import OVERLAP, PollSessions, session_of
from bank.web.serving import handoff
from bank.web.serving.deadlines import DEADLINES
from bank.web.serving.who import WHO, client_address, has_body, live_kind, new_page, pool_of  # noqa: F401 (re-exported)

# Seconds between telling the pages of a replaced secret why and cutting their connections (LiveSlots.revoke).
CUT_GRACE = 1.0
LIVE_REFUSAL = ("Trop de pages en direct sont ouvertes sur la banque : fermez la page de la banque sur un "
                "autre téléphone ou écran, ou prévenez l'animateur principal. Cette page réessaie toute seule.\n"
                "Too many live pages are open on the bank: close the bank's page on another phone or screen, "
                "or tell the lead facilitator. This page tries again by itself.\n")
BUSY = ("La banque est très occupée ; réessayez dans quelques secondes.",
        "The bank is very busy; try again in a few seconds.")


class _Held:
    """One live request holding slots: whose, from where, its socket; `freed` once revoke() counted it down;
    `handed` once the app serves it on without a thread (handoff.KEEP: a WebSocket in bank/web/push/hub.py)."""

    __slots__ = ("who", "address", "sock", "freed", "handed")

    def __init__(self, who, address, sock):
        self.who, self.address, self.sock, self.freed, self.handed = who, address, sock, False, False


class LiveSlots:
    """WSGI wrapper: live pages take at most `slots` pool threads and `pages` in all, by secret; bodies get a deadline.

    A live request holds a pool thread (a long poll while it waits; a WebSocket served by Engine.IO's
    threading mode for its whole life): at as many live pages as threads, a console command waited for a
    thread for ever, so they take at most `slots`. A WebSocket the app serves on without a thread (handoff.KEEP,
    the hub of bank/web/push/hub.py) gives its thread slot back once handed off and holds only its place
    among the `pages` (None: `slots`, every page as if it held a thread). Beyond either (or
    beyond its secret's `per_secret`, or the anonymous share) a new live page gets a 503 and a
    sentence instead (its Socket.IO client tries again every few seconds). The counts go down in
    `finally`, however the request ends. `identify(environ)`: the secret's name, or None.
    Without `identify` every client is anonymous and `anonymous` defaults to `slots`.

    Pools (pool_of): anonymous pages take at most `anonymous` slots, pages holding a secret
    anyone can mint at most `strangers` (None: no pool of their own, as before), so the lead's secrets
    always have `slots - anonymous - strangers` that nothing else draws on (and any slot left free).
    """

    def __init__(self, app, slots: int, anonymous: int | None = None, per_secret: int | None = None,
                 identify=None, anonymous_bodies: int | None = None, body_seconds: float = 30.0,
                 anonymous_body_seconds: float = 5.0, strangers: int | None = None,
                 per_stranger_secret: int | None = None, per_stranger_address: int | None = None,
                 proxies: int = 0, secret_bodies: int = 4, address_bodies: int = 4, trusted_bodies: int = 2,
                 pages: int | None = None):
        self.app, self.slots = app, slots
        self.pages = slots if pages is None else pages
        self.anonymous = slots if anonymous is None else anonymous
        self.per_secret = slots if per_secret is None else per_secret
        self.strangers = strangers
        self.per_stranger_secret = self.per_secret if per_stranger_secret is None else per_stranger_secret
        self.per_stranger_address = slots if per_stranger_address is None else per_stranger_address
        self.proxies = proxies
        self.identify = identify or (lambda environ: None)
        self.anonymous_bodies = anonymous_bodies  # None: not counted
        self.body_seconds, self.anonymous_body_seconds = body_seconds, anonymous_body_seconds
        self.body_pools = BodyPools(anonymous_bodies, secret_bodies, address_bodies, trusted_bodies)
        self.lock = threading.Lock()
        self.held = 0            # live requests holding a thread now
        self.handed = 0          # live pages served on without a thread (handoff.KEEP)
        self.held_anonymous = 0  # of which without a secret
        self.held_strangers = 0  # of which with a secret anyone can mint (a Trias seat's)
        self.by_secret: dict[str, int] = {}
        self.by_address: dict[str, int] = {}   # strangers' live pages per client address
        self.by_link_address: dict[tuple, int] = {}  # the lead's secrets' live pages per (secret, address)
        self.given_way = 0       # live pages cut for a page from another address since the start (_give_way)
        self.live: dict[str, set] = {}         # secret's name -> its _Held requests, for revoke()
        self.refused = 0         # since the start
        self.revoked = 0         # live requests cut by revoke() since the start
        self.polls = PollSessions(2 * slots)  # long-polling pages: one poll at a time, admitted at the first
        self.handshakes = Handshakes()  # new pages' handshakes by pool, each a session for a while (opens.py)

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
        who = environ[WHO] = self.identify(environ)  # a live page's budget of messages is its secret's (event_budget.py)
        if kind is None:
            return self._body(environ, start_response, who, sock)
        held = _Held(who, client_address(environ, self.proxies), sock)
        session = session_of(environ) if kind == "poll" else None  # poll_sessions.py
        with self.lock:
            overlap = session is not None and self.polls.busy(session)
            full = not overlap and self._full(held) and not (session is not None and self.polls.known(session))
            # A link full of one address's pages: a page from another address takes one of them (_give_way).
            victim = self._give_way(held) if full and kind != "poll" else None
            if victim is not None:
                full = False
                if kind != "open":  # a new page's handshake only looks: its socket takes the place
                    self._count(victim, -1)
                    victim.freed = True
                    self.given_way += 1
                else:
                    victim = None
            # A new page's handshake; a WebSocket opened without one too, when no secret of the lead's opens it.
            if new_page(environ, kind) and (kind == "open" or pool_of(held.who) != "lead") and not (full or overlap):
                full = self.handshakes.spent(self, held.who, pool_of(held.who), direct=kind != "open")
            if full or overlap:
                self.refused += 1
            elif kind != "open":
                self._count(held, 1)
                if session is not None:
                    self.polls.start(session)
        if victim is not None:
            _shut([victim.sock] if victim.sock is not None else [])
        if overlap:
            return _refuse(start_response, OVERLAP.encode(), "text/plain; charset=utf-8", "400 Bad Request")
        if full:
            return _refuse(start_response, LIVE_REFUSAL.encode(), "text/plain; charset=utf-8")
        if kind == "open":
            return self.app(environ, start_response)
        kept = []
        environ[handoff.KEEP] = lambda sock: self._keep(held, sock, kept)
        try:
            # Engine.IO answers a long poll before returning; a WebSocket is served by one loop for every
            # page (bank/web/push/hub.py), which keeps the page's slots until it closes (handoff.KEEP).
            return self.app(environ, start_response)
        finally:
            if not kept:
                self._free(held)
            if session is not None:
                with self.lock:
                    self.polls.end(session)

    def _keep(self, held: _Held, sock, kept: list):
        """The app serves this live page on after its request (handoff.py): its slots are freed when the page
        closes (the returned function), and revoke() or a page given way to shuts `sock`, the app's socket."""
        held.sock = sock
        kept.append(True)
        with self.lock:
            if not held.freed:  # from a thread's count to the pages served without one
                self.held -= 1
                self.handed += 1
            held.handed = True
        return lambda: self._free(held)

    def _free(self, held: _Held) -> None:
        with self.lock:
            if not held.freed:  # revoke() counted it down already
                self._count(held, -1)
                held.freed = True

    def _full(self, held: _Held) -> bool:
        if self.held >= self.slots or self.held + self.handed >= self.pages:
            return True
        pool = pool_of(held.who)
        if pool == "anonymous":
            return self.held_anonymous >= self.anonymous
        if pool == "strangers" and self.strangers is not None:
            return (self.held_strangers >= self.strangers
                    or self.by_secret.get(held.who, 0) >= self.per_stranger_secret
                    or self.by_address.get(held.address, 0) >= self.per_stranger_address)
        return self.by_secret.get(held.who, 0) >= self.per_secret

    def _give_way(self, held: _Held) -> _Held | None:
        """A live page of the lead's secret `held` claims that gives way to it, or None.

        A per-address share of each link's slots, enforced only when they are contested: when the link is
        full and its pages' busiest address holds at least two more than the newcomer's would, one of that
        address's pages is cut for it. A stolen team link on idle pages from one address held all of its
        team's slots and every real phone was refused until the lead replaced the link; now the phones
        from other addresses take their places back one by one. A hard cap per address was not
        built: behind an access point's NAT every phone of a team has one address (docs/DEPLOY.md), and
        there nothing is contested (one address), so nothing changes. Its limit: pages from a second address
        can take back up to half of a full link from the NAT's; a stolen link is still for the lead to replace."""
        if pool_of(held.who) != "lead" or self.held >= self.slots or self.held + self.handed >= self.pages:
            return None
        if self.by_secret.get(held.who, 0) < self.per_secret:
            return None
        mine = self.by_link_address.get((held.who, held.address), 0)
        busiest, most = None, mine + 1
        for (who, address), count in self.by_link_address.items():
            if who == held.who and count > most:
                busiest, most = address, count
        if busiest is None:
            return None
        for page in self.live.get(held.who, ()):
            if page.address == busiest and not page.freed:
                return page
        return None

    def _count(self, held: _Held, step: int) -> None:
        who = held.who
        if held.handed:
            self.handed += step
        else:
            self.held += step
        if who is None:
            self.held_anonymous += step
            return
        _add(self.by_secret, who, step)
        if pool_of(who) == "lead":
            _add(self.by_link_address, (who, held.address), step)
        if pool_of(who) == "strangers" and self.strangers is not None:
            self.held_strangers += step
            _add(self.by_address, held.address, step)
        requests = self.live.setdefault(who, set())
        if step > 0:
            requests.add(held)
        else:
            requests.discard(held)
        if not requests:
            self.live.pop(who, None)

    def held_secrets(self) -> list:
        """The names of the secrets holding live pages now."""
        with self.lock:
            return list(self.live)

    def revoke(self, replaced) -> int:
        """Close every live request opened with a secret `replaced(name)` says was replaced, and free its slots now.

        Asking the old sockets to leave is not enough: a hostile client ignores it, and its pages would keep
        the slots the new link's phones need. So the connection itself is
        shut down (the thread serving it wakes at once and ends the page), and its slots are counted down
        before this returns: the lead's new link is shown with its team's share free. How many were cut."""
        with self.lock:
            cut = [held for name in list(self.live) if replaced(name) for held in self.live.get(name, ())]
            for held in cut:
                self._count(held, -1)
                held.freed = True
            self.revoked += len(cut)
        forget = getattr(self.identify, "forget", None)
        if cut and forget is not None:
            forget()  # a replaced secret read from memory would name new pages by it for up to a second
        socks = [held.sock for held in cut if held.sock is not None]
        if socks:
            # Cut after a moment: the live layer has just told these pages why ("link replaced", "logged out",
            # bank/web/push/live.py _cut) and a page of ours closes itself on it; cut at once, the message was
            # lost in the socket's queue and the phone said only "not valid" (tests/web/access/test_browser_sessions.py).
            # The slots are free already; a hostile client that ignores the message is cut all the same.
            timer = threading.Timer(CUT_GRACE, _shut, args=(socks,))
            timer.daemon = True
            timer.start()
        return len(cut)

    def _body(self, environ, start_response, who, sock):
        """A request with a body: it draws on its sender's pool (body_pools.py), and a body still to read has a deadline."""
        whole = sock is not None and DEADLINES.taken_whole(sock)
        pool = pool_of(who)
        device = self._device(environ) if pool != "lead" else None
        keys = self.body_pools.keys(pool, who, client_address(environ, self.proxies), device, whole)
        if keys and not self.body_pools.take(keys):
            with self.lock:
                self.refused += 1
            if sock is not None:
                DEADLINES.close_after(sock)
            error = {"error": {"code": "busy", "message": f"{BUSY[0]} / {BUSY[1]}", "params": {}}}
            return _refuse(start_response, json.dumps(error, ensure_ascii=False).encode(), "application/json")
        if sock is None or whole:
            # Not under the guarded worker (`serve --dev`, a test client), or the worker's loop read the body
            # already (loop_body.py): nothing left for a slow client to hold the thread with. A deadline here
            # would only cut a reply that is slow to start: a log-in's hash on a loaded machine (the lead's
            # tablet was cut while strangers' hashes shared the CPU).
            if sock is not None:
                DEADLINES.clear(sock)
            return self._run(environ, start_response, keys)
        # A secret anyone can mint gets a stranger's deadline, as it gets a stranger's pool.
        DEADLINES.set(sock, self.body_seconds if pool == "lead" else self.anonymous_body_seconds)

        def started(status, headers, exc_info=None):
            DEADLINES.clear(sock)
            return start_response(status, headers, exc_info)

        try:
            return self.app(environ, started)
        finally:
            DEADLINES.clear(sock)
            self.body_pools.give_back(keys)

    def _device(self, environ) -> str | None:
        """The account a trusted device's cookie names (identify.device), or None."""
        device = getattr(self.identify, "device", None)
        return device(environ) if device is not None else None

    def _run(self, environ, start_response, keys: tuple):
        try:
            return self.app(environ, start_response)
        finally:
            self.body_pools.give_back(keys)


def _add(counts: dict, key, step: int) -> None:
    left = counts.get(key, 0) + step
    if left > 0:
        counts[key] = left
    else:
        counts.pop(key, None)


def _refuse(start_response, body: bytes, content_type: str, status: str = "503 Service Unavailable") -> list:
    start_response(status, [
        ("Content-Type", content_type), ("Content-Length", str(len(body))),
        ("Retry-After", "5"), ("Cache-Control", "no-store")])
    return [body]


def _shut(socks: list) -> None:
    """Shut the connections down: the threads serving them wake and end their pages."""
    for sock in socks:
        try:
            sock.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass  # closed meanwhile: nothing left to cut
