"""`terrabank serve` processes on one game in PostgreSQL sharing a Redis queue, and the shipped nginx in front.

Shared by the tests of several processes (tests/web/serving/test_processes_serve.py and its neighbours,
the replay and chaos tests): one cluster, one way to start the game, one nginx.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "bench"))
from harness import CONFIG, TERRABANK, Api, end_all, launch  # noqa: E402
from postgres_kit import PortTaken, on_a_free_port  # noqa: E402
from pg_game_kit import add_lead  # noqa: E402

from bank.store import storage_url  # noqa: E402


class Cluster:
    """One game in PostgreSQL, and `terrabank serve` processes on it sharing a Redis queue."""

    def __init__(self, folder: Path, database_url: str, queue_url: str):
        self.folder = folder
        self.env = {"TERRABANK_DATABASE_URL": database_url, "TERRABANK_QUEUE_URL": queue_url}
        self.db = str(folder / "field.db")
        self.procs: list[subprocess.Popen] = []
        self._cli("init")
        add_lead(database_url, storage_url.game_name(self.db))  # no `terrabank user` process (pg_game_kit.py)

    def _cli(self, *args: str, stdin: str | None = None) -> None:
        subprocess.run([TERRABANK, "--config", CONFIG, "--db", self.db, *args], input=stdin, text=True,
                       check=True, capture_output=True, cwd=self.folder, env={**os.environ, **self.env})

    def serve(self, name: str, env: dict | None = None) -> tuple[subprocess.Popen, int]:
        cwd = os.getcwd()
        os.chdir(self.folder)  # the accounts and the secret key beside --db, as on one host
        try:
            proc, port = launch([TERRABANK, "--config", CONFIG, "--db", self.db, "serve", "--host", "127.0.0.1",
                                 "--port", "0"], self.folder / f"{name}.log", timeout=60,
                                env={**self.env, **(env or {})})
        finally:
            os.chdir(cwd)
        self.procs.append(proc)
        return proc, port

    def stop(self) -> None:
        end_all(self.procs, timeout=15)


@pytest.fixture
def cluster(tmp_path, postgres_server, redis_server):
    made = Cluster(tmp_path, postgres_server.url, redis_server.url)
    yield made
    made.stop()


@pytest.fixture(scope="module")
def module_cluster(tmp_path_factory, postgres_server, redis_server):
    """One cluster for a module's tests that can share a game and its processes: a `terrabank init`
    and each process's start cost seconds of CPU, several times over on a loaded machine."""
    made = Cluster(tmp_path_factory.mktemp("cluster"), postgres_server.url, redis_server.url)
    yield made
    made.stop()


def start_game(api: Api) -> dict:
    """Start the game clock through `api` (a lead's); returns each team's phone link."""
    status, links = api.request("GET", "/api/teams/links")
    assert status == 200, links
    assert api.command("start", type="start_clock")[0] == 200
    return links


def nginx_in_front(folder: Path, backends: list[int]) -> tuple[subprocess.Popen, int]:
    """deploy/nginx-terrabank.conf as shipped, its ports changed to this test's, in a throwaway nginx."""
    import re
    import shutil
    import socket

    from needs import require

    require("nginx")
    shipped = (ROOT / "deploy" / "nginx-terrabank.conf").read_text()
    servers = re.findall(r"^\s*server 127\.0\.0\.1:\d+ .*;\n", shipped, flags=re.M)
    assert servers, "the shipped file lists its processes as `server 127.0.0.1:PORT ...;` lines"
    # As an operator does: one line per process started, written as the shipped ones are.
    ours = "".join(re.sub(r":\d+ ", f":{port} ", servers[0]) for port in backends)
    shipped = shipped.replace("".join(servers), ours)
    nginx = shutil.which("nginx") or "/usr/sbin/nginx"

    def start(port: int) -> tuple[subprocess.Popen, int]:
        assert "listen 80 default_server;" in shipped, "the shipped site is port 80's default server (DEPLOY.md)"
        (folder / "terrabank.conf").write_text(shipped.replace("listen 80 default_server;",
                                                               f"listen 127.0.0.1:{port} default_server;"))
        (folder / "nginx.conf").write_text(
            f"{'user root;' if os.geteuid() == 0 else ''}\nworker_processes 1;\npid {folder}/nginx.pid;\n"
            f"error_log {folder}/nginx-error.log;\nevents {{ worker_connections 512; }}\n"
            f"http {{ access_log off; client_body_temp_path {folder}/body; proxy_temp_path {folder}/proxy;\n"
            f"include {folder}/terrabank.conf; }}\n")
        proc = subprocess.Popen([nginx, "-p", str(folder), "-c", str(folder / "nginx.conf"), "-g", "daemon off;"],
                                stdout=subprocess.DEVNULL, stderr=subprocess.STDOUT)
        deadline = time.monotonic() + 20
        while True:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=0.5).close()
                return proc, port
            except OSError:
                pass
            if proc.poll() is not None or time.monotonic() > deadline:
                break
            time.sleep(0.05)
        proc.kill()
        proc.wait()
        log = (folder / "nginx-error.log").read_text(errors="replace")
        if "Address already in use" in log:
            (folder / "nginx-error.log").unlink()
            raise PortTaken()
        raise RuntimeError(f"nginx did not start: {log}")

    return on_a_free_port(start)
