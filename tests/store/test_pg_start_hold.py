"""A served game in PostgreSQL keeps its one hold from start to stop (fencing: one writer per game).

`terrabank serve` takes the hold (bank/store/journal_pg_hold.py) in Gunicorn's master, and the
worker is forked from it, so the worker inherits the hold's connection. Before: the worker,
when it ended (each stop, or a worker Gunicorn restarted: SIGABRT after `timeout` seconds
of silence), unwound through `serve`'s `with hold(...)` and closed that inherited connection:
libpq sent its Terminate message on the socket the master still used, PostgreSQL ended the
master's session cleanly, and the master logged "lost the hold ... server closed the connection
unexpectedly", refused commands (503) and took the hold back under a new epoch 1-2 s later.
About 1 stop in 2 showed it (when the master's watcher probed before the master itself ended);
a worker restarted while the master runs shows it every time.
"""

from __future__ import annotations

import os
import signal
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest

from bank.store.journal_pg_hold import PROBE_SECONDS

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "bench"))
from harness import Api, Server  # noqa: E402

STARTS = 3
LOST = "lost the hold"


@pytest.fixture
def on_postgres(postgres_server, monkeypatch):
    monkeypatch.setenv("TERRABANK_DATABASE_URL", postgres_server.url)
    return postgres_server


def _ready(url: str, timeout: float = 60.0) -> None:
    """Wait until /readyz says 200 (the worker serves, the database answers, the hold is held)."""
    deadline = time.monotonic() + timeout
    while True:
        try:
            with urllib.request.urlopen(f"{url}/readyz", timeout=5) as reply:
                if reply.status == 200:
                    return
        except (urllib.error.URLError, OSError):
            pass
        assert time.monotonic() < deadline, f"{url}/readyz never said 200"
        time.sleep(0.1)


def _epoch(pg, game: str) -> int:
    import psycopg
    with psycopg.connect(pg.url) as conn:
        return conn.execute("SELECT hold_epoch FROM terrabank.games WHERE name = %s", (game,)).fetchone()[0]


def _worker(master: int) -> int:
    children = Path(f"/proc/{master}/task/{master}/children").read_text().split()
    assert len(children) == 1, f"serve should run one worker, found {children}"
    return int(children[0])


def _book(api: Api, key: str) -> None:
    status, reply = api.command(key, type="start_clock" if key.endswith("-0") else "pause")
    assert status == 200, f"the first command after /readyz was not booked: {status} {reply}"


def test_serve_never_loses_its_hold_at_start_restart_of_its_worker_or_stop(on_postgres, tmp_path):
    """One writer per game: each start books the first command after /readyz; a worker that
    Gunicorn restarts (SIGABRT, as after its silence timeout) leaves the master's hold and its epoch
    alone; the log of every start and stop says nothing of a lost hold."""
    for start in range(STARTS):
        server = Server(tmp_path / f"start-{start}").prepare().start()
        try:
            _ready(server.url)
            api = Api(server.url).login()
            _book(api, f"s{start}-0")
            game = str(server.db)[:-3]  # the game's name in the database: --db without .db
            epoch = _epoch(on_postgres, game)
            worker = _worker(server.pid)
            os.kill(worker, signal.SIGABRT)
            deadline = time.monotonic() + 60
            while _worker_or_none(server.pid) in (None, worker):
                assert time.monotonic() < deadline, "Gunicorn did not start a new worker"
                time.sleep(0.1)
            _ready(server.url)
            time.sleep(3 * PROBE_SECONDS)  # the master's watcher has probed its hold since the old worker ended
            api = Api(server.url).login()
            _book(api, f"s{start}-1")
            assert _epoch(on_postgres, game) == epoch, "the hold was taken again under a new epoch"
        finally:
            server.stop()
        log = server.log.read_text(errors="replace")
        assert LOST not in log, "\n".join(line for line in log.splitlines() if "hold" in line)
        assert "Traceback" not in log, log[-3000:]


def _worker_or_none(master: int) -> int | None:
    children = Path(f"/proc/{master}/task/{master}/children").read_text().split()
    return int(children[0]) if len(children) == 1 else None


def test_a_forked_child_closing_the_hold_leaves_the_parents_hold_alive(postgres_server):
    """The cause, without Gunicorn: a child forked after the hold closes it (as the worker's exit did,
    unwinding `serve`'s `with hold(...)`). Before, that sent Terminate on the parent's socket and the
    parent's next query failed with "server closed the connection unexpectedly"."""
    from bank.store.journal_pg_hold import hold

    held = hold(postgres_server.url, "forked-game", "terrabank serve", watch=False)
    try:
        child = os.fork()
        if child == 0:  # the worker: it ends, closing what its stack holds
            try:
                held.close()
            finally:
                os._exit(0)
        assert os.waitpid(child, 0)[1] == 0
        assert held.conn.execute("SELECT 1").fetchone() == (1,)  # the parent's session is still there
        assert held.state().held
    finally:
        held.close()
