"""`kill -HUP` (or `systemctl reload`) on a running `serve` reloads Gunicorn's settings and keeps serving
on the same socket, including one `serve --port 0` bound itself (tests, several games on one machine).

Before: the listener's descriptor was detached inside Gunicorn's load_config, which a reload calls
again: the second time it named fd://-1, and the reload failed to listen on its own port.
"""

from __future__ import annotations

import os
import signal
import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "bench"))
from harness import Api, Server  # noqa: E402

pytestmark = pytest.mark.skipif(not hasattr(signal, "SIGHUP"), reason="POSIX signals")


def worker_pids(master: int) -> set[int]:
    children = Path(f"/proc/{master}/task/{master}/children")
    return {int(p) for p in children.read_text().split()} if children.exists() else set()


@pytest.fixture(params=["sqlite", "postgres"])
def store(request, monkeypatch):
    """The SQLite game re-executes into a lean master (bank/cli/serve_lean.py); a PostgreSQL game keeps
    the master that took its hold (bank/web/serving/master.py): both reload."""
    if request.param == "postgres":
        monkeypatch.setenv("TERRABANK_DATABASE_URL", request.getfixturevalue("postgres_server").url)
    return request.param


def test_a_reloaded_server_serves_on_the_same_port_with_a_new_worker(store, tmp_path):
    server = Server(tmp_path).prepare().start()
    try:
        before = worker_pids(server.pid)
        assert before, "the server's worker"
        os.kill(server.pid, signal.SIGHUP)
        deadline = time.monotonic() + 60  # the reload runs `config check` first: seconds on a loaded machine
        while not (worker_pids(server.pid) - before) and time.monotonic() < deadline:
            time.sleep(0.1)  # Gunicorn starts a new worker, then stops the old one
        assert worker_pids(server.pid) - before, server.log.read_text()[-2000:]
        assert server.proc.poll() is None, server.log.read_text()[-2000:]
        status = None
        while status is None and time.monotonic() < deadline:
            try:
                status, _ = Api(server.url).login().command("after-reload", type="award", team="green",
                                                            points=1, reason="reload")
            except OSError:
                time.sleep(0.2)
        assert status == 200
        assert "fd://" not in server.log.read_text()
    finally:
        server.stop()
