"""Serve the live bank like production (issue 13): Gunicorn's threaded worker, guarded.

Flask-SocketIO documents, for its threading mode, Gunicorn with one worker, threads
and simple-websocket; gevent was measured too (bench/bench_servers.py, docs/PERFORMANCE.md
"Production serving") and lost on the slow-client attack and on what installs on a
32-bit Raspberry Pi. Gunicorn itself is pure Python (one wheel for every machine).

What Gunicorn's `gthread` worker does not do by itself, and this module adds:
- a deadline for a request's headers and one for its body (a slow client holds a
  thread only that long; a half-open connection that sent nothing holds no thread);
- a cap on open connections and a per-address cap, refused at once with a short
  page that says to try again (not left waiting in the kernel's queue);
- threads no live page may take (`Limits.live_reserve`, `LiveSlots`): a new live page
  beyond the others gets a 503 with a sentence, and a facilitator's command an answer;
- gzip of pages, scripts, styles and JSON, and static files named by content hash
  (`?v=<hash>`, cached for a year), so a reload downloads almost nothing.
`--dev` keeps Werkzeug (bank/cli/serve.py); `prepare(app)` applies to both.
`serving_thread.serve_in_thread(app)` runs the same worker in a thread of this process,
for the browser tests and the screenshots.
"""

from __future__ import annotations

import dataclasses
import errno
import gzip
import hashlib
import os
import resource
import selectors
import socket
import threading
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from urllib.parse import parse_qs

from flask import Flask, request, url_for

from bank.web.serving.after_reply import AfterReply

STACK_SIZE = 512 * 1024  # per thread; why: bank/cli/serve.py (32-bit Raspberry Pi OS, four threads a page)


