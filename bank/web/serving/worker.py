"""Gunicorn's threaded worker, guarded: caps, eviction of idle connections, heads read without a thread.

Split from server.py. What `gthread` does not do by itself, and this adds:
- a connection holds no pool thread until its request's headers are all in, and its body too
  (up to LOOP_BODY bytes, by Content-Length, chunked, or after `Expect: 100-continue`: loop_body.py):
  the worker's loop reads them (a silent, slow-header or slow-body client costs a descriptor, never a
  thread, whatever secret it carries) and closes it `header_seconds` after it was accepted;
- the listener's queue is emptied at each wake-up (ACCEPT_BATCH), so a phone's new connection
  does not wait behind strangers' in the kernel's queue;
- at `max_connections` the oldest connection that has not sent a request, or waits idle
  between two, is closed for the newcomer (idle sockets from four addresses
  filled the 1,000 and every phone got a 503); only when none is left is a newcomer refused;
- a cap per address, refused at once with a short page that says to try again;
- deadlines for a request's headers (deadlines.py; the body's: admission.py).
"""

from __future__ import annotations

import errno
import os
import selectors
import socket
import threading
import time
import weakref
from functools import partial

from bank.web.serving.deadlines import DEADLINES
from bank.web.serving import handoff, stopping
from bank.web.serving.limits import STACK_SIZE, Limits, refusal_bytes
from bank.web.serving.loop_body import CONTINUE, LOOP_BODY, Chunked, plan, without_expect  # noqa: F401 (LOOP_BODY: its old home)

HEAD_CHUNK = 16384
MAX_HEAD = 65536  # a longer head goes to the pool as it is: Gunicorn refuses it (limit_request_*)
# Read in a thread, 8 addresses dripping log-in bodies held the anonymous bodies' threads, the rest were
# refused with a 503 and came back at once, and ~450 of their connections queued in the listener ahead of
# every phone: at a tenth of a core the worst phone waited 7-11 s. So the loop reads bodies too (loop_body.py).
# Connections accepted per wake-up of the loop. Slow headers from 8 addresses at a tenth of a core, worst
# phone: one a wake-up (Gunicorn's) 3.2-4.3 s, 64 1.3-3.3 s, 512 3.9-4.2 s (a long accept spell starves
# the readable sockets; docs/RELIABILITY.md).
ACCEPT_BATCH = 64
# The most of a body answered unread that a thread takes from what has already arrived, to keep the connection.
DRAIN_BYTES = 65536


