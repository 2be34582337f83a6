"""Gunicorn's master for `terrabank serve`, without Flask (P3 memory).

Split from server.py so that the master process can run this module alone: the master only
binds, forks the worker and restarts it if it dies; Flask, Socket.IO and the bank are the
worker's, loaded after the fork by the `load_app` it is given. Every module this one imports
is Flask-free (worker.py, limits.py, deadlines.py, stopping.py, log_lines.py), so a master that imports only
this (bank/cli/serve_lean.py) stays about 24 MB instead of the 55 MB of a master that had
built the start-up app (docs/PERFORMANCE.md "Memory").
"""

from __future__ import annotations

import dataclasses
import logging
import math
import resource
import socket
import sys
import threading
from dataclasses import asdict

from bank.web.serving import log_lines, reload
from bank.web.serving import stopping
from bank.web.serving.limits import STACK_SIZE, Limits
from bank.web.serving.worker import worker_classes


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
    from bank.web.serving.proxies import trusted_proxies  # werkzeug: not in a lean master

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
        return {**common, "worker_class": worker_classes()[1], "threads": limits.threads,
                # One above our own cap, so Gunicorn never stops accepting: over the cap we answer
                # at once (GuardedWorker.accept) instead of leaving clients in the kernel's queue.
                "worker_connections": limits.max_connections + 1}
    if worker == "gevent":  # for bench/web/serving/bench_servers.py: Gunicorn's own gevent worker, monkey-patched
        return {**common, "worker_class": "gevent", "worker_connections": limits.max_connections}
    raise ValueError(f"unknown worker {worker!r}: gthread or gevent")


def run_gunicorn(load_app, host: str, port: int, limits: Limits, worker: str = "gthread",
                 listener: socket.socket | int | None = None, reload_check: tuple[str, str] | None = None) -> None:
    """Gunicorn's master with these (already fitted) limits until Ctrl+C or SIGTERM.

    `load_app(limits)` is called in the worker, after the fork: it builds the app (the
    ticker's threads must start there) and loads whatever the app needs, so the master never does.
    `listener`: a listening socket (or its descriptor) the caller bound (`serve --port 0`).
    `reload_check`: (config path, game) a SIGHUP checks before it starts a new worker (reload.py).
    """
    from gunicorn.app.base import BaseApplication

    # Gunicorn closes the descriptor it is given: it becomes its own. Detached once, here: a SIGHUP
    # reloads the settings (load_config again) and must name the same descriptor, not a detached -1.
    fd = listener if listener is None or isinstance(listener, int) else listener.detach()

    class Bank(BaseApplication):
        def __init__(self):
            self.limits = limits
            super().__init__()

        def load_config(self):
            for key, value in options(host, port, limits, worker).items():
                self.cfg.set(key, value)
            self.cfg.set("logger_class", log_lines.gunicorn_logger())  # its lines in the bank's one shape
            if fd is not None:
                self.cfg.set("bind", [f"fd://{fd}"])

        def load(self):
            return load_app(limits)

        def run(self):
            if reload_check is None:
                return super().run()
            say = logging.getLogger("terrabank.reload").warning
            try:
                reload.checked_arbiter(*reload_check, say)(self).run()
            except RuntimeError as exc:  # as BaseApplication.run: Gunicorn's own refusal, one line
                print(f"\nError: {exc}\n", file=sys.stderr, flush=True)
                sys.exit(1)

    log_lines.process_wide()  # before the fork: the worker's libraries log in the same shape
    threading.stack_size(STACK_SIZE)
    Bank().run()
