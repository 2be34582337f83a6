"""What `terrabank serve` itself sets up so that a Raspberry Pi runs light.

- Gunicorn's master only watches the worker: it re-executes as a lean interpreter
  (bank/cli/serve_lean.py) that never loads Flask or the bank, instead of keeping the 55 MB
  of the start-up app for the whole game (the worker builds its own after the fork).
- The served processes run with two glibc malloc arenas (MALLOC_ARENA_MAX=2) unless the
  operator chose a number: 800 threads for 200 pages otherwise spread over 16 arenas.
- The re-execution keeps the game's lock: a second server on the same game is still refused.
"""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "bench"))
from harness import CONFIG, TERRABANK, end, launch  # noqa: E402
import proctree  # noqa: E402

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")


@pytest.fixture(autouse=True)
def _no_allocator_setting_of_our_own(monkeypatch):
    monkeypatch.delenv("MALLOC_ARENA_MAX", raising=False)  # the servers inherit this environment


def _init(tmp_path: Path) -> str:
    db = str(tmp_path / "field.db")
    subprocess.run([TERRABANK, "--config", CONFIG, "--db", db, "init"], check=True, capture_output=True, cwd=tmp_path)
    return db


def _serve(tmp_path: Path, db: str, env: dict | None = None):
    proc, port = launch([TERRABANK, "--config", CONFIG, "--db", db, "serve", "--host", "127.0.0.1", "--port", "0"],
                        tmp_path / "serve.log", timeout=60, env=env, cwd=tmp_path)
    deadline = time.monotonic() + 30
    while not proctree.children(proc.pid) and time.monotonic() < deadline:
        time.sleep(0.1)
    return proc, port


def _environ(pid: int) -> dict:
    raw = Path(f"/proc/{pid}/environ").read_bytes().split(b"\0")
    return dict(item.decode(errors="replace").split("=", 1) for item in raw if b"=" in item)


def _maps(pid: int) -> str:
    return Path(f"/proc/{pid}/maps").read_text()


def test_issue27_the_master_holds_neither_flask_nor_the_bank_and_weighs_far_less_than_its_worker(tmp_path):
    proc, _ = _serve(tmp_path, _init(tmp_path))
    try:
        master = proc.pid
        (worker,) = proctree.children(master)
        time.sleep(2)  # the worker's app is built
        # The bank's storage (SQLite) is loaded in the worker only: the master never opened a game.
        assert "_sqlite3" in _maps(worker)
        assert "_sqlite3" not in _maps(master), "the master still holds the start-up app (Flask and the bank)"
        rows = {pid: (rss, pss) for pid, _, rss, pss in proctree.processes(master)}
        master_rss, worker_rss = rows[master][0], rows[worker][0]
        # Before: master 55 MB, idle worker 52 MB. Now about 25 MB against 52 (docs/PERFORMANCE.md).
        assert master_rss < 0.7 * worker_rss, f"master {master_rss:.1f} MB, worker {worker_rss:.1f} MB"
        assert Path(f"/proc/{master}/comm").read_text().strip() == "terrabank"  # what top and pgrep show
    finally:
        end(proc)


def test_issue27_the_served_processes_run_with_two_malloc_arenas_unless_the_operator_chose(tmp_path):
    db = _init(tmp_path)
    proc, _ = _serve(tmp_path, db)
    try:
        for pid in proctree.tree(proc.pid):  # glibc reads it once, at the start of the process
            assert _environ(pid).get("MALLOC_ARENA_MAX") == "2", f"process {pid}"
    finally:
        end(proc)
    proc, _ = _serve(tmp_path, db, {"MALLOC_ARENA_MAX": "4"})
    try:
        assert {_environ(pid).get("MALLOC_ARENA_MAX") for pid in proctree.tree(proc.pid)} == {"4"}
    finally:
        end(proc)


