"""What the benchmarks and fault scripts share: a real `terrabank serve` process on
127.0.0.1, and a small keep-alive HTTP client that logs in and sends commands.

Nothing here is a test; scripts under bench/ import it to measure the bank as a
facilitator's browser meets it (a separate process, over TCP, durable database).

Two runs on one machine must not meet: a server binds a free port itself
(`serve --port 0`) and prints it, and `launch` reads it from its output, so no port
is ever picked, released and taken by another run meanwhile; each run (process) logs
in with its own random user and password, and each Server keeps its files in the
folder it is given (callers pass a temporary one).
"""

from __future__ import annotations

import http.client
import json
import os
import re
import secrets
import signal
import socket
import subprocess
import sys
import threading
import time
import weakref
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
TERRABANK = str(Path(sys.executable).with_name("terrabank"))
CONFIG = str(ROOT / "config.toml")
# This run's facilitator account: another run's clients cannot log in to this run's bank.
USER, PASSWORD = f"bench-{secrets.token_hex(4)}", secrets.token_urlsafe(18)
RUNNING = re.compile(rb"http://127\.0\.0\.1:(\d+)/")  # the address a server prints once it listens


def spawn(argv: list, log: Path, timeout: float = 30.0, env: dict | None = None,
          **popen) -> tuple[subprocess.Popen, int]:
    """Start a server that binds its own port and prints its address; (process, port) as soon as
    it has printed it, read from its output as it comes.

    Its output goes to `log` (appended); the first http://127.0.0.1:PORT/ it prints after this
    start is the port it listens on. It may not serve yet: `launch` waits for HTTP, a benchmark
    timing the start waits for what it times. `popen`: more arguments for subprocess.Popen.
    """
    start = log.stat().st_size if log.exists() else 0
    with open(log, "ab") as out:
        proc = subprocess.Popen(argv, stdout=out, stderr=subprocess.STDOUT,
                                env={**os.environ, "PYTHONUNBUFFERED": "1", **(env or {})}, **popen)
    deadline = time.monotonic() + timeout
    while True:
        with open(log, "rb") as f:
            f.seek(start)
            found = RUNNING.search(f.read())
        if found:
            return proc, int(found.group(1))
        if proc.poll() is not None:
            raise RuntimeError(f"{argv[0]} exited with {proc.returncode}: {log.read_text(errors='replace')[-2000:]}")
        if time.monotonic() > deadline:
            end(proc)
            raise TimeoutError(f"{argv[0]} printed no address after {timeout} s (see {log})")
        time.sleep(0.01)  # fine enough for a start timed from here (bench_recovery: the port is read well before it serves)


def launch(argv: list, log: Path, timeout: float = 30.0, env: dict | None = None,
           **popen) -> tuple[subprocess.Popen, int]:
    """Start a server that binds its own port and prints its address; (process, port) once it
    answers HTTP on that port (`spawn` reads the port; `popen`: more arguments for Popen)."""
    deadline = time.monotonic() + timeout
    proc, port = spawn(argv, log, timeout, env, **popen)
    try:
        # With --port 0 the port is bound (and accepts into its backlog) before the rest of
        # the start-up is printed and before the worker serves: wait for an HTTP answer.
        wait_for_http(port, timeout=max(1.0, deadline - time.monotonic()), proc=proc)
    except BaseException:
        end(proc)
        raise
    return proc, port


