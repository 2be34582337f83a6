"""One thread reads and writes every live page's WebSocket: no thread per page.

Engine.IO's threading mode served each page with about four threads: the pool thread waiting for its
messages, simple-websocket's reader, Engine.IO's writer and a sleeper for its next ping. Each cost
memory, and waking each page's writer on every round cost CPU per page. Here, under Gunicorn:

- the upgrade to WebSocket is answered in the request's thread, which then hands the connection (a
  duplicate of its socket, serving/handoff.py) to the hub and is free again; the page keeps its live slot
  until it closes (handoff.KEEP);
- sending: Engine.IO's Socket.send puts each packet in `socket.queue`; a page's queue is its Outbox,
  which frames the packet once for every page it goes to (an emit to a room hands the same Packet to each)
  and writes it at once without blocking, in the sending thread (the broadcaster's loop for a round),
  when nothing waits before it. What the kernel does not take stays in the outbox, and the hub writes it
  when the socket can take more;
- permessage-deflate with context takeover, one compressor for every page that received the same messages
  (hub_frames.Streams): a round is compressed once per room, not per page, and no page holds a compressor;
- conflation keeps its guarantees (push/rounds.py): `qsize()` counts the frames not fully written, so a
  page the kernel is not taking from is left out of rounds and gets the newest pictures once its outbox is
  empty; a ping goes before every frame not yet begun;
- pings are the hub's timers, not a sleeping thread per page; reading: the hub reads what each socket
  has, wsproto gives the messages, and Engine.IO's Socket.receive handles them (a Socket.IO event in a
  short thread of its own, as before).

Elsewhere (Werkzeug's `serve --dev`, a test client) Engine.IO's own threading mode serves the page.
"""

from __future__ import annotations

import heapq
import itertools
import logging
import selectors
import socket
import threading
import time
from collections import deque

from engineio import exceptions as eio_exceptions
from engineio import packet as eio_packet
from engineio import socket as eio_socket
from wsproto import ConnectionType, WSConnection
from wsproto.events import AcceptConnection, Request

from bank.web.push.hub_frames import HubDeflate, frame_of  # noqa: F401 (frame_of: for tests and benches)
from bank.web.push.hub_page import Page
from bank.web.push import message_bound
from bank.web.serving import handoff

log = logging.getLogger("engineio.server")


class Hub:
    """The one thread and selector serving every handed-off page of this process."""

    def __init__(self):
        self.selector = selectors.DefaultSelector()
        self._wake_r, self._wake_w = socket.socketpair()
        for end in (self._wake_r, self._wake_w):
            end.setblocking(False)
        self.selector.register(self._wake_r, selectors.EVENT_READ, None)
        self._calls: deque = deque()  # work for the hub's thread: the selector is not shared between threads
        self._timers: list = []       # (when, n, function), a heap, touched by the hub's thread only
        self._order = itertools.count()
        self.pages = 0
        self.thread = threading.Thread(target=self._run, name="push-hub", daemon=True)
        self.thread.start()

    def call(self, function) -> None:
        """Run `function` in the hub's thread, soon."""
        self._calls.append(function)
        try:
            self._wake_w.send(b"\0")
        except OSError:  # the pipe is full: the hub is awake already
            pass

    def after(self, seconds: float, function) -> None:
        when = time.monotonic() + seconds
        self.call(lambda: heapq.heappush(self._timers, (when, next(self._order), function)))

    def _run(self) -> None:
        while True:
            timeout = max(0.0, self._timers[0][0] - time.monotonic()) if self._timers else None
            for key, events in self.selector.select(timeout):
                if key.data is None:
                    try:
                        while self._wake_r.recv(4096):
                            pass
                    except OSError:
                        pass
                    continue
                self._guarded(key.data.on_events, events)
            while self._calls:
                self._guarded(self._calls.popleft())
            now = time.monotonic()
            while self._timers and self._timers[0][0] <= now:
                self._guarded(heapq.heappop(self._timers)[2])

    @staticmethod
    def _guarded(function, *args) -> None:
        try:
            function(*args)
        except Exception:  # one page's failure must not stop every page's updates
            log.exception("push hub: a page's work failed")

    def take(self, eio, environ, sock):
        """Answer the upgrade on `sock` (Gunicorn's), keep a duplicate, serve the page here. Ends the request."""
        ws = WSConnection(ConnectionType.SERVER)
        head = b"GET / HTTP/1.1\r\n" + b"".join(
            f"{'-'.join(p.capitalize() for p in key[5:].split('_'))}: {value}\r\n".encode("latin-1")
            for key, value in environ.items() if key.startswith("HTTP_")) + b"\r\n"
        ws.receive_data(head)
        most = message_bound.bound(environ, eio.server.max_http_buffer_size)  # by who opened it (message_bound.py)
        extension, reply = HubDeflate(most), b""  # inflates no more (deflate.py)
        for event in ws.events():
            if isinstance(event, Request):
                reply = ws.send(AcceptConnection(extensions=[extension]))
        if not reply:
            return eio.server._bad_request()
        sock.sendall(reply)
        own = sock.dup()
        own.setblocking(False)
        handoff.take(sock, own)
        keep = environ.get(handoff.KEEP)
        release = keep(own) if keep is not None else (lambda: None)
        page = Page(self, eio, own, ws, extension.server_max_window_bits if extension._enabled else 0, release)
        page.most = most
        self.call(page.register)
        raise StopIteration()  # as simple-websocket under Gunicorn: the worker writes no reply, and moves on


_hub: Hub | None = None
_hub_lock = threading.Lock()


def hub() -> Hub:
    """This process's hub, started on first use (in the worker: Gunicorn's master forks no thread)."""
    global _hub
    with _hub_lock:
        if _hub is None:
            _hub = Hub()
        return _hub


class HubSocket(eio_socket.Socket):
    """Engine.IO's socket, its pings timed by the hub and its WebSocket served there (under Gunicorn)."""

    def schedule_ping(self):
        if self.last_ping:
            self.last_ping = None
            hub().after(self.server.ping_interval, self._ping_now)

    def _ping_now(self):
        if not self.closing and not self.closed:
            self.last_ping = time.time()
            self.send(eio_packet.Packet(eio_packet.PING))

    def handle_post_request(self, environ):
        """A long poll's POST: refused unread past what its sender may send in one (message_bound.py)."""
        if int(environ.get("CONTENT_LENGTH") or 0) > message_bound.bound(environ, self.server.max_http_buffer_size):
            # Closed here without waiting: Engine.IO's disconnect waits for a long poll to take the close, and none
            # comes from a page that sends while nobody polls (its request hung for as long as the page lived).
            self.close(wait=False, reason=self.server.reason.TRANSPORT_ERROR)
            self.server.sockets.pop(self.sid, None)
            raise eio_exceptions.ContentTooLongError()
        return super().handle_post_request(environ)

    def _upgrade_websocket(self, environ, start_response):
        sock = environ.get("gunicorn.socket")
        if sock is None or self.upgraded:
            return super()._upgrade_websocket(environ, start_response)
        return hub().take(self, environ, sock)


def install() -> None:
    """Engine.IO's servers in this process make HubSocket sockets (engineio.server calls socket.Socket)."""
    from engineio import server

    if not (getattr(server, "socket", None) is eio_socket and hasattr(eio_socket.Socket, "_upgrade_websocket")
            and hasattr(eio_socket.Socket, "schedule_ping")):
        raise RuntimeError("bank/web/push/hub.py was written for python-engineio 4.x, whose server makes "
                           "socket.Socket(server, sid); the installed version differs: pin it or adapt install()")
    eio_socket.Socket = HubSocket
