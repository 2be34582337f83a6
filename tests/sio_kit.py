"""WebSocket clients on a plain socket and wsproto (already installed with simple-websocket).

`RawWebSocket` reads frames as they come. Not simple_websocket.Client: its handshake
(1.1.0) reads the 101 reply and leaves a frame that came in the same TCP segment
unparsed until more bytes arrive; on a loaded machine Engine.IO's open packet rides
with the 101, so it surfaced 10 s late, with the first ping.

`Phone` is a team phone reduced to its Socket.IO connection: Engine.IO 4's open packet,
Socket.IO's connect with the phone's auth, pings answered, events kept in order. Enough
to check what a phone is sent (tests of several processes); no reconnection of its own.
It connects as today's live.js (tests/live_kit.py: `rounds: 1`, one `round` message per round) and
keeps each round's parts as events ("public", "team", "journal"); `legacy=True`: a page of an older
live.js, sent the separate messages.
"""

from __future__ import annotations

import json
import socket
import time

from wsproto import ConnectionType, WSConnection
from wsproto.events import AcceptConnection, CloseConnection, Request, TextMessage
from wsproto.extensions import PerMessageDeflate

from live_kit import PARTS, ROUND, live_auth, unfold

ENGINE_IO = "/socket.io/?EIO=4&transport=websocket"


class RawWebSocket:
    def __init__(self, port: int, path: str = ENGINE_IO, timeout: float = 10.0, headers: dict | None = None,
                 source: str | None = None, deflate: bool = False):
        """`headers`: extra request headers (a facilitator's Cookie); `source`: the local address to connect
        from (127.x.y.z: pages behind several access points, as the bank caps connections per address);
        `deflate`: offer permessage-deflate, as every browser does (the server then compresses what it sends)."""
        self.ws = WSConnection(ConnectionType.CLIENT)
        self.sock = socket.create_connection(("127.0.0.1", port), timeout=timeout,
                                             source_address=(source, 0) if source else None)
        extra = [(k.encode(), v.encode()) for k, v in (headers or {}).items()]
        self.sock.sendall(self.ws.send(Request(host=f"127.0.0.1:{port}", target=path, extra_headers=extra,
                                             extensions=[PerMessageDeflate()] if deflate else [])))
        self.texts: list[str] = []
        self._partial = ""  # a long message comes in several frames (wsproto: message_finished)
        self.accepted = self.closed = False

    def send_text(self, text: str) -> None:
        self.sock.sendall(self.ws.send(TextMessage(data=text)))

    def read(self, timeout: float | None = None) -> None:
        """One read: handle what arrived; a timeout (when given) is no error, just nothing new."""
        if timeout is not None:
            self.sock.settimeout(timeout)
        try:
            data = self.sock.recv(65536)
        except socket.timeout:
            if timeout is None:
                raise
            return
        except OSError:
            data = b""
        if not data:
            self.closed = True
            return
        self.ws.receive_data(data)
        for event in self.ws.events():
            if isinstance(event, AcceptConnection):
                self.accepted = True
            elif isinstance(event, TextMessage):
                self._partial += event.data
                if event.message_finished:
                    text, self._partial = self._partial, ""
                    self.texts.append(text)
                    self.on_text(text)
            elif isinstance(event, CloseConnection):
                self.closed = True

    def on_text(self, text: str) -> None:
        """Subclasses react to a message (answer a ping...)."""

    def first_text(self) -> str:
        while not self.texts and not self.closed:
            self.read()
        return self.texts[0] if self.texts else ""

    def wait_closed(self) -> bool:
        """True once the server ended the connection; a socket timeout if it never does."""
        while not self.closed:
            self.read()
        return True

    def wait(self, done, timeout: float) -> bool:
        deadline = time.monotonic() + timeout
        while not done():
            left = deadline - time.monotonic()
            if left <= 0 or self.closed:
                return done()
            self.read(min(left, 0.5))
        return True

    def close(self) -> None:
        try:
            self.sock.close()
        except OSError:
            pass


class Phone(RawWebSocket):
    """`namespace`: "/" for the bank's pages, "/trias" for a Trias board or seat (its own messages).

    `events`: (name, data) in order, a `round` message as its parts; `rounds`: the raw `round` messages."""

    def __init__(self, port: int, auth: dict, timeout: float = 10.0, namespace: str = "/",
                 headers: dict | None = None, source: str | None = None, query: str = "", legacy: bool = False,
                 deflate: bool = False):
        """`query`: "&team=<link>" or "&key=<key>", as live.js sends them (admission by secret).
        A page with a facilitator's Cookie in `headers` connects as a console (it shows the journal)."""
        super().__init__(port, ENGINE_IO + query, timeout, headers, source, deflate)
        self.prefix = "" if namespace == "/" else f"{namespace},"
        if namespace == "/":
            auth = live_auth(auth, "Cookie" in (headers or {}), legacy)
        self.events: list[tuple[str, object]] = []
        self.rounds: list[dict] = []
        self.separate: list[str] = []  # separate picture/journal messages sent although it reads rounds
        self.legacy = legacy or namespace != "/"
        answers = ("40" + self.prefix, "44" + self.prefix)  # accepted, or refused with the bank's reason
        try:
            if self.wait(lambda: any(t.startswith("0") for t in self.texts), timeout):
                self.send_text("40" + self.prefix + json.dumps(auth))
                self.wait(lambda: any(t.startswith(answers) for t in self.texts), timeout)
            if not self.closed and not any(t.startswith(answers) for t in self.texts):
                # Neither accepted nor refused and still open: a page that would wait for ever. Say so here,
                # rather than let a test count it as connected (a closed one is left for the test to read).
                raise ConnectionError(f"no answer to the connect in {timeout} s; received {self.texts[-3:]}")
        except BaseException:
            self.close()  # no socket left for the garbage collector to warn about in a later test
            raise

    def on_text(self, text: str) -> None:
        if text == "2":  # Engine.IO ping: answer, or the server drops the phone
            self.send_text("3")
        elif text.startswith("42" + self.prefix):
            name, *args = json.loads(text[2 + len(self.prefix):])
            data = args[0] if args else None
            if name == ROUND and not self.prefix:
                self.rounds.append(data)
                self.events += unfold(name, data)
            else:
                if name in PARTS and not self.legacy:
                    self.separate.append(name)
                self.events.append((name, data))

    def wait_for(self, predicate, timeout: float = 10.0) -> bool:
        """Read until some received (event name, data) satisfies predicate(name, data)."""
        return self.wait(lambda: any(predicate(n, d) for n, d in self.events), timeout)

    def emit(self, name: str, data=None) -> None:
        self.send_text("42" + self.prefix + json.dumps([name, data] if data is not None else [name]))
