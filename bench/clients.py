"""Many Socket.IO clients in one process, connecting as the real pages do.

static/js/live.js and bank/web/push/live.py: a team phone sends auth={"team": token},
the big screen auth={"display": true}, a facilitator's console sends its session
cookie. Each client notes the monotonic time and the seq of every update, so a
benchmark can ask "when did the LAST client get seq S?".

The fleet runs its own asyncio loop in a background thread, so the benchmark's
main thread can keep sending HTTP commands with the synchronous harness.Api.
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
import threading
import time
import zlib
from collections import Counter
from dataclasses import dataclass, field
from urllib.parse import urlencode

if os.environ.get("BENCH_SITE"):
    # aiohttp from a folder outside the venv (`pip install --target DIR aiohttp`): only the benchmark's process
    # loads it. On PYTHONPATH the servers it starts would load it too (python-socketio imports its asyncio
    # client wherever aiohttp is found: about 9 MB a process that a production install does not have).
    sys.path.append(os.environ["BENCH_SITE"])

try:
    import aiohttp
except ImportError as exc:  # a bench importing this at its top says what to install, not a traceback
    from bench_extra import HOW
    raise SystemExit(f"aiohttp is not installed: {HOW}.") from exc
import socketio

# What each kind of page must receive before it shows a command's result.
DUE = {"phone": ("public", "team"), "display": ("public",), "facilitator": ("public", "journal")}


def update_seq(event: str, payload) -> int | None:
    """The journal seq an update carries: `seq`, or the last journal row's."""
    if not isinstance(payload, dict):
        return None
    if event == "journal":
        rows = payload.get("rows") or []
        return rows[-1]["seq"] if rows else None
    return payload.get("seq")


def frame_bytes(text: str) -> int:
    """Bytes of the WebSocket frame a server sends for this text: the text plus a 2-10 byte header."""
    n = len(text.encode())
    return n + (2 if n < 126 else 4 if n < 65536 else 10)


def socketio_text(event: str, payload) -> str:
    """The Engine.IO/Socket.IO text of an event as python-socketio encodes it ('4' message, '2' event)."""
    return "42" + json.dumps([event, payload], separators=(",", ":"))


class Deflated:
    """What permessage-deflate would put on the wire for one connection's messages.

    A browser offers it and simple-websocket (wsproto) accepts it, with context takeover:
    one raw deflate stream per connection, each message flushed and its final 4 bytes
    (00 00 ff ff) left out (RFC 7692). python-socketio's client does not offer it, so the
    benchmark computes it beside the plain bytes.
    """

    def __init__(self):
        self.stream = zlib.compressobj(zlib.Z_DEFAULT_COMPRESSION, zlib.DEFLATED, -15)

    def size(self, text: str) -> int:
        data = self.stream.compress(text.encode()) + self.stream.flush(zlib.Z_SYNC_FLUSH)
        n = len(data) - 4
        return n + (2 if n < 126 else 4 if n < 65536 else 10)


@dataclass
class Client:
    kind: str                 # phone, display, facilitator
    auth: dict
    headers: dict
    team: str | None = None
    received: dict = field(default_factory=lambda: {e: [] for e in ("public", "team", "journal")})
    disconnects: int = 0
    last: dict = field(default_factory=dict)  # the newest payload of each event, to capture real ones
    reason: str = ""  # why the last disconnect happened, as python-socketio tells it
    source: str | None = None  # the local address it connects from (a phone behind another access point)
    regressions: int = 0  # messages older than one already shown: the page would show a stale picture
    sio: socketio.AsyncClient | None = None
    wire: int = 0        # bytes of the update frames received (public, team, journal), as sent
    messages: int = 0    # update messages received (a `round` counts once)
    deflated: int = 0    # the same frames had the connection negotiated permessage-deflate
    deflate: Deflated = field(default_factory=Deflated)

    def last_seq(self) -> int:
        """The newest seq this page has seen on every message it is due."""
        seen = [max((s for s, _ in self.received[e]), default=0) for e in DUE[self.kind]]
        return min(seen)

    def got_at(self, seq: int) -> float | None:
        """When this page had every message it is due carrying seq (or a later one); None if not yet."""
        times = []
        for event in DUE[self.kind]:
            at = next((t for s, t in self.received[event] if s >= seq), None)
            if at is None:
                return None
            times.append(at)
        return max(times)

    def forget_before(self, seq: int) -> None:
        """Drop old records so a long soak does not grow the benchmark's own memory."""
        for event, entries in self.received.items():
            keep = [e for e in entries if e[0] >= seq]
            self.received[event] = keep or entries[-1:]


