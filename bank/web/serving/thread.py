"""`terrabank serve`'s worker in a thread of this process, for the browser tests and screenshots.

They read the app's bank while Chromium drives its pages, so the app must live in the
test process. The connections, caps, deadlines, pool and app wrapping are those of
`terrabank serve` (bank/web/serving/server.py); only the process around them differs.
"""

from __future__ import annotations

import os
import queue
import selectors
import socket
import threading
from concurrent import futures
from dataclasses import dataclass

from flask import Flask

from bank.web.serving import handoff
from bank.web.serving.server import Limits, _worker_classes, fit_limits, options, prepare

# --- the same worker in a thread of this process: the browser tests, the screenshots ----------

class InThreadServer:
    """A GuardedWorker serving an app already built in this process, from a background thread.

    The browser tests read the app's bank while Chromium drives its pages, so the app must
    live in the test process: no arbiter, no fork. What the worker does in a forked process
    that would harm the process it shares (signal handlers, which only the main thread may
    set; PR_SET_PDEATHSIG; reseeding `random`; the process-wide thread stack size) is left
    out; the connections, caps, deadlines, pool and app wrapping are those of `terrabank serve`.
    """

    def __init__(self, worker, thread: threading.Thread, host: str, port: int):
        self.worker, self.thread, self.host, self.port = worker, thread, host, port

    @property
    def url(self) -> str:
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"http://{host}:{self.port}"

    def stop(self, timeout: float = 10.0) -> None:
        """Close every connection, WebSockets included, and end the worker's loop; returns once it has."""
        self.worker.stop_serving()
        self.thread.join(timeout)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.stop()


def serve_in_thread(app: Flask, host: str = "127.0.0.1", port: int = 0,
                    limits: Limits | None = None) -> InThreadServer:
    """Serve `app` with `terrabank serve`'s worker in a daemon thread; listening on return.

    Port 0 (the default) lets the system choose a free port, read back from the bound
    socket: two servers started at once never pick the same one.
    """
    from gunicorn import sock as gunicorn_sock
    from gunicorn.config import Config
    from gunicorn.glogging import Logger

    limits, warning = fit_limits(limits or Limits())
    if warning:
        print(warning, flush=True)
    cfg = Config()
    for key, value in options(host, port, limits).items():
        cfg.set(key, value)
    log = Logger(cfg)
    # Gunicorn's own listener (its options: TCP_NODELAY, SO_REUSEADDR, the backlog), bound once,
    # without the arbiter's five tries a second apart. It listens on return: a client's connect
    # succeeds from here on and waits in the backlog until the worker's loop accepts it.
    listener = (gunicorn_sock.TCP6Socket if ":" in host else gunicorn_sock.TCPSocket)((host, port), cfg, log)
    worker = _in_thread_worker()(age=0, ppid=os.getppid(), sockets=[listener],
                                 app=_Loaded(prepare(app, limits), limits), timeout=cfg.timeout,
                                 cfg=cfg, log=log)
    bound = listener.getsockname()[1]
    thread = threading.Thread(target=worker.init_process, name=f"terrabank-serve-{bound}", daemon=True)
    thread.start()
    if not worker.started.wait(30) or not worker.booted:
        listener.close()
        raise RuntimeError(f"the in-thread server on port {bound} did not start (its error is printed above)")
    return InThreadServer(worker, thread, host, bound)


@dataclass
class _Loaded:
    """What a Gunicorn worker expects as its `app`: the limits, and the WSGI app from `wsgi()`."""

    flask_app: Flask
    limits: Limits

    def wsgi(self):
        return self.flask_app