def test_issue27_after_the_master_is_re_executed_a_second_server_on_the_game_is_still_refused(tmp_path):
    db = _init(tmp_path)
    proc, port = _serve(tmp_path, db)
    try:
        second = subprocess.run([TERRABANK, "--config", CONFIG, "--db", db, "serve", "--host", "127.0.0.1",
                                 "--port", "0"], capture_output=True, text=True, timeout=60, cwd=tmp_path)
        assert second.returncode == 2
        assert "already running" in second.stderr and f"process {proc.pid}" in second.stderr
        assert proc.poll() is None
    finally:
        end(proc)


def test_issue27_python3_run_py_serve_becomes_the_bank_instead_of_waiting_beside_it(tmp_path):
    """The README's `python3 run.py serve`: the process the facilitator started is the bank itself
    (Ctrl+C reaches it directly), not an idle launcher holding 18 MB of a Pi's memory all game long."""
    db = _init(tmp_path)
    code = (f"import sys; sys.path.insert(0, {str(ROOT)!r}); import run; "
            "sys.exit(run.serve(['--host', '127.0.0.1', '--port', '0']))")  # run.py's venv set-up skipped
    env = {"TERRABANK_DB": db, "TERRABANK_CONFIG": CONFIG}
    proc, port = launch([sys.executable, "-c", code], tmp_path / "serve.log", timeout=60,
                        env=env, cwd=tmp_path)
    try:
        assert Path(f"/proc/{proc.pid}/comm").read_text().strip() == "terrabank"
        (worker,) = proctree.children(proc.pid)  # Gunicorn's worker, and no launcher in between
        assert "serve_lean" in Path(f"/proc/{proc.pid}/cmdline").read_text()
    finally:
        end(proc)


def _left_out(tmp_path: Path, env: dict) -> str:
    """What the worker's skip_unused_imports leaves out, then which of those the app's modules loaded anyway."""
    code = ("import sys\n"
            "from bank.cli.serve_lean import skip_unused_imports\n"
            "skipped = skip_unused_imports(sys.argv[1], None)\n"
            "import bank.web.app  # create_app's module: Flask, Flask-SocketIO, the bank\n"
            "print(skipped, sorted(m for m in ('aiohttp', 'redis', 'redis.asyncio') if sys.modules.get(m)))\n")
    out = subprocess.run([sys.executable, "-c", code, CONFIG], capture_output=True, text=True,
                         env=env, cwd=tmp_path, check=True, timeout=120).stdout
    return out.strip().splitlines()[-1]


def test_the_worker_leaves_out_what_socketio_imports_and_the_bank_never_uses_unless_a_queue_needs_redis(tmp_path):
    # python-socketio imports its asyncio client (aiohttp, when the benches' extra is installed: 9 MB) and its
    # Redis manager (redis and redis.asyncio: 6 MB) into every worker; a game in one process needs neither.
    import os

    env = {key: value for key, value in os.environ.items() if key != "TERRABANK_QUEUE_URL"}
    assert _left_out(tmp_path, env) == "['aiohttp', 'redis'] []"
    queued = {**env, "TERRABANK_QUEUE_URL": "redis://127.0.0.1:9/0"}  # processes sharing a game: redis is kept
    assert _left_out(tmp_path, queued) == "['aiohttp'] ['redis', 'redis.asyncio']"


def test_no_process_of_serve_imports_redis_or_aiohttp_without_a_queue_not_even_the_first(tmp_path, monkeypatch):
    """`serve`'s first process builds an app too (to print the big screen's key and the first lead's password)
    before it becomes the lean master: it leaves out what the worker leaves out (skip_unused_imports), about
    0.17 CPU-s of python-socketio's Redis manager at every start. Each process writes its imports to the log."""
    monkeypatch.delenv("TERRABANK_QUEUE_URL", raising=False)
    proc, _ = _serve(tmp_path, _init(tmp_path), env={"PYTHONPROFILEIMPORTTIME": "1"})
    end(proc)
    loaded = [line.rsplit("|", 1)[-1].strip() for line in (tmp_path / "serve.log").read_text().splitlines()
              if line.startswith("import time:")]
    assert "flask" in loaded and "gunicorn" in loaded  # the lines are there: the first process's and the master's
    # A module left out still shows as a line of its own (the attempt); a real import loads its submodules.
    assert [m for m in loaded if m.startswith(("redis.", "aiohttp."))] == []