def mix(n: int, teams: list[str], displays: int = 2, facilitators: int = 3) -> list[tuple[str, str | None]]:
    """A realistic room: a couple of big screens, a few consoles, the rest team phones spread over the teams."""
    kinds = [("display", None)] * displays + [("facilitator", None)] * facilitators
    phones = n - len(kinds)
    kinds += [("phone", teams[i % len(teams)]) for i in range(phones)]
    return kinds


class Fleet:
    """N clients on one asyncio loop in a thread: start(), wait_for(seq), stop()."""

    def __init__(self, url: str, tokens: dict, cookie: str, n: int = 200, displays: int = 2,
                 facilitators: int = 3, count_bytes: bool = False, sources: list | None = None,
                 deflate: bool = False, rounds: bool = True):
        self.url, self.tokens, self.cookie = url, tokens, cookie
        # deflate: offer permessage-deflate as a browser does (aiohttp's compress=15; the server's
        # simple-websocket accepts it): bench_bytes.py measures both at the socket.
        self.deflate = deflate
        # Counting bytes encodes and deflates every message again here: only for the benchmarks
        # that report them (bench_fanout), so the others' clients stay as quick as before.
        self.count_bytes = count_bytes
        self.clients: list[Client] = []
        for kind, team in mix(n, list(tokens), displays, facilitators):
            auth = {"team": tokens[team]} if kind == "phone" else {"display": True} if kind == "display" else {}
            if rounds:  # as static/js/live.js: one `round` message per round; a console shows the journal
                auth = {**auth, "rounds": 1, **({"journal": True} if kind == "facilitator" else {})}
            headers = {"Cookie": cookie} if kind == "facilitator" else {}
            self.clients.append(Client(kind, auth, headers, team))
        # Local addresses (127.x.y.z) the clients connect from, client i from sources[i % len]: the bank
        # caps connections per address (bank/web/serving/server.py), as phones behind one access point share one.
        for i, client in enumerate(self.clients):
            client.source = sources[i % len(sources)] if sources else None
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, name="fleet", daemon=True)

    # -- lifecycle ------------------------------------------------------------

    def start(self, batch: int = 25, timeout: float = 60.0) -> "Fleet":
        """Connect every client (websocket transport), a batch at a time, as phones arrive."""
        self.thread.start()
        self._run(self._connect_all(batch), timeout)
        return self

    def stop(self) -> None:
        if not self.thread.is_alive():
            return
        try:
            self._run(self._disconnect_all(), 30)
        finally:
            self.loop.call_soon_threadsafe(self.loop.stop)
            self.thread.join(10)

    def __enter__(self) -> "Fleet":
        return self

    def __exit__(self, *exc) -> None:
        self.stop()

    def _run(self, coro, timeout: float):
        return asyncio.run_coroutine_threadsafe(coro, self.loop).result(timeout)

    async def _connect_all(self, batch: int) -> None:
        for i in range(0, len(self.clients), batch):
            await asyncio.gather(*(self._connect(c) for c in self.clients[i:i + batch]))

    async def _connect(self, client: Client) -> None:
        options = {}
        if client.source:  # a factory: each client still owns (and closes) its aiohttp session
            options["http_session"] = lambda: aiohttp.ClientSession(
                connector=aiohttp.TCPConnector(local_addr=(client.source, 0)))
        if self.deflate:
            options["websocket_extra_options"] = {"compress": 15}
        sio = socketio.AsyncClient(reconnection=False, **options)
        client.sio = sio

        def recorder(event):
            async def on(payload=None, counted=False):
                client.messages += not counted
                if self.count_bytes and not counted:
                    text = socketio_text(event, payload)
                    client.wire += frame_bytes(text)
                    client.deflated += client.deflate.size(text)
                seq = update_seq(event, payload)
                if seq is not None:
                    entries = client.received[event]
                    if entries and seq < entries[-1][0]:
                        client.regressions += 1
                    entries.append((seq, time.monotonic()))
                    client.last[event] = payload
            return on

        for event in client.received:
            sio.on(event, recorder(event))
        parts = {event: recorder(event) for event in client.received}

        async def on_round(message=None):
            """One message holding each part: its bytes counted once, each part's seq as its own."""
            client.messages += 1
            if self.count_bytes:
                text = socketio_text("round", message)
                client.wire += frame_bytes(text)
                client.deflated += client.deflate.size(text)
            for event in ("public", "team", "journal"):
                if isinstance(message, dict) and event in message:
                    await parts[event](message[event], counted=True)
        sio.on("round", on_round)

        async def on_disconnect(reason=None):
            client.disconnects += 1
            client.reason = str(reason)
        sio.on("disconnect", on_disconnect)
        # As static/js/live.js: a phone's link also rides in the query, where the server admits a live page by
        # its secret; without it every phone counted as anonymous, and the 57th was refused (503).
        url = f"{self.url}?{urlencode({'team': client.auth['team']})}" if client.auth.get("team") else self.url
        await sio.connect(url, transports=["websocket"], auth=client.auth, headers=client.headers,
                          wait_timeout=30)

    async def _disconnect_all(self) -> None:
        await asyncio.gather(*(c.sio.disconnect() for c in self.clients if c.sio and c.sio.connected),
                             return_exceptions=True)

    # -- questions ------------------------------------------------------------

    def connected(self) -> int:
        return sum(1 for c in self.clients if c.sio and c.sio.connected)

    def regressions(self) -> int:
        return sum(c.regressions for c in self.clients)

    def wire_bytes(self) -> tuple[int, int]:
        """(plain, deflated) bytes of updates received by every client so far."""
        return sum(c.wire for c in self.clients), sum(c.deflated for c in self.clients)

    def messages(self) -> int:
        """Update messages received by all pages so far (a `round` counts once)."""
        return sum(c.messages for c in self.clients)

    def disconnects(self) -> int:
        return sum(c.disconnects for c in self.clients)

    def disconnect_reasons(self) -> dict:
        return dict(Counter(c.reason for c in self.clients if c.disconnects))

    def wait_for(self, seq: int, timeout: float = 10.0) -> float | None:
        """Block until every client has seq; the monotonic time the last one got it (None on time-out).

        Polls the records written by the loop thread (appends to lists are atomic under the GIL).
        """
        deadline, pending, last = time.monotonic() + timeout, list(self.clients), 0.0
        while True:
            still = []
            for c in pending:  # only re-check the clients still waiting: the poll must stay cheap
                at = c.got_at(seq)
                if at is None:
                    still.append(c)
                else:
                    last = max(last, at)
            pending = still
            if not pending:
                return last
            if time.monotonic() > deadline:
                return None
            time.sleep(0.002)

    def lagging(self, seq: int) -> list[Client]:
        """Clients whose last seen seq differs from `seq`."""
        return [c for c in self.clients if c.last_seq() != seq]

    def forget_before(self, seq: int) -> None:
        """Prune old records on the loop thread, where the appends happen (no append lost to a swap)."""
        def prune():
            for c in self.clients:
                c.forget_before(seq)
        self.loop.call_soon_threadsafe(prune)


def lead_cookie_and_tokens(api) -> tuple[str, dict]:
    """From a logged-in lead harness.Api: the session cookie and each team's phone token."""
    status, tokens = api.request("GET", "/api/teams/links")
    if status != 200:
        raise RuntimeError(f"GET /api/teams/links answered {status}: {tokens}")
    return api.cookie, tokens
