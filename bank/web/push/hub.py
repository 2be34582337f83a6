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
- permessage-deflate without context takeover on the server's side (RFC 7692 7.1.1.1: a server may say so
  whatever the page offered): a message compresses to the same bytes for every page, so it is compressed
  once, and no page holds a compressor;
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
import queue
import selectors
import socket
import threading
import time
import zlib
from collections import deque

from engineio import packet as eio_packet
from engineio import socket as eio_socket
from wsproto import ConnectionType, WSConnection
from wsproto.events import AcceptConnection, BytesMessage, CloseConnection, Ping, Request, TextMessage
from wsproto.utilities import LocalProtocolError

from bank.web.push import deflate
from bank.web.serving import handoff

READ = 65536
MIN_COMPRESS = 64  # bytes: a ping or a short reply goes plain (deflate's framing costs more than it saves)
LATE_PUT = 1.0  # seconds after the switch to the outbox, the old queue is emptied once more (Page._adopt_queue)
CLOSE_FRAME = b"\x88\x02\x03\xe8"  # a close frame, status 1000 (normal closure)
log = logging.getLogger("engineio.server")


class HubDeflate(deflate.SmallDeflate):
    """SmallDeflate, the server compressing each message on its own (server_no_context_takeover)."""

    def __init__(self) -> None:
        super().__init__()
        self.server_no_context_takeover = True


def _header(opcode: int, rsv1: bool, length: int) -> bytes:
    first = 0x80 | (0x40 if rsv1 else 0) | opcode  # FIN, RSV1 for a compressed message; a server does not mask
    if length < 126:
        return bytes((first, length))
    if length < 65536:
        return bytes((first, 126)) + length.to_bytes(2, "big")
    return bytes((first, 127)) + length.to_bytes(8, "big")


def frame_of(pkt, compress: bool) -> bytes:
    """The WebSocket frame of an Engine.IO packet, made once per packet and kept on it for the other pages."""
    frames = pkt.__dict__.setdefault("hub_frames", {})
    frame = frames.get(compress)
    if frame is None:
        data = pkt.encode()
        binary = isinstance(data, (bytes, bytearray))
        payload = bytes(data) if binary else data.encode()
        rsv1 = compress and len(payload) >= MIN_COMPRESS
        if rsv1:
            packer = zlib.compressobj(zlib.Z_DEFAULT_COMPRESSION, zlib.DEFLATED, -deflate.WINDOW_BITS,
                                      deflate.MEM_LEVEL)
            payload = (packer.compress(payload) + packer.flush(zlib.Z_SYNC_FLUSH))[:-4]  # RFC 7692 7.2.1
        frame = frames[compress] = _header(0x2 if binary else 0x1, rsv1, len(payload)) + payload
    return frame


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
        extension, reply = HubDeflate(), b""
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
        page = Page(self, eio, own, ws, extension._enabled, release)
        self.call(page.register)
        raise StopIteration()  # as simple-websocket under Gunicorn: the worker writes no reply, and moves on


class Outbox:
    """A handed-off page's `queue` for Engine.IO: put() frames and writes; None asks to close."""

    def __init__(self, page: "Page"):
        self.page = page

    def put(self, pkt) -> None:
        if pkt is None:
            self.page.close_soon()
            return
        self.page.put(frame_of(pkt, self.page.compress), first=pkt.packet_type == eio_packet.PING)

    def qsize(self) -> int:
        return len(self.page.out)

    def empty(self) -> bool:
        return not self.page.out

    def join(self) -> None:  # Socket.close(wait=True): the hub writes what is left, no one waits for it
        pass

    def task_done(self) -> None:
        pass

    def get(self, block=True, timeout=None):  # a long poll after the upgrade is answered without it
        raise queue.Empty()


