"""Serve the live bank like production: Gunicorn's threaded worker, guarded.

Flask-SocketIO documents, for its threading mode, Gunicorn with one worker, threads
and simple-websocket; gevent was measured too (bench/web/serving/bench_servers.py, docs/PERFORMANCE.md
"Production serving") and lost on the slow-client attack and on what installs on a
32-bit Raspberry Pi. Gunicorn itself is pure Python (one wheel for every machine).

What Gunicorn's `gthread` worker does not do by itself, and this room adds:
- the worker (worker.py): heads read in its loop (a silent or slow client holds no thread),
  idle connections closed for a newcomer at the cap, a per-address cap with a clear refusal;
- admission by authority (admission.py, identity.py): live pages and bodies are
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

import gzip
import hashlib
import socket
import threading
from pathlib import Path

from flask import Flask, request, url_for

from bank.web.serving.admission import LIVE_REFUSAL, LiveSlots, live_kind  # noqa: F401 (their old home)
from bank.web.serving import log_lines
from bank.web.serving import bundles, stopping
from bank.web.serving.after_reply import AfterReply
from bank.web.serving.deadlines import DEADLINES, Deadlines  # noqa: F401
from bank.web.serving.identity import Identify
from bank.web.serving.limits import REFUSAL, STACK_SIZE, Limits, refusal_bytes  # noqa: F401
from bank.web.serving.master import behind_proxies, fit_limits, options, raise_fd_limit, run_gunicorn  # noqa: F401
from bank.web.serving.worker import worker_classes as _worker_classes  # noqa: F401 (thread.py's)

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
    if limits is not None and "live_slots" not in done:  # by secret, and the bodies' deadlines
        game = app.extensions.get("terrabank")  # none in a bench's floor (bench/floor_server.py): no share per secret
        per_secret = limits.per_secret_live or (game.config.live_pages_per_link if game else limits.live_slots())
        app.wsgi_app = LiveSlots(app.wsgi_app, limits.live_slots(), limits.anonymous_live_slots(),
                                 per_secret, Identify(app), limits.anonymous_body_slots(),
                                 limits.body_seconds, limits.anonymous_body_seconds,
                                 strangers=limits.strangers_live_slots(),
                                 per_stranger_secret=limits.per_stranger_secret_live,
                                 per_stranger_address=limits.per_stranger_address_live,
                                 proxies=trusted_proxies(), secret_bodies=limits.secret_bodies,
                                 address_bodies=limits.address_bodies, trusted_bodies=limits.trusted_bodies,
                                 pages=limits.live_pages_at_once())
        app.extensions["terrabank_live_slots"] = app.wsgi_app  # for whoever debugs, and for tests
        done.add("live_slots")
    if "after_reply" not in done:  # a command's live updates start once its reply is written
        app.wsgi_app = AfterReply(app.wsgi_app)
        done.add("after_reply")
    if "budget" not in done:  # a command or log-in answered within seconds in a network cut
        from bank.web.serving.budget import Budgeted

        app.wsgi_app = Budgeted(app.wsgi_app)
        done.add("budget")
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


def run(factory, host: str, port: int, limits: Limits | None = None, worker: str = "gthread",
        listener: socket.socket | None = None, reload_check: tuple[str, str] | None = None) -> None:
    """Serve the app made by `factory()` (called in the worker process, after the fork: the
    ticker's threads must start there) until Ctrl+C or SIGTERM.

    `listener`: a socket the caller already bound and listens on (`serve --port 0`: the port
    the system chose is known before anything is printed, and never free for another to take).
    """
    limits, warning = fit_limits(behind_proxies(limits or Limits()))
    if warning:
        log_lines.say(warning)
    run_gunicorn(lambda fitted: prepare(factory(), fitted if worker == "gthread" else None),
                 host, port, limits, worker, listener, reload_check)