@dataclass(frozen=True)
class Limits:
    """The numbers, and why (docs/PERFORMANCE.md "Production serving" measures them).

    A live page holds one pool thread for its WebSocket's whole life, so `threads` is
    the live pages plus room for plain requests and for slow clients until their
    deadline: 200 phones + 5 facilitator screens leave about 300 spare. A single
    address may hold `per_address` connections: 100 phones behind one access point
    (the same address once NATed) need one WebSocket each plus a few short-lived
    connections while a page loads (a browser opens at most 6 per site, for about a
    second, then keeps them 5 s): 100 + 150 in a burst. One laptop therefore takes at
    most 250 of the 500 threads and 250 of the 1,000 connections; the rest stays for
    the big screen, the facilitators and the other phones. Live pages together take at
    most `threads - reserve()` threads (`live_slots`), so that with every phone of the game
    connected, a command still finds a thread (issue 15).
    """

    threads: int = 500
    max_connections: int = 1000      # open connections, all addresses together
    per_address: int = 250           # open connections from one IP address
    header_seconds: float = 10.0     # from accept (or keep-alive wake-up) to the end of the headers
    body_seconds: float = 30.0       # from the end of the headers until the app starts its reply
    read_seconds: float = 30.0       # any single read or write of a plain request (not of a WebSocket)
    keepalive_seconds: int = 5       # an idle kept-alive connection, then closed
    # Threads no live page may take (issue 15): a console command, a page load, the API always find
    # one. None: a tenth of the threads, at least 4 (500 threads: 450 live pages, 50 in reserve).
    live_reserve: int | None = None

    def __post_init__(self):
        from bank.errors import BankError

        if self.live_reserve is not None and not 0 <= self.live_reserve < self.threads:
            raise BankError("bad_live_reserve",
                            f"live_reserve is {self.live_reserve}, but it must be from 0 to threads - 1 "
                            f"({self.threads - 1}) so that at least one live page fits; leave it out for "
                            "a tenth of the threads.")

    def reserve(self) -> int:
        """Threads kept for plain requests: never taken by a live page."""
        if self.live_reserve is not None:
            return self.live_reserve
        return min(max(4, self.threads // 10), self.threads - 1)

    def live_slots(self) -> int:
        """Live pages (WebSockets, long polls) served at once; a new one beyond is refused with a 503."""
        return self.threads - self.reserve()

    def fd_needed(self) -> int:
        """One descriptor per connection, plus SQLite files, the listener, pipes and margin."""
        return self.max_connections + 256


REFUSAL = ("La banque a trop de connexions ouvertes{who} ; réessayez dans quelques secondes.\n"
           "The bank has too many open connections{who_en}; try again in a few seconds.\n")


LIVE_REFUSAL = ("Trop de pages en direct sont ouvertes sur la banque : fermez la page de la banque sur un "
                "autre téléphone ou écran, ou prévenez l'animateur principal. Cette page réessaie toute seule.\n"
                "Too many live pages are open on the bank: close the bank's page on another phone or screen, "
                "or tell the lead facilitator. This page tries again by itself.\n")


def refusal_bytes(per_address: bool) -> bytes:
    """The whole HTTP reply sent to a connection over a cap, before reading anything from it."""
    body = REFUSAL.format(who=" depuis votre adresse" if per_address else "",
                          who_en=" from your address" if per_address else "").encode()
    status = "429 Too Many Requests" if per_address else "503 Service Unavailable"
    return (f"HTTP/1.1 {status}\r\nContent-Type: text/plain; charset=utf-8\r\nRetry-After: 5\r\n"
            f"Connection: close\r\nContent-Length: {len(body)}\r\n\r\n").encode() + body


class Deadlines:
    """Sockets reading a request, each with the time it must be done by.

    The worker's main loop (about once a second) shuts an overdue socket down, which
    ends the thread's blocked read at once: a per-read timeout alone would let a client
    sending one byte every few seconds hold a thread for ever.
    """

    def __init__(self):
        self._lock = threading.Lock()
        self._due: dict[socket.socket, float] = {}

    def set(self, sock, seconds: float) -> None:
        with self._lock:
            self._due[sock] = time.monotonic() + seconds

    def clear(self, sock) -> None:
        with self._lock:
            self._due.pop(sock, None)

    def overdue(self) -> list:
        now = time.monotonic()
        with self._lock:
            late = [s for s, t in self._due.items() if t < now]
            for s in late:
                del self._due[s]
        return late

    def enforce(self) -> int:
        late = self.overdue()
        for sock in late:
            try:
                sock.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
        return len(late)


DEADLINES = Deadlines()  # one worker process, one table


# --- the application side: compression, static files by content hash, body deadline ---------

COMPRESSIBLE = ("text/html", "text/css", "text/plain", "text/javascript", "application/javascript",
                "application/json", "image/svg+xml")
MIN_GZIP = 512  # below this gzip's header costs more than it saves


def prepare(app: Flask, limits: Limits | None = None) -> Flask:
    """Compression and static caching for any server; the body deadline for the guarded worker."""
    from bank.web.serving.proxies import behind, trusted_proxies

    done = app.extensions.setdefault("terrabank_serving", set())
    if "proxies" not in done:  # once: each ProxyFix layer trusts one more forwarded address
        behind(app, trusted_proxies())
        done.add("proxies")
    if limits is not None and "body_deadline" not in done:
        app.wsgi_app = _BodyDeadline(app.wsgi_app, limits.body_seconds)
        done.add("body_deadline")
    if limits is not None and "live_slots" not in done:
        app.wsgi_app = LiveSlots(app.wsgi_app, limits.live_slots())
        app.extensions["terrabank_live_slots"] = app.wsgi_app  # for whoever debugs, and for tests
        done.add("live_slots")
    if "after_reply" not in done:  # a command's live updates start once its reply is written
        app.wsgi_app = AfterReply(app.wsgi_app)
        done.add("after_reply")
    if "compress" in done:
        return app  # prepared before (`serve --dev`, a test serving the same app twice): not twice
    done.add("compress")
    versions = _StaticVersions(Path(app.static_folder))
    gzipped: dict[tuple, bytes] = {}

    def versioned_url_for(endpoint, **values):
        # Templates call url_for('static', filename=...): one override here, no template edited.
        if endpoint == "static" and "filename" in values and "v" not in values:
            version = versions.get(values["filename"])
            if version:
                values["v"] = version
        return url_for(endpoint, **values)

    app.jinja_env.globals["url_for"] = versioned_url_for

    @app.after_request
    def _cache_and_compress(response):
        immutable = False
        if request.endpoint == "static":
            wanted = request.args.get("v")
            if wanted and wanted == versions.get(request.view_args.get("filename", "")):
                # The URL changes when the file does: a reload needs no request at all.
                response.headers["Cache-Control"] = "public, max-age=31536000, immutable"
                immutable = response.status_code == 200
        response = _compress(response, gzipped)  # its cache is keyed by the ETag: read before it goes
        if immutable:
            # Never revalidated (the URL names the content), so the validators and the file name
            # are bytes for nothing: about 150 a file, on each of a phone's dozen scripts.
            for header in ("ETag", "Last-Modified", "Content-Disposition"):
                response.headers.pop(header, None)
        return response

    return app


class _StaticVersions:
    """sha256 of each static file, cached by (size, mtime): the `v` of its URL."""

    def __init__(self, folder: Path):
        self.folder, self.cache, self.lock = folder.resolve(), {}, threading.Lock()

    def get(self, filename: str) -> str | None:
        path = (self.folder / filename).resolve()
        if not path.is_relative_to(self.folder):
            return None
        try:
            st = path.stat()
        except OSError:
            return None
        key = (filename, st.st_size, st.st_mtime_ns)
        with self.lock:
            if key not in self.cache:
                self.cache[key] = hashlib.sha256(path.read_bytes()).hexdigest()[:12]
            return self.cache[key]


def _compress(response, cache: dict):
    """gzip the reply when the browser takes it and it is text worth compressing."""
    response.vary.add("Accept-Encoding")
    if (response.status_code != 200 or "gzip" not in request.headers.get("Accept-Encoding", "")
            or request.path.startswith("/socket.io") or "Content-Encoding" in response.headers
            or (response.mimetype or "") not in COMPRESSIBLE or request.method == "HEAD"):
        return response
    static = request.endpoint == "static"
    if response.is_streamed and not static:
        return response  # a generator the app streams: leave it alone
    response.direct_passthrough = False  # a static file: read it (small; the result is cached)
    key = (request.path, response.headers.get("ETag")) if static else None
    data = cache.get(key) if key else None
    if data is not None and hasattr(response.response, "close"):
        response.response.close()  # the file we did not need to read again
    if data is None:
        raw = response.get_data()
        if len(raw) < MIN_GZIP:
            return response
        data = gzip.compress(raw, compresslevel=6, mtime=0)
        if key:
            cache[key] = data
    response.set_data(data)
    response.headers["Content-Encoding"] = "gzip"
    response.headers.pop("Accept-Ranges", None)  # byte ranges of the plain file would not fit the gzip
    etag = response.headers.get("ETag")
    if etag and not etag.startswith("W/"):
        response.headers["ETag"] = "W/" + etag  # the same file, another encoding: a weak validator
    return response


class _BodyDeadline:
    """WSGI wrapper: the header deadline ends here; a body must arrive within `seconds`.

    The deadline runs until the app starts its reply (Flask reads the body first).
    Requests without a body (pages, WebSocket upgrades, long-polls) have none.
    """

    def __init__(self, app, seconds: float):
        self.app, self.seconds = app, seconds

    def __call__(self, environ, start_response):
        sock = environ.get("gunicorn.socket")
        if sock is None:
            return self.app(environ, start_response)
        has_body = (environ.get("CONTENT_LENGTH") not in (None, "", "0")
                    or "chunked" in environ.get("HTTP_TRANSFER_ENCODING", "").lower())
        if not has_body:
            DEADLINES.clear(sock)
            if environ.get("HTTP_UPGRADE", "").lower() == "websocket":
                # A live page's socket for the rest of its life: no read timeout, as under Werkzeug.
                # Engine.IO's ping (every 10 s, 10 s to answer) closes a page that went away. With
                # the 30 s timeout kept, a soak on a machine at load 18 lost 76 of 200 pages in one
                # burst (docs/PERFORMANCE.md): a page slow to read must not be cut by the server.
                sock.settimeout(None)
            return self.app(environ, start_response)
        DEADLINES.set(sock, self.seconds)

        def started(status, headers, exc_info=None):
            DEADLINES.clear(sock)
            return start_response(status, headers, exc_info)

        try:
            return self.app(environ, started)
        finally:
            DEADLINES.clear(sock)


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


class LiveSlots:
    """WSGI wrapper: live pages take at most `slots` pool threads; the rest stay for plain requests.

    A live page's WebSocket holds a thread of the pool for its whole life: at as many live pages
    as threads, a console command waited for a thread for ever (issue 15). Beyond `slots` a new
    live page gets a 503 and a sentence instead (its Socket.IO client tries again every few
    seconds, and gets in once another page closes). The count goes down in `finally`, however
    the request ends: a page closed, a client gone mid-handshake, an error in the app.
    """

    def __init__(self, app, slots: int):
        self.app, self.slots = app, slots
        self.lock = threading.Lock()
        self.held = 0      # requests holding a thread now
        self.refused = 0   # since the start

    def __call__(self, environ, start_response):
        kind = live_kind(environ)
        if kind is None:
            return self.app(environ, start_response)
        with self.lock:
            full = self.held >= self.slots
            if full and kind != "poll":
                self.refused += 1
            elif kind != "open":
                self.held += 1
        if full and kind != "poll":
            return _refuse_live(start_response)
        if kind == "open":
            return self.app(environ, start_response)
        try:
            # The thread is held inside this call: Engine.IO answers a long poll, and runs a
            # WebSocket to its end, before returning (or raising StopIteration under Gunicorn).
            return self.app(environ, start_response)
        finally:
            with self.lock:
                self.held -= 1


def _refuse_live(start_response) -> list:
    body = LIVE_REFUSAL.encode()
    start_response("503 Service Unavailable", [
        ("Content-Type", "text/plain; charset=utf-8"), ("Content-Length", str(len(body))),
        ("Retry-After", "5"), ("Cache-Control", "no-store")])
    return [body]


# --- the server side: Gunicorn's threaded worker with deadlines and caps ----------------------

def _worker_classes():
    """Import Gunicorn only when serving (tests of prepare() need no server)."""
    from gunicorn.workers.gthread import TConn, ThreadWorker

    class GuardedConn(TConn):
        """A connection that counts against its address until closed, and reads with deadlines."""

        def __init__(self, cfg, sock, client, server, owner):
            super().__init__(cfg, sock, client, server)
            self.owner, self.released = owner, False

        def init(self):
            super().init()
            # handle() made the socket blocking (no timeout) just before this: every request
            # on the connection gets a per-read timeout and a deadline for its headers.
            self.sock.settimeout(self.owner.limits.read_seconds)
            DEADLINES.set(self.sock, self.owner.limits.header_seconds)
            self.initialized = False  # so the next request on this connection passes here too

        def close(self, graceful=False):
            DEADLINES.clear(self.sock)
            self.owner.release(self)
            super().close(graceful)

    class GuardedWorker(ThreadWorker):
        """gthread, plus: caps with a clear refusal, no thread for a silent connection, deadlines."""

        def __init__(self, *args, **kwargs):
            super().__init__(*args, **kwargs)
            self.limits: Limits = self.app.limits
            self.by_address: dict[str, int] = {}
            self.count_lock = threading.Lock()
            self.refused = 0

        def init_process(self):
            threading.stack_size(STACK_SIZE)  # before the pool's threads start
            _die_with_parent(self.ppid)
            super().init_process()

        def accept(self, listener):
            try:
                sock, addr = listener.accept()
            except OSError as exc:
                if exc.errno in (errno.EMFILE, errno.ENFILE):
                    time.sleep(0.05)  # out of descriptors: the listener stays readable, do not spin
                return
            address = addr[0] if isinstance(addr, tuple) else "unix"
            with self.count_lock:
                over_total = self.nr_conns >= self.limits.max_connections
                over_address = self.by_address.get(address, 0) >= self.limits.per_address
                if not (over_total or over_address):
                    self.by_address[address] = self.by_address.get(address, 0) + 1
            if over_total or over_address:
                self.refused += 1
                _refuse(sock, per_address=over_address and not over_total)
                return
            self.nr_conns += 1
            conn = GuardedConn(self.cfg, sock, addr, listener.getsockname(), self)
            # Wait in the poller, not in a pool thread, until the client sends something:
            # 1,000 connections that never speak cost no thread, and go after header_seconds.
            conn.timeout = time.monotonic() + self.limits.header_seconds
            self.pending_conns.append(conn)
            self.poller.register(conn.sock, selectors.EVENT_READ,
                                 lambda client, c=conn: self.on_pending_socket_readable(c, client))

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

        def murder_pending(self):
            # Called by the main loop about once a second: also end overdue reads.
            super().murder_pending()
            DEADLINES.enforce()

    return GuardedConn, GuardedWorker


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


def raise_fd_limit(needed: int) -> int:
    """Raise this process's open-file limit towards `needed` (up to the hard limit); the new soft limit."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    target = needed if hard == resource.RLIM_INFINITY else min(needed, hard)
    if soft != resource.RLIM_INFINITY and soft < target:
        resource.setrlimit(resource.RLIMIT_NOFILE, (target, hard))
        soft = target
    return soft


def behind_proxies(limits: Limits) -> Limits:
    """With TERRABANK_PROXIES set every connection comes from the proxy: the cap per address is
    the proxy's job (deploy/nginx-terrabank.conf limit_conn), the total cap stays the bank's."""
    from bank.web.serving.proxies import trusted_proxies

    if trusted_proxies():
        return dataclasses.replace(limits, per_address=limits.max_connections)
    return limits


def fit_limits(limits: Limits) -> tuple[Limits, str | None]:
    """Limits the file-descriptor limit allows, and a warning line when they had to shrink."""
    soft = raise_fd_limit(limits.fd_needed())
    if soft == resource.RLIM_INFINITY or soft >= limits.fd_needed():
        return limits, None
    fitted = max(64, soft - 256)
    data = asdict(limits)
    data["max_connections"] = fitted
    data["per_address"] = min(limits.per_address, max(16, fitted // 4))
    return Limits(**data), (f"Warning: this system lets the bank open {soft} files; it will accept at most "
                            f"{fitted} connections. Raise the limit (LimitNOFILE=4096 in the systemd unit, "
                            "or ulimit -n 4096) for 200 phones.")


def options(host: str, port: int, limits: Limits, worker: str = "gthread") -> dict:
    """Gunicorn's settings for one worker (Socket.IO keeps its clients in one process's memory)."""
    bind = f"[{host}]:{port}" if ":" in host else f"{host}:{port}"
    common = {
        "bind": [bind], "workers": 1, "keepalive": int(limits.keepalive_seconds),
        "timeout": 60, "graceful_timeout": 5, "backlog": 2048,
        "accesslog": None, "errorlog": "-", "loglevel": "warning",  # no team link (a secret) in any log
        "proc_name": "terrabank", "control_socket_disable": True,
        "limit_request_line": 4094, "limit_request_fields": 60, "limit_request_field_size": 8190,
    }
    if worker == "gthread":
        return {**common, "worker_class": _worker_classes()[1], "threads": limits.threads,
                # One above our own cap, so Gunicorn never stops accepting: over the cap we answer
                # at once (GuardedWorker.accept) instead of leaving clients in the kernel's queue.
                "worker_connections": limits.max_connections + 1}
    if worker == "gevent":  # for bench/bench_servers.py: Gunicorn's own gevent worker, monkey-patched
        return {**common, "worker_class": "gevent", "worker_connections": limits.max_connections}
    raise ValueError(f"unknown worker {worker!r}: gthread or gevent")


def run(factory, host: str, port: int, limits: Limits | None = None, worker: str = "gthread",
        listener: socket.socket | None = None) -> None:
    """Serve the app made by `factory()` (called in the worker process, after the fork: the
    ticker's threads must start there) until Ctrl+C or SIGTERM.

    `listener`: a socket the caller already bound and listens on (`serve --port 0`: the port
    the system chose is known before anything is printed, and never free for another to take).
    """
    from gunicorn.app.base import BaseApplication

    limits, warning = fit_limits(behind_proxies(limits or Limits()))
    if warning:
        print(warning, flush=True)

    class Bank(BaseApplication):
        def __init__(self):
            self.limits = limits
            super().__init__()

        def load_config(self):
            for key, value in options(host, port, limits, worker).items():
                self.cfg.set(key, value)
            if listener is not None:  # Gunicorn closes the descriptor it is given: it becomes its own
                self.cfg.set("bind", [f"fd://{listener.detach()}"])

        def load(self):
            return prepare(factory(), limits if worker == "gthread" else None)

    threading.stack_size(STACK_SIZE)
    Bank().run()
