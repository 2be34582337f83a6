"""Serve the live bank like production (issue 13): Gunicorn's threaded worker, guarded.

Flask-SocketIO documents, for its threading mode, Gunicorn with one worker, threads
and simple-websocket; gevent was measured too (bench/bench_servers.py, docs/PERFORMANCE.md
"Production serving") and lost on the slow-client attack and on what installs on a
32-bit Raspberry Pi. Gunicorn itself is pure Python (one wheel for every machine).

What Gunicorn's `gthread` worker does not do by itself, and this room adds:
- the worker (worker.py): heads read in its loop (a silent or slow client holds no thread),
  idle connections closed for a newcomer at the cap, a per-address cap with a clear refusal;
- admission by authority (admission.py, identity.py; issue 23): live pages and bodies are
  counted by the secret a client holds (team link, big-screen key, facilitator session),
  clients without one share a small pool with short deadlines;
- threads no live page may take (`Limits.live_reserve`): a command always finds one;
- gzip of pages, scripts, styles and JSON, and static files named by content hash
  (`?v=<hash>`, cached for a year), so a reload downloads almost nothing (here).
`--dev` keeps Werkzeug (bank/cli/serve.py); `prepare(app)` applies to both.
`serving_thread.serve_in_thread(app)` runs the same worker in a thread of this process,
for the browser tests and the screenshots.
"""

from __future__ import annotations

import dataclasses
import gzip
import hashlib
import math
import resource
import socket
import threading
from dataclasses import asdict
from pathlib import Path

from flask import Flask, request, url_for

from bank.web.serving.admission import LIVE_REFUSAL, LiveSlots, live_kind  # noqa: F401 (their old home)
from bank.web.serving import bundles, stopping
from bank.web.serving.after_reply import AfterReply
from bank.web.serving.deadlines import DEADLINES, Deadlines  # noqa: F401
from bank.web.serving.identity import Identify
from bank.web.serving.limits import REFUSAL, STACK_SIZE, Limits, refusal_bytes  # noqa: F401
from bank.web.serving.worker import worker_classes as _worker_classes

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
    if limits is not None and "live_slots" not in done:  # by secret, and the bodies' deadlines (issue 23)
        app.wsgi_app = LiveSlots(app.wsgi_app, limits.live_slots(), limits.anonymous_live_slots(),
                                 limits.per_secret_live, Identify(app), limits.anonymous_body_slots(),
                                 limits.body_seconds, limits.anonymous_body_seconds)
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
    bundles.enable(app)  # a page's scripts as one file (bundles.py)

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
        # graceful_timeout: the master waits that long for the worker after SIGTERM: the drain
        # window (stopping.py) plus 5 s for the requests in flight.
        "timeout": 60, "graceful_timeout": 5 + math.ceil(stopping.drain_seconds()), "backlog": 2048,
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
