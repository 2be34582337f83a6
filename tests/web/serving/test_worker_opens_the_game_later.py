"""A worker started while its game cannot be opened answers 503 and serves as soon as it can; `serve` never ends.

Gunicorn starts a worker again after a crash, an out-of-memory kill or its watchdog, and a reload starts a
new one. Before: a worker that could not open its game (PostgreSQL away; the SQLite file's write lock held
by another program, a database browser or `sqlite3` inside a transaction) exited "failed to boot", and
Gunicorn's master ended with it (status 3, "Reason: Worker failed to boot."): the whole `serve` was gone,
and on a Pi with no supervisor the bank stayed down after the database came back. Now that worker answers
503 with the reason (a command's JSON sentence, /readyz), opens the game as soon as it can, and the command
sent again with its key is booked once (bank/web/serving/opening.py).
"""

from __future__ import annotations

import os
import signal
import re
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[3] / "bench"))
from harness import CONFIG, TERRABANK, Api, Server, end, launch  # noqa: E402

pytestmark = pytest.mark.skipif(not hasattr(signal, "SIGHUP"), reason="POSIX signals")

RUNNING = re.compile(r"http://127\.0\.0\.1:(\d+)/")
AWARD = {"type": "award", "team": "green", "points": 1, "reason": "after the outage"}


def workers(master: int) -> set[int]:
    children = Path(f"/proc/{master}/task/{master}/children")
    return {int(p) for p in children.read_text().split()} if children.exists() else set()


def until(what, seconds: float = 60.0):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        try:
            found = what()
        except (OSError, KeyError, RuntimeError):  # between two workers, or a log-in still answered 503
            found = None
        if found:
            return found
        time.sleep(0.2)
    return None


def lose_the_worker(master: int, log: Path) -> dict:
    """SIGKILL the worker (an out-of-memory kill), then the reply of its successor to a command: a 503."""
    killed = workers(master)
    for pid in killed:
        os.kill(pid, signal.SIGKILL)
    assert until(lambda: workers(master) - killed, 30), "no worker started again:\n" + log.read_text()[-3000:]
    return killed


def refused_while_out(url: str, master: int, log: Path, code: str) -> None:
    """While the game cannot be opened: the master lives, a command is refused with its sentence, /readyz 503."""
    def answered():
        status, body = Api(url, timeout=15).request("POST", "/api/commands", AWARD, {"Idempotency-Key": "during"})
        return (status, body) if status == 503 else None

    status, body = until(answered, 30) or (None, log.read_text()[-3000:])
    assert status == 503 and body["error"]["code"] == code and body["error"]["message"], body
    status, ready = Api(url, timeout=15).request("GET", "/readyz")
    assert status == 503 and not ready["ready"] and "cannot be opened" in ready["reason"], ready
    assert Api(url, timeout=15).request("GET", "/healthz")[0] == 200
    assert master and "Worker failed to boot" not in log.read_text()


def books_once(url: str, log: Path, rows, workers_out: int = 1) -> None:
    """Once it is back: the command sent again with its key is booked, once; /readyz 200; one line each way
    (each of the `workers_out` workers that met the outage says it once; the one serving at the end, its end)."""
    api = until(lambda: Api(url, timeout=15).login(), 60)
    assert api, log.read_text()[-3000:]
    assert until(lambda: api.command("during", **AWARD)[0] == 200, 60), log.read_text()[-3000:]
    assert api.command("during", **AWARD)[0] == 200  # again: already booked, the same answer
    assert rows().count("during") == 1
    assert until(lambda: Api(url, timeout=15).request("GET", "/readyz")[0] == 200, 30)
    text = log.read_text()
    assert text.count("this worker cannot open the game yet") == workers_out, text[-3000:]
    assert text.count("this worker opened the game") == 1, text[-3000:]
    assert "Worker failed to boot" not in text and "Traceback" not in text, text[-3000:]