def worker_classes():
    """Import Gunicorn only when serving (tests of prepare() need no server)."""
    from gunicorn.workers.gthread import TConn, ThreadWorker

    class GuardedConn(TConn):
        """A connection that counts against its address until closed, and reads with deadlines."""

        def __init__(self, cfg, sock, client, server, owner):
            super().__init__(cfg, sock, client, server)
            self.owner, self.released, self.head = owner, False, b""
            self.request_end = None  # once the head is in: how many bytes of head and body to read in the loop
            self.chunks = None  # a chunked body the loop is reading (loop_body.Chunked)
            self.body_read = False  # the loop read a body: the app's body deadline is not needed (admission.py)
            self.from_loop = False  # the loop read this request: enqueue_req gives it a thread

        def init(self):
            super().init()
            if self.head:  # what the worker's loop already read: the parser reads it first
                self.parser.unreader.unread(self.head)
                self.head = b""
            # handle() made the socket blocking (no timeout) just before this: every request
            # on the connection gets a per-read timeout and a deadline for its headers.
            self.sock.settimeout(self.owner.limits.read_seconds)
            DEADLINES.set(self.sock, self.owner.limits.header_seconds)
            if self.body_read:
                DEADLINES.read_whole(self.sock)
                self.body_read = False
            self.initialized = False  # so the next request on this connection passes here too

        def close(self, graceful=False):
            DEADLINES.forget(self.sock)
            own = handoff.taken(self.sock)
            if own is None:
                self.owner.release(self)
            else:
                graceful = False  # a WebSocket the app serves on (handoff.py): drop this descriptor only
                self.owner.handed_off.add(own)  # still this worker's to cut when it stops (thread.py)
                self.owner.hand_off(self, own)  # and still in its caps until the app closes it
            if graceful:
                # Gunicorn's graceful close lingers up to 2 s reading, in the worker's main loop: a
                # client dripping its body would stall every other connection. Send
                # the FIN, take what has already arrived (so the reply is not cut by a reset), close.
                try:
                    self.sock.shutdown(socket.SHUT_WR)
                    self.sock.setblocking(False)
                    for _ in range(16):
                        if not self.sock.recv(65536):
                            break
                except OSError:
                    pass
            super().close(False)

    class GuardedWorker(ThreadWorker):
        """gthread, plus: heads read in the loop, idle ones evicted at the cap, per-address cap, deadlines."""

        def __init__(self, *args, **kwargs):
            super().__init__(*args, **kwargs)
            self.limits: Limits = self.app.limits
            self.by_address: dict[str, int] = {}
            self.count_lock = threading.Lock()
            self.refused = self.evicted = 0
            self.handed_off = weakref.WeakSet()  # the app's sockets of the WebSockets it serves (handoff.py)
            self.handed_open = 0  # of them, not closed yet: Gunicorn's nr_conns no longer counts them

        def handle_exit(self, sig, frame):
            # SIGTERM: readiness says "stopping" at once; the worker goes on serving for the
            # drain window (stopping.py), then stops as Gunicorn's would.
            stopping.begin(stopping.drain_seconds(), self._stop_now)

        def _stop_now(self):
            self.alive = False
            # Wake the loop now, as Gunicorn's handle_exit (replaced above) does: otherwise it saw the stop only at the
            # end of its 1 s wait for events, and every SIGTERM (systemctl stop or restart, a test's) ended a second later.
            self.method_queue.defer(lambda: None)

        def init_process(self):
            threading.stack_size(STACK_SIZE)  # before the pool's threads start
            _die_with_parent(self.ppid)
            super().init_process()

        def load_wsgi(self):
            # A game the database cannot open yet (it is away, or another program holds the file's lock):
            # answer 503 and open it as soon as it can, rather than fail to boot and end the master (opening.py).
            try:
                super().load_wsgi()
            except Exception as exc:
                from bank.web.serving.opening import Opening, transient

                if not transient(exc):
                    raise
                self.wsgi = Opening(self, exc)

        def accept(self, listener):
            for _ in range(ACCEPT_BATCH):
                if not self.accept_one(listener):
                    return

        def accept_one(self, listener) -> bool:
            """Take one connection from the listener's queue; False when it is empty (or out of descriptors)."""
            try:
                sock, addr = listener.accept()
            except OSError as exc:
                if exc.errno in (errno.EMFILE, errno.ENFILE):
                    time.sleep(0.05)  # out of descriptors: the listener stays readable, do not spin
                return False
            address = addr[0] if isinstance(addr, tuple) else "unix"
            with self.count_lock:
                over_address = self.by_address.get(address, 0) >= self.limits.per_address
            over_total = (not over_address and self.nr_conns + self.handed_open >= self.limits.max_connections
                          and not self.evict())
            if over_total or over_address:
                self.refused += 1
                _refuse(sock, per_address=over_address)
                return True
            with self.count_lock:
                self.by_address[address] = self.by_address.get(address, 0) + 1
            self.nr_conns += 1
            conn = GuardedConn(self.cfg, sock, addr, listener.getsockname(), self)
            self.wait_for_head(conn)
            return self.nr_conns < self.worker_connections  # Gunicorn stops accepting at its cap

        def wait_for_head(self, conn):
            """In the poller, not in a pool thread, until the request's headers (and small body) are in."""
            conn.timeout = time.monotonic() + self.limits.header_seconds
            conn.request_end, conn.chunks = None, None
            self.pending_conns.append(conn)
            self.poller.register(conn.sock, selectors.EVENT_READ,
                                 partial(self.on_pending_socket_readable, conn))

        def on_pending_socket_readable(self, conn, client):
            if conn.released:
                # Evicted earlier in this same turn of the loop (accept at the cap), its readiness already
                # listed: without this the worker died on the missing entry ("not in deque") and Gunicorn
                # restarted it, every connection lost: phones waited up to 10 s.
                return
            try:
                data = conn.sock.recv(HEAD_CHUNK)
            except (BlockingIOError, InterruptedError):
                return
            except OSError:
                data = b""
            if not data:  # the client went away before its request
                self._drop(conn, self.pending_conns)
                return
            conn.head += data
            self.advance(conn)

        def advance(self, conn):
            """What the loop has of the request so far: a thread once its head (and small body) is all in."""
            if conn.request_end is None:
                end = conn.head.find(b"\r\n\r\n")
                if end < 0 and len(conn.head) < MAX_HEAD:
                    return
                if not self.plan_body(conn, end):
                    return
            if conn.chunks is not None:
                done = conn.chunks.feed(conn.head)
                if done is None:
                    return  # the body is still coming: no thread waits for it
                # -1: too big or not chunked framing: its thread reads on, under admission.py's pools
                conn.chunks, conn.body_read = None, done > 0
            elif len(conn.head) < conn.request_end:
                return  # the body is still coming: no thread waits for it
            self.poller.unregister(conn.sock)
            self.pending_conns.remove(conn)
            conn.data_ready, conn.from_loop = True, True
            self.enqueue_req(conn)

        def enqueue_req(self, conn):
            if conn.from_loop:
                conn.from_loop = False
                super().enqueue_req(conn)
                return
            # Gunicorn's own way here: a kept-alive connection whose last request left the next one's bytes read
            # ahead (pipelined). Straight to a thread, a head that never ends behind a request held that thread
            # until the head's deadline; so those bytes are read on in the loop, as a new connection's are.
            ahead = conn.parser.unreader.take_buffered()
            conn.sock.setblocking(False)
            self.wait_for_head(conn)
            conn.head = ahead
            self.advance(conn)

        def plan_body(self, conn, end: int) -> bool:
            """The head is in (or too long: `end` < 0): how the loop reads the body. False: the connection was dropped."""
            conn.request_end, conn.body_read = 0, False
            if end < 0:
                return True  # Gunicorn refuses the head in its thread
            body = plan(conn.head[:end])
            if not body.in_loop:
                conn.request_end = end + 4
                return True
            if body.expect:
                # The client waits for this before it sends its body: the loop answers, and Gunicorn, which
                # would answer it in a thread, no longer sees the header.
                conn.head = without_expect(conn.head[:end]) + conn.head[end:]
                end = conn.head.find(b"\r\n\r\n")
                try:
                    if conn.sock.send(CONTINUE) != len(CONTINUE):
                        raise OSError("100 Continue cut")
                except OSError:
                    self._drop(conn, self.pending_conns)
                    return False
            if body.chunked:
                conn.chunks = Chunked(end + 4)
            else:
                conn.request_end, conn.body_read = end + 4 + body.length, True
            return True

        def on_client_socket_readable(self, conn, client):
            # A kept-alive connection speaks again: its next head is read here too, with its deadline.
            if conn.released:  # evicted earlier in this turn (see on_pending_socket_readable)
                return
            self.poller.unregister(client)
            self.keepalived_conns.remove(conn)
            self.wait_for_head(conn)
            self.on_pending_socket_readable(conn, client)

        def evict(self) -> bool:
            """Close the oldest connection that holds no request (never sent one, or idle kept-alive)."""
            for waiting in (self.pending_conns, self.keepalived_conns):
                if waiting:
                    self._drop(waiting[0], waiting)
                    self.evicted += 1
                    return True
            return False

        def _drop(self, conn, waiting):
            try:
                self.poller.unregister(conn.sock)
            except (OSError, KeyError, ValueError):
                pass
            waiting.remove(conn)
            self.nr_conns -= 1
            conn.close()

        def hand_off(self, conn, own):
            """A connection the app serves on after its request (handoff.py): Gunicorn stops counting it when the
            request ends, the caps go on counting it, and its address, until the app closes it."""
            if getattr(conn, "handed", False):
                return
            conn.handed = True
            with self.count_lock:
                self.handed_open += 1

            def closed():
                with self.count_lock:
                    self.handed_open -= 1
                self.release(conn)
            handoff.when_closed(own, closed)

        def release(self, conn):
            if conn.released:
                return
            conn.released = True
            address = conn.client[0] if isinstance(conn.client, tuple) else "unix"
            with self.count_lock:
                left = self.by_address.get(address, 1) - 1
                if left > 0:
                    self.by_address[address] = left
                else:
                    self.by_address.pop(address, None)

        def _keepalive_after(self, conn, keepalive):
            if DEADLINES.closing(conn.sock):  # a refused body (admission.py): close, do not drain it
                return False
            if not keepalive:
                return False
            if _chunked_unread(conn.parser):
                # Gunicorn parses a chunked body a chunk at a time in Python: draining strangers' bodies of one-byte
                # chunks, answered unread (a 403, a 413), took every thread's share of the interpreter and kept the
                # loop from reading any other request for 30 s and more. Such a connection closes instead.
                return False
            # A body answered without being read (a route's 413, a route that reads none): Gunicorn drained the
            # rest here for up to 5 s, in this thread, after the body's pool had been given back with the reply,
            # so dripped bodies held every thread uncounted. Only what has already come is taken, without
            # waiting; otherwise the connection closes (its reply is sent, and GuardedConn.close takes what
            # arrived without waiting either).
            prior = conn.sock.gettimeout()
            conn.sock.setblocking(False)
            try:
                return bool(conn.parser.finish_body(max_bytes=DRAIN_BYTES))
            except Exception:  # noqa: BLE001 - more to come (BlockingIOError), or framing no next request can follow
                return False
            finally:
                try:
                    conn.sock.settimeout(prior)
                except OSError:
                    pass

        def murder_pending(self):
            # Called by the main loop about once a second: also end overdue reads.
            super().murder_pending()
            DEADLINES.enforce()

    return GuardedConn, GuardedWorker


