"""The servers of bench_processes.py: one game served by N `terrabank serve` processes.

`Cluster`: the game in PostgreSQL, N processes sharing a Redis queue, started
as tests/web/serving/test_processes_serve.py starts two (harness.launch, `--port 0`). `SingleFile`:
the same game on the SQLite file, one process (harness.Server), for the journal's own cost.
Both answer `ports` and `memory()`, so the load code does not care which it drives.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from harness import CONFIG, PASSWORD, TERRABANK, USER, Server, launch, let_go_of_idle_connections
from proctree import pss_mb, rss_mb, threads

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))
import postgres_kit  # noqa: E402  (tests/: the throwaway servers the tests use)
import redis_kit  # noqa: E402


def queue_servers() -> tuple[postgres_kit.Server, redis_kit.Server]:
    """A throwaway PostgreSQL and Redis; a clear sentence when this machine cannot run them."""
    for reason in (postgres_kit.missing_reason(), redis_kit.missing_reason()):
        if reason:
            raise SystemExit(f"bench_processes: {reason}")
    postgres = postgres_kit.Server()
    try:
        return postgres, redis_kit.Server()
    except BaseException:
        postgres.stop()
        raise


def tree_memory(pids: list) -> dict:
    """RSS, PSS (MB) and threads summed over the process trees of `pids`."""
    return {"rss": sum(rss_mb(p) for p in pids), "pss": sum(pss_mb(p) for p in pids),
            "threads": sum(threads(p) for p in pids)}


def log_problems(folder: Path) -> list:
    """Lines of the servers' logs that report a failure (a traceback, an error, a warning)."""
    found = []
    for log in sorted(folder.rglob("*.log")):
        for line in log.read_text(errors="replace").splitlines():
            if any(word in line for word in ("Traceback", "ERROR", "Error", "WARNING", "CRITICAL")):
                found.append(f"{log.name}: {line.strip()[:200]}")
    return found


def postmaster_pid(postgres: postgres_kit.Server) -> int:
    """PostgreSQL's main process (its backends are its children)."""
    return int((postgres.data / "postmaster.pid").read_text().split()[0])


class Cluster:
    """One game in PostgreSQL and `processes` servers of it hearing each other through Redis."""

    def __init__(self, folder: Path, name: str, database_url: str, queue_url: str, processes: int,
                 config: str = CONFIG):
        """`config`: the config.toml (another checkout's own, when its servers are measured)."""
        self.folder, self.config = folder, config
        self.folder.mkdir(parents=True, exist_ok=True)
        self.env = {"TERRABANK_DATABASE_URL": database_url, "TERRABANK_QUEUE_URL": queue_url}
        self.db = str(folder / f"{name}.db")  # the game's name in the database: `name`
        self.procs: list[subprocess.Popen] = []
        self.ports: list[int] = []
        self._cli("init")
        self._cli("user", USER, "--role", "lead", "--password-stdin", stdin=PASSWORD + "\n")
        try:
            for i in range(processes):
                self._serve(f"serve-{i}")
        except BaseException:
            self.stop()
            raise

    def _cli(self, *args: str, stdin: str | None = None) -> None:
        subprocess.run([TERRABANK, "--config", self.config, "--db", self.db, *args], input=stdin, text=True,
                       check=True, capture_output=True, cwd=self.folder, env={**os.environ, **self.env})

    def _serve(self, name: str) -> None:
        cwd = os.getcwd()
        os.chdir(self.folder)  # the secret key and accounts file beside --db, as on one host
        try:
            proc, port = launch([TERRABANK, "--config", self.config, "--db", self.db, "serve", "--host", "127.0.0.1",
                                 "--port", "0"], self.folder / f"{name}.log", timeout=60, env=self.env)
        finally:
            os.chdir(cwd)
        self.procs.append(proc)
        self.ports.append(port)

    def pids(self) -> list:
        return [p.pid for p in self.procs]

    def alive(self) -> bool:
        return all(p.poll() is None for p in self.procs)

    def memory(self) -> dict:
        return tree_memory(self.pids())

    def problems(self) -> list:
        return log_problems(self.folder)

    def stop(self) -> None:
        let_go_of_idle_connections()  # a stopping process would keep them open up to 2 s (harness.py)
        for proc in self.procs:
            if proc.poll() is None:
                proc.terminate()
        for proc in self.procs:
            try:
                proc.wait(timeout=15)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait(timeout=10)


class SingleFile:
    """The same game on the SQLite file, served by one process: no database server, no queue."""

    def __init__(self, folder: Path):
        self.server = Server(folder).prepare().start()
        self.ports = [self.server.port]

    def pids(self) -> list:
        return [self.server.pid]

    def alive(self) -> bool:
        return self.server.proc.poll() is None

    def memory(self) -> dict:
        return tree_memory(self.pids())

    def problems(self) -> list:
        return log_problems(self.server.folder)

    def stop(self) -> None:
        self.server.stop()