def end(proc: subprocess.Popen, timeout: float = 10.0) -> None:
    """SIGTERM, SIGKILL if it has not ended after `timeout` seconds; returns once it has ended."""
    if proc.poll() is None:
        let_go_of_idle_connections()
        proc.terminate()
        try:
            proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def end_all(procs: list, timeout: float = 10.0) -> None:
    """`end` for several processes at once: SIGTERM to each, then the same `timeout` for all of them.

    A stopping server may wait seconds for its idle kept-alive connections: side by side those
    waits overlap instead of adding up."""
    running = [proc for proc in procs if proc.poll() is None]
    if running:
        let_go_of_idle_connections()
    for proc in running:
        proc.terminate()
    deadline = time.monotonic() + timeout
    for proc in running:
        try:
            proc.wait(timeout=max(0.0, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


# Every Api of this process, for let_go_of_idle_connections.
APIS: weakref.WeakSet = weakref.WeakSet()


def let_go_of_idle_connections() -> None:
    """Close the kept-alive connection of every Api of this process not in a request (its next request opens a
    new one, as after a server's close). A stopping server keeps idle kept-alive connections open for up to 2 s
    (Gunicorn's STOP_KEEPALIVE_LINGER) before it ends: each stop by `end` waited that long for a client that
    would send nothing more."""
    for api in list(APIS):
        api.close(if_idle=True)


def wait_for_port(port: int, timeout: float = 20.0, proc: subprocess.Popen | None = None) -> None:
    """Block until something accepts TCP connections on 127.0.0.1:port."""
    deadline = time.monotonic() + timeout
    while True:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
            return
        except OSError:
            if proc is not None and proc.poll() is not None:
                raise RuntimeError(f"the server exited with {proc.returncode}: {proc.stderr.read() if proc.stderr else ''}")
            if time.monotonic() > deadline:
                raise TimeoutError(f"nothing listens on 127.0.0.1:{port} after {timeout} s")
            time.sleep(0.05)


def wait_for_http(port: int, timeout: float = 20.0, proc: subprocess.Popen | None = None) -> None:
    """Block until a server on 127.0.0.1:port answers an HTTP request (any status)."""
    deadline = time.monotonic() + timeout
    while True:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=1.0) as sock:
                sock.sendall(b"GET /health-check HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n")
                if sock.recv(5) == b"HTTP/":
                    return
        except OSError:
            pass
        if proc is not None and proc.poll() is not None:
            raise RuntimeError(f"the server exited with {proc.returncode}")
        if time.monotonic() > deadline:
            raise TimeoutError(f"no HTTP answer on 127.0.0.1:{port} after {timeout} s")
        time.sleep(0.05)


def rss_mb(pid: int) -> float:
    """Resident memory of a process in MB, read from /proc (Linux)."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    raise RuntimeError(f"no VmRSS for pid {pid}")


class Server:
    """`terrabank serve` on 127.0.0.1 with its own database, a lead account and a running clock.

    start() may be called again after kill() on the same database: that is a restart.
    """

    def __init__(self, folder: Path, port: int | None = None, config: str = CONFIG):
        self.folder, self.config = Path(folder), config
        self.db = self.folder / "bench.db"
        self.port = port  # None: the first start lets the server choose (serve --port 0); restarts keep it
        self.proc: subprocess.Popen | None = None
        self.log = self.folder / "server.log"

    @property
    def url(self) -> str:
        assert self.port is not None, "the server's address is known once it has started"
        return f"http://127.0.0.1:{self.port}"

    def _cli(self, *args: str, stdin: str | None = None) -> None:
        subprocess.run([TERRABANK, "--config", self.config, "--db", str(self.db), *args],
                       input=stdin, text=True, check=True, capture_output=True)

    def prepare(self) -> "Server":
        """Create the game and the lead account (before the first start)."""
        self.folder.mkdir(parents=True, exist_ok=True)
        self._cli("init")
        self._cli("user", USER, "--role", "lead", "--password-stdin", stdin=PASSWORD + "\n")
        return self

    def serve_command(self) -> list:
        """The command line that serves this game (subclasses serve it another way)."""
        return [TERRABANK, "--config", self.config, "--db", str(self.db), "serve",
                "--host", "127.0.0.1", "--port", str(self.port or 0)]

    def start(self) -> "Server":
        self.proc, self.port = launch(self.serve_command(), self.log)  # it answers HTTP when this returns
        return self

    @property
    def pid(self) -> int:
        assert self.proc is not None
        return self.proc.pid

    def title(self) -> str | None:
        """The served config's title (which config a worker serves, for the reload tests); None between two workers."""
        try:
            status, body = Api(self.url, timeout=5).request("GET", "/api/config")
        except OSError:
            return None
        return body["title"] if status == 200 else None

    def rss_mb(self) -> float:
        return rss_mb(self.pid)

    def kill(self) -> None:
        """SIGKILL: no clean shutdown, as when the power goes."""
        if self.proc and self.proc.poll() is None:
            os.kill(self.proc.pid, signal.SIGKILL)
            self.proc.wait(timeout=10)

    def stop(self) -> None:
        if self.proc:
            end(self.proc)

    def __enter__(self) -> "Server":
        return self

    def __exit__(self, *exc) -> None:
        self.stop()


class Api:
    """A facilitator's browser, reduced to HTTP: one keep-alive connection, session cookie, CSRF."""

    def __init__(self, url: str, timeout: float = 30.0):
        host, port = url.removeprefix("http://").split(":")
        self.host, self.port, self.timeout = host, int(port), timeout
        self.conn: http.client.HTTPConnection | None = None
        self.cookies: dict[str, str] = {}  # by name: behind nginx a route cookie comes beside the session's
        self.csrf = ""
        self._exchanges, self._state = 0, threading.Lock()  # requests under way: close(if_idle=True) leaves them be
        APIS.add(self)

    @property
    def cookie(self) -> str:
        """The Cookie header this browser sends ("" before any was set)."""
        return "; ".join(f"{name}={value}" for name, value in self.cookies.items())

    @cookie.setter
    def cookie(self, header: str) -> None:
        self.cookies = dict(part.strip().split("=", 1) for part in header.split(";") if "=" in part)

    def request(self, method: str, path: str, body: dict | None = None, headers: dict | None = None):
        """(status, decoded JSON or text); reconnects once if the kept-alive socket was closed."""
        data = None if body is None else json.dumps(body).encode()
        hdrs = {"Content-Type": "application/json", "X-CSRF-Token": self.csrf, **(headers or {})}
        if self.cookie:
            hdrs["Cookie"] = self.cookie
        with self._state:
            self._exchanges += 1
        try:
            for attempt in (1, 2):
                if self.conn is None:
                    self.conn = self.connection()
                try:
                    self.conn.request(method, path, body=data, headers=hdrs)
                    response = self.conn.getresponse()
                    raw = response.read()
                    break
                except (ConnectionError, http.client.HTTPException):
                    self.close()
                    if attempt == 2:
                        raise
        finally:
            with self._state:
                self._exchanges -= 1
        self.last_headers = {k.lower(): v for k, v in response.getheaders()}  # the last reply's (Retry-After...)
        for cookie in response.msg.get_all("Set-Cookie") or ():
            name, _, value = cookie.split(";", 1)[0].strip().partition("=")
            self.cookies[name] = value
        if response.getheader("Connection", "").lower() == "close":
            self.close()
        text = raw.decode("utf-8", "replace")
        try:
            return response.status, json.loads(text)
        except ValueError:
            return response.status, text

    def login(self, user: str = USER, password: str = PASSWORD, busy_tries: int = 10) -> "Api":
        _, body = self.request("GET", "/api/csrf")
        self.csrf = body["csrf"]
        for _ in range(busy_tries):
            status, body = self.request("POST", "/api/login", {"username": user, "password": password})
            # 429 "busy": the bank hashes two passwords at a time (bank/store/accounts/lockout.py HASH_SLOTS); on a
            # busy machine a third log-in at once waits out its 3 s. Try again, as the log-in page says.
            if not (status == 429 and isinstance(body, dict) and (body.get("error") or {}).get("code") == "busy"):
                break
            time.sleep(1.0)
        if status != 200:
            raise RuntimeError(f"login failed: {status} {body}")
        self.csrf = body["csrf"]
        return self

    def command(self, key: str, **command):
        """POST /api/commands with an Idempotency-Key: (status, reply)."""
        return self.request("POST", "/api/commands", command, {"Idempotency-Key": key})

    def connection(self) -> http.client.HTTPConnection:
        """A new connection to the server (a subclass may choose its source address)."""
        return http.client.HTTPConnection(self.host, self.port, timeout=self.timeout)

    def close(self, if_idle: bool = False) -> None:
        """Close the kept-alive connection; with `if_idle`, only if no thread is in a request (a request
        begun after it opens a new connection)."""
        with self._state:
            if if_idle and self._exchanges:
                return
            conn, self.conn = self.conn, None
        if conn is not None:
            conn.close()

    def __del__(self) -> None:
        # Gunicorn keeps connections alive (Werkzeug closed each one): an Api dropped
        # without close() must not leave its socket to the garbage collector's warning.
        if hasattr(self, "_state"):
            self.close()


def machine() -> str:
    """One line naming the machine, for the reports."""
    import platform

    cpu = "?"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return (f"{os.cpu_count()} vCPU ({cpu}), Linux {platform.release()}, "
            f"CPython {platform.python_version()}")