def _in_thread_worker():
    _conn, guarded_worker = _worker_classes()

    class InThreadWorker(guarded_worker):
        """GuardedWorker started by a call, not by Gunicorn's arbiter after a fork."""

        def __init__(self, *args, **kwargs):
            super().__init__(*args, **kwargs)
            self.started = threading.Event()
            self.open_conns: set = set()  # being served by a pool thread or waiting: to cut them on stop

        def init_process(self):
            # What ThreadWorker.init_process and Worker.init_process (Gunicorn 27) do that belongs to
            # a server, not to a process: the pool, the poller, the wake-up pipe, the app. Not the rest.
            try:
                self.pid = os.getpid()
                self.tpool = self.get_thread_pool()
                self.poller = selectors.DefaultSelector()
                self.method_queue.init()
                self.wsgi = self.app.wsgi()
            except BaseException:
                self.started.set()  # not booted: serve_in_thread says so at once, not after its wait
                raise
            self.booted = True
            try:
                self.run()
            finally:
                self.tmp.close()

        def run(self):
            self.started.set()
            try:
                super().run()
            finally:
                self.close_left()

        def close_left(self):
            """Close what the loop left open: it ends after graceful_timeout with connections still
            open, and a forked worker's exit would close them; this process lives on. Left to the
            garbage collector they would stay in DEADLINES (one table per process) until a later
            server's loop dropped them, and warn in whichever test was running then."""
            left = list(self.open_conns) + list(self.pending_conns) + list(self.keepalived_conns)
            self.open_conns.clear()
            self.pending_conns.clear()
            self.keepalived_conns.clear()
            for conn in left:
                try:
                    conn.close()
                except OSError:
                    pass

        def get_thread_pool(self):
            return _DaemonPool(self.cfg.threads)

        def is_parent_alive(self):
            return True  # no arbiter: the test process (or stop_serving) decides when it ends

        def enqueue_req(self, conn):
            self.open_conns.add(conn)
            super().enqueue_req(conn)

        def release(self, conn):
            self.open_conns.discard(conn)
            super().release(conn)

        def stop_serving(self):
            """As SIGTERM would, but without its drain (stopping.py marks the whole process as stopping,
            and this process, a test's, serves on), then cut open connections instead of waiting for them."""
            self.alive = False
            conns = list(self.open_conns)
            # Twice: a WebSocket handed to the app's loop while the first pass ran (its request ending, the worker's
            # descriptor closed before this shut it down, its duplicate not yet listed) is cut by the second.
            for _ in range(2):
                socks = [conn.sock for conn in conns] + list(self.handed_off)
                socks += [own for own in map(handoff.taken, (conn.sock for conn in conns)) if own is not None]
                for sock in socks:
                    try:
                        sock.shutdown(socket.SHUT_RDWR)  # a WebSocket's blocked read ends at once, a handed-off one's loop sees it
                    except OSError:
                        pass

    return InThreadWorker


class _DaemonPool:
    """The worker's thread pool (the part of ThreadPoolExecutor gthread uses), with daemon threads.

    ThreadPoolExecutor's threads are joined when the interpreter exits; in a forked worker that
    is what a graceful stop wants, but in a test process a WebSocket left open by a browser
    would keep pytest from ever ending. Werkzeug's threads, used here before, were daemons too.
    """

    def __init__(self, max_workers: int):
        self.max_workers = max_workers
        self.jobs: queue.SimpleQueue = queue.SimpleQueue()
        self.idle = threading.Semaphore(0)
        self.threads: list[threading.Thread] = []
        self.lock = threading.Lock()

    def submit(self, fn, *args) -> futures.Future:
        future: futures.Future = futures.Future()
        self.jobs.put((future, fn, args))
        if not self.idle.acquire(timeout=0):  # no thread waiting for work: start one, up to the cap
            with self.lock:
                if len(self.threads) < self.max_workers:
                    thread = threading.Thread(target=self._work, daemon=True,
                                              name=f"terrabank-http-{len(self.threads)}")
                    thread.start()
                    self.threads.append(thread)
        return future

    def _work(self) -> None:
        while True:
            job = self.jobs.get()
            if job is None:
                return
            future, fn, args = job
            job = None
            if future.set_running_or_notify_cancel():
                try:
                    result = fn(*args)
                except BaseException as exc:  # noqa: BLE001 - handed to the future, as ThreadPoolExecutor does
                    future.set_exception(exc)
                else:
                    future.set_result(result)
            future = None
            self.idle.release()

    def shutdown(self, wait: bool = False, cancel_futures: bool = False) -> None:
        for _ in range(len(self.threads)):
            self.jobs.put(None)
        if wait:
            for thread in self.threads:
                thread.join()