def _chunked_unread(parser) -> bool:
    """Whether the request's body is chunked and was not read to its end (Gunicorn's ChunkedReader still parsing)."""
    reader = getattr(getattr(getattr(parser, "mesg", None), "body", None), "reader", None)
    return type(reader).__name__ == "ChunkedReader" and getattr(reader, "parser", None) is not None


def _die_with_parent(ppid: int) -> None:
    """A worker goes with `terrabank serve` even when that is SIGKILLed (a power cut, a test).

    Otherwise the orphan would keep the port and the game file's lock (inherited at the
    fork) for a second or more, and a restart at once would be refused. Linux only; elsewhere
    Gunicorn's own check (the parent changed) still stops it within about a second.
    """
    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(1, 9)  # PR_SET_PDEATHSIG, SIGKILL
    except (OSError, AttributeError):
        return
    if os.getppid() != ppid:  # the parent went before prctl took effect
        os._exit(1)


def _refuse(sock, per_address: bool) -> None:
    """Say no at once and close: the browser shows the sentence instead of spinning."""
    try:
        sock.setblocking(False)
        try:
            sock.recv(65536)  # what the client already sent: unread data would turn close() into a reset
        except OSError:
            pass
        sock.send(refusal_bytes(per_address))
        sock.shutdown(socket.SHUT_WR)
    except OSError:
        pass
    finally:
        sock.close()
