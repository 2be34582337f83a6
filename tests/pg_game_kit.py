"""One game in PostgreSQL served by real queue-less `terrabank serve` processes, and PostgreSQL restarted under them.

Shared by the tests of one writer per game (tests/store/test_postgres_fencing.py and its neighbours), of
readiness and partitions (tests/web/) and of chaos (tests/system/): one Game, one restart, one wait.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "bench"))
from harness import CONFIG, PASSWORD, TERRABANK, USER, Api, end_all, launch  # noqa: E402,F401 (CONFIG, TERRABANK: for the tests)

AWARD = {"type": "award", "team": "green", "points": 1, "reason": "burst"}


def restart(server, down: float = 1.0) -> float:
    """Stop PostgreSQL (as `systemctl restart` does), wait `down` seconds, start it on its port; when it answers."""
    server._run("pg_ctl", "-D", str(server.data), "-m", "fast", "-w", "-t", "60", "stop")
    try:
        time.sleep(down)
    finally:
        server._start(server.port)
    return time.monotonic()


def wait_until(check, seconds: float, step: float = 0.1):
    """check()'s first true value within `seconds`, else None."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        try:
            value = check()
        except Exception:  # noqa: BLE001 (the database is coming back)
            value = None
        if value:
            return value
        time.sleep(step)
    return None


def sql(url: str, query: str, params=()) -> list:
    import psycopg
    with psycopg.connect(url, connect_timeout=5) as conn:
        cur = conn.execute(query, params)
        return cur.fetchall() if cur.description else []


def add_lead(url: str, game: str) -> None:
    """The lead's account in game `game`, written in this process with a cheap hash, for tests about holds,
    restarts and processes, not passwords. `terrabank user` (tests/cli/) builds the whole app in a new process
    to add one row and hashes with scrypt: about a CPU-second per game, and scrypt again at every log-in."""
    from bank.store.accounts.access_pg import PostgresAccess

    access = PostgresAccess(url, game, hash_method="pbkdf2:sha256:1000")
    try:
        access.add_user(USER, PASSWORD, "lead")
    finally:
        access.close()


class Game:
    """One game in PostgreSQL and queue-less `terrabank serve` processes on it."""

    def __init__(self, folder: Path, url: str):
        self.folder, self.url = folder, url
        self.name = f"fencing-{uuid.uuid4().hex[:8]}"  # the tests share one database
        self.env = {"TERRABANK_DATABASE_URL": url, "TERRABANK_QUEUE_URL": ""}
        self.procs: list[subprocess.Popen] = []
        self.cli("init")
        add_lead(url, self.name)

    def cli(self, *args: str, stdin: str | None = None, check: bool = True) -> subprocess.CompletedProcess:
        return subprocess.run([TERRABANK, "--config", CONFIG, "--db", self.name, *args], input=stdin, text=True,
                              check=check, capture_output=True, cwd=self.folder, env={**os.environ, **self.env},
                              timeout=120)

    def serve(self, name: str) -> tuple[subprocess.Popen, int]:
        """A server started in its own folder: a host of its own, whose lock file beside --db the others
        do not see (only the database can tell them apart)."""
        host = self.folder / name
        host.mkdir(exist_ok=True)
        here = os.getcwd()
        os.chdir(host)
        try:
            proc, port = launch([TERRABANK, "--config", CONFIG, "--db", self.name, "serve", "--host", "127.0.0.1",
                                 "--port", "0"], self.folder / f"{name}.log", timeout=60, env=self.env)
        finally:
            os.chdir(here)
        self.procs.append(proc)
        return proc, port

    def refused_to_serve(self) -> str:
        """A second queue-less server's start on a third host: its output, after checking that it was refused."""
        (self.folder / "c").mkdir(exist_ok=True)
        done = subprocess.run([TERRABANK, "--config", CONFIG, "--db", self.name, "serve", "--host", "127.0.0.1",
                               "--port", "0"], text=True, capture_output=True, cwd=self.folder / "c",
                              env={**os.environ, **self.env}, timeout=60)
        assert done.returncode != 0, done.stdout
        assert "(terrabank serve" in done.stderr and " on " in done.stderr, done.stderr  # refused by the database, naming the holder
        return done.stderr

    def log(self, name: str) -> str:
        return (self.folder / f"{name}.log").read_text(errors="replace")

    def rows(self, game: str | None = None) -> list[str]:
        return [r[0] for r in sql(self.url, "SELECT j.command_id FROM terrabank.journal j JOIN terrabank.games g "
                                            "ON g.id = j.game WHERE g.name = %s ORDER BY j.seq", (game or self.name,))]

    def stop(self) -> None:
        for proc in self.procs:
            os.kill(proc.pid, signal.SIGCONT) if proc.poll() is None else None  # a test may have left it stopped
        end_all(self.procs)


@pytest.fixture
def game(tmp_path, postgres_server):
    made = Game(tmp_path, postgres_server.url)
    yield made
    made.stop()


def one(api: Api, key: str) -> tuple[int, dict | str]:
    return api.command(key, **AWARD)


def settled(api: Api, key: str, seconds: float = 20) -> tuple[int, dict | str]:
    """The reply to `key` once the server's connections found the database again (a connection the
    restart broke answers database_connection_lost once: sent again with the same id, as pages do)."""
    def answer():
        reply = one(api, key)
        return None if code(reply[1]) in ("database_connection_lost", "database_unreachable") else reply
    return wait_until(answer, seconds, step=0.2) or (0, "no settled answer")


def code(reply) -> str | None:
    return reply.get("error", {}).get("code") if isinstance(reply, dict) else None
