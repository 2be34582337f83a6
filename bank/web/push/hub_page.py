"""One live page's WebSocket in the push loop (hub.py): its outbox for what Engine.IO sends, what it reads.

Any thread may send (Outbox.put: written at once without blocking when nothing waits before it); only the
loop's thread reads, registers, and ends a page (Page.gone).
"""

from __future__ import annotations

import logging
import queue
import selectors
import threading
from collections import deque

from engineio import packet as eio_packet
from wsproto.events import BytesMessage, CloseConnection, Ping, TextMessage
from wsproto.utilities import LocalProtocolError

from bank.web.push.hub_frames import CLOSE_FRAME, MIN_COMPRESS, encoded, frame_of, streams
from bank.web.serving import handoff

READ = 65536
LATE_PUT = 1.0  # seconds after the switch to the outbox, the old queue is emptied once more (Page._adopt_queue)
log = logging.getLogger("engineio.server")


class Outbox:
    """A handed-off page's `queue` for Engine.IO: put() frames and writes; None asks to close."""

    def __init__(self, page: "Page"):
        self.page = page

    def put(self, pkt) -> None:
        if pkt is None:
            self.page.close_soon()
            return
        self.page.put(pkt, first=pkt.packet_type == eio_packet.PING)

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

    def __init__(self, hub: Hub, eio, sock, ws, bits: int, release):
        """`bits`: the deflate window agreed with the page (0: it did not offer compression)."""
        self.hub, self.eio, self.sock, self.ws, self.release = hub, eio, sock, ws, release
        self.streams = streams(bits) if bits else None
        self.place = None  # where this page's compressed messages are made from (hub_frames.Streams.send)
        self.lock = threading.Lock()
        self.out: deque = deque()  # frames not fully written; the first may be partly written (`sent` bytes)
        self.sent = 0
        self.writing = False       # the hub waits for the socket to take more
        self.closing = self.closed = False
        self.parts: list = []      # a message arriving in several frames
        self.size = 0
        self.most = eio.server.max_http_buffer_size  # bytes a message; the hub sets its sender's (message_bound.py)
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
                self.out.append(self._frame(pkt))
        self._write()
        self._want_write()
        return closed

    # -- sending: any thread --------------------------------------------------------------------

    def _frame(self, pkt) -> bytes:
        """(lock held) The frame of a packet for this page, its stream moved on: frames leave in this order."""
        if self.streams is not None:
            opcode, payload = encoded(pkt)
            if len(payload) >= MIN_COMPRESS:
                frame, self.place = self.streams.send(self.place, opcode, payload)
                return frame
        return frame_of(pkt, False)

    def put(self, item, first: bool = False) -> None:
        """Send an Engine.IO packet, or a frame made already, never compressed: `first` (a ping) goes plain and
        before the frames not begun, and a compressed message must leave in the order its stream made it."""
        with self.lock:
            if self.closing or self.closed:
                return
            frame = item if isinstance(item, (bytes, bytearray)) else frame_of(item, False) if first else self._frame(item)
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
        if self.size > self.most:
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
            if self.streams is not None:
                self.streams.leave(self.place)
                self.place = None
        try:
            self.hub.selector.unregister(self.sock)
            self.hub.pages -= 1
        except (KeyError, ValueError, OSError):
            pass
        try:
            self.sock.close()
        except OSError:
            pass
        handoff.closed(self.sock)  # the worker's caps count it no more
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