def test_a_worker_lost_while_another_program_holds_the_file_answers_503_then_books_once_it_is_free(tmp_path):
    server = Server(tmp_path).prepare().start()
    held = None
    try:
        api = Api(server.url, timeout=15).login()
        assert api.command("before", **AWARD)[0] == 200
        held = sqlite3.connect(server.db, isolation_level=None)  # a database browser in the middle of an edit
        held.execute("BEGIN EXCLUSIVE")
        lose_the_worker(server.pid, server.log)
        refused_while_out(server.url, server.pid, server.log, "database_busy")
        # And a reload meanwhile: it waits for the file (its new worker could not open it either), said in a line.
        os.kill(server.pid, signal.SIGHUP)
        assert until(lambda: "the reload waits for the game's database" in server.log.read_text(), 60), \
            server.log.read_text()[-3000:]
        assert "a new worker serves it" not in server.log.read_text()
        assert server.proc.poll() is None, server.log.read_text()[-3000:]
        held.execute("ROLLBACK")
        held.close()
        held = None

        def rows():
            with sqlite3.connect(server.db) as conn:
                return [r[0] for r in conn.execute("SELECT command_id FROM journal ORDER BY seq")]

        books_once(server.url, server.log, rows)
        assert until(lambda: "a new worker serves it (it waited for the database)" in server.log.read_text(), 60), \
            server.log.read_text()[-3000:]
        assert server.proc.poll() is None
    finally:
        if held is not None:
            held.close()
        server.stop()


def test_a_worker_lost_while_postgres_is_down_answers_503_then_books_once_it_is_back(tmp_path, postgres_server):
    from pg_game_kit import Game

    game = Game(tmp_path, postgres_server.url)
    try:
        proc, port = game.serve("a")
        url, log = f"http://127.0.0.1:{port}", tmp_path / "a.log"
        assert Api(url, timeout=15).login().command("before", **AWARD)[0] == 200
        postgres_server._run("pg_ctl", "-D", str(postgres_server.data), "-m", "fast", "-w", "stop")
        try:
            lose_the_worker(proc.pid, log)
            refused_while_out(url, proc.pid, log, "database_unreachable")
            assert proc.poll() is None, log.read_text()[-3000:]
        finally:
            postgres_server._start(postgres_server.port)
        books_once(url, log, game.rows)
        assert proc.poll() is None
    finally:
        game.stop()


def test_serve_started_while_postgres_is_down_waits_for_it_in_one_line_then_serves(tmp_path, postgres_server):
    """Before: `serve` exited (status 2) at once, and systemd started it again every 2 s for as long as the
    database was away: half a CPU-second and a line each time. Now it says so once, waits, and serves."""
    from pg_game_kit import Game

    game = Game(tmp_path, postgres_server.url)
    proc = None
    log = tmp_path / "a.log"
    try:
        # A database that answers no (here: no such database) is said at once and ends `serve`, as before.
        wrong = subprocess.run([TERRABANK, "--config", CONFIG, "--db", game.name, "serve", "--host", "127.0.0.1",
                                "--port", "0"], capture_output=True, text=True, cwd=tmp_path, timeout=60,
                               env={**os.environ, **game.env,
                                    "TERRABANK_DATABASE_URL": postgres_server.url.rsplit("/", 1)[0] + "/no_such_db"})
        assert wrong.returncode == 2 and "no_such_db" in wrong.stderr and "Waiting" not in wrong.stdout, wrong
        postgres_server._run("pg_ctl", "-D", str(postgres_server.data), "-m", "fast", "-w", "stop")
        try:
            with open(log, "ab") as out:
                proc = subprocess.Popen([TERRABANK, "--config", CONFIG, "--db", game.name, "serve", "--host", "127.0.0.1",
                                         "--port", "0"], stdout=out, stderr=subprocess.STDOUT, cwd=tmp_path,
                                        env={**os.environ, **game.env, "PYTHONUNBUFFERED": "1"})
            assert until(lambda: "Waiting for it" in log.read_text(), 60), log.read_text()[-3000:]
            time.sleep(4.0)  # two tries more, said nowhere
            assert proc.poll() is None, log.read_text()[-3000:]
            assert log.read_text().count("Waiting for it") == 1
        finally:
            postgres_server._start(postgres_server.port)
        port = int(until(lambda: RUNNING.search(log.read_text()), 60).group(1))
        url = f"http://127.0.0.1:{port}"
        api = until(lambda: Api(url, timeout=15).login(), 60)
        assert api and api.command("after", **AWARD)[0] == 200, log.read_text()[-3000:]
        assert game.rows().count("after") == 1
        assert "the database answers" in log.read_text() and "Traceback" not in log.read_text()
    finally:
        if proc is not None:
            end(proc)
        game.stop()