class Page:
    """One handed-off WebSocket: its socket, wsproto for what the page sends, and its outbox."""

    def __init__(self, hub: Hub, eio, sock, ws, compress: bool, release):
        self.hub, self.eio, self.sock, self.ws, self.compress, self.release = hub, eio, sock, ws, compress, release
        self.lock = threading.Lock()
        self.out: deque = deque()  # frames not fully written; the first may be partly written (`sent` bytes)
        self.sent = 0
        self.writing = False       # the hub waits for the socket to take more
        self.closing = self.closed = False
        self.parts: list = []      # a message arriving in several frames
        self.size = 0
        self.state = "probe" if eio.connected else "open"
        if self.state == "open":
            eio.connected = eio.upgraded = True
            self._adopt_queue()
        else:
            eio.upgrading = True  # Engine.IO holds the long poll's packets while the page probes

    def _adopt_queue(self) -> None:
        """From now on Engine.IO's packets for this page come to its outbox; those already queued go first.

        A thread that read `socket.queue` just before may still put into the old one (a Socket.IO handler
        answering the page's connect, under load): the old queue forwards to the outbox from now on, and is
        looked at again a moment later for a packet put while it was being emptied."""
        old = self.eio.queue
        with self.lock:
            outbox = self.eio.queue = Outbox(self)
            old.put = outbox.put
            closed = self._drain(old)
        if closed:
            self.close_soon()
        self.hub.after(LATE_PUT, lambda: self._drain_locked(old))

    def _drain_locked(self, old) -> None:
        with self.lock:
            closed = self._drain(old)
        if closed:
            self.close_soon()

    def _drain(self, old) -> bool:
        """(lock held) The packets left in the old queue, into the outbox in their order, and written; True if
        Engine.IO asked to close meanwhile (a None in the queue)."""
        closed = False
        while True:
            try:
                pkt = old.get_nowait()
            except queue.Empty:
                break
            if pkt is None:
                closed = True
            elif not (self.closing or self.closed):
                self.out.append(frame_of(pkt, self.compress))
        self._write()
        self._want_write()
        return closed

    # -- sending: any thread --------------------------------------------------------------------

    def put(self, frame: bytes, first: bool = False) -> None:
        with self.lock:
            if self.closing or self.closed:
                return
            if first and self.out:
                self.out.insert(1 if self.sent else 0, frame)  # a ping waits for no round
            else:
                self.out.append(frame)
            if len(self.out) == 1 or (first and not self.sent):
                self._write()
            self._want_write()

    def _want_write(self) -> None:
        """(lock held) What the kernel did not take: the hub writes it when the socket can take more."""
        if self.out and not self.writing and not self.closed:
            self.writing = True
            self.hub.call(self._watch)

    def _write(self) -> None:
        """(lock held) As much of the outbox as the socket takes now, without waiting."""
        while self.out:
            frame = self.out[0]
            try:
                self.sent += self.sock.send(memoryview(frame)[self.sent:] if self.sent else frame)
            except (BlockingIOError, InterruptedError):
                return
            except OSError:
                self.out.clear()
                self.hub.call(self.gone)
                return
            if self.sent < len(frame):
                return
            self.out.popleft()
            self.sent = 0

    def close_soon(self) -> None:
        """Engine.IO closes the page: what is queued goes out, then the close frame, then the connection."""
        with self.lock:
            if self.closing or self.closed:
                return
            self.closing = True
            self.out.append(CLOSE_FRAME)
            self._write()
            done = not self.out
            self._want_write()
        if done:
            self.hub.call(self.gone)

    # -- the hub's thread -----------------------------------------------------------------------

    def register(self) -> None:
        if self.closed:
            return
        try:
            self.hub.selector.register(self.sock, selectors.EVENT_READ, self)
        except (ValueError, OSError):  # closed before the hub saw it
            self.gone()
            return
        self.hub.pages += 1

    def _watch(self) -> None:
        with self.lock:
            wanted = selectors.EVENT_READ | (selectors.EVENT_WRITE if self.out else 0)
            self.writing = bool(self.out)
        self._select(wanted)

    def _select(self, events: int) -> None:
        if self.closed:
            return
        try:
            self.hub.selector.modify(self.sock, events, self)
        except (KeyError, ValueError, OSError):  # not registered yet (register() comes next) or closed
            pass

    def on_events(self, events: int) -> None:
        if self.closed:
            return
        if events & selectors.EVENT_WRITE:
            with self.lock:
                self._write()
                empty = not self.out
                if empty:
                    self.writing = False
            if empty:
                if self.closing:
                    self.gone()
                    return
                self._select(selectors.EVENT_READ)
        if events & selectors.EVENT_READ:
            self._read()

    def _read(self) -> None:
        try:
            data = self.sock.recv(READ)
        except (BlockingIOError, InterruptedError):
            return
        except OSError:
            data = b""
        if not data:
            self.gone()
            return
        try:
            self.ws.receive_data(data)
            for event in self.ws.events():
                if self.closed:
                    return
                if isinstance(event, (TextMessage, BytesMessage)):
                    self._message(event)
                elif isinstance(event, Ping):
                    self.put(self.ws.send(event.response()), first=True)
                elif isinstance(event, CloseConnection):
                    self.put(self.ws.send(event.response()))
                    self.gone()
                    return
        except LocalProtocolError:
            self.gone()

    def _message(self, event) -> None:
        self.parts.append(event.data)
        self.size += len(event.data)
        if self.size > self.eio.server.max_http_buffer_size:
            log.info("%s: packet is too large, closing the connection", self.eio.sid)
            self.gone()
            return
        if not event.message_finished:
            return
        data = "".join(self.parts) if isinstance(event, TextMessage) else b"".join(self.parts)
        self.parts, self.size = [], 0
        if self.state == "probe":  # the page upgrades from long polling: Engine.IO's probe, then UPGRADE
            if data != "2probe":
                self._failed_upgrade()
                return
            self.put(frame_of(eio_packet.Packet(eio_packet.PONG, data="probe"), False))
            self.eio.queue.put(eio_packet.Packet(eio_packet.NOOP))  # the long poll returns
            self.state = "upgrade"
            return
        if self.state == "upgrade":
            if data != str(eio_packet.UPGRADE):
                self._failed_upgrade()
                return
            self.eio.upgraded, self.eio.upgrading, self.state = True, False, "open"
            self._adopt_queue()
            return
        pkt = eio_packet.Packet(encoded_packet=data)
        if pkt.packet_type == eio_packet.CLOSE:
            self.gone(self.eio.server.reason.CLIENT_DISCONNECT)
            return
        try:
            self.eio.receive(pkt)
        except Exception:  # as Engine.IO's own loop: a packet it cannot take ends the page
            log.info("%s: receive error, closing the connection", self.eio.sid, exc_info=True)
            self.gone()

    def _failed_upgrade(self) -> None:
        """As Engine.IO: the page stays on long polling; this WebSocket closes without closing the page."""
        self.eio.upgrading = False
        self.state = "failed"
        self.gone()

    def gone(self, reason=None) -> None:
        """The connection ends (closed by the page, the network, a cut, or Engine.IO): free it all once."""
        if self.closed:
            return
        with self.lock:
            self.closed = True
            self.out.clear()
        try:
            self.hub.selector.unregister(self.sock)
            self.hub.pages -= 1
        except (KeyError, ValueError, OSError):
            pass
        try:
            self.sock.close()
        except OSError:
            pass
        self.release()
        if self.state == "failed":
            return
        eio = self.eio
        reason = reason or eio.server.reason.TRANSPORT_CLOSE

        def close():
            # Socket.IO's disconnect handlers run here, not in the hub's thread: they may wait for a lock a
            # round holds while it writes to other pages.
            eio.close(wait=False, abort=True, reason=reason)
            if eio.server.sockets.get(eio.sid) is eio:
                del eio.server.sockets[eio.sid]
        if not eio.closed:
            eio.server.start_background_task(close)
        elif eio.server.sockets.get(eio.sid) is eio:
            eio.server.sockets.pop(eio.sid, None)


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
