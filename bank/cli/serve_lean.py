"""`terrabank serve`'s Gunicorn master in a fresh interpreter, without Flask (P3 memory).

Once `serve` has answered the start-up questions (the database checked, the addresses, the big
screen's key and the first lead's password printed), its process held Flask, Socket.IO, the bank
and the start-up app: 55 MB resident, and Gunicorn's master kept all of it for the whole game
while doing nothing but watch the worker. The worker, forked from it, shared those pages at
first and copied them one by one as it touched them (the soak's PSS grew faster than its RSS).

So the process re-executes itself here (same pid: Ctrl+C, SIGTERM, systemd and the printed
lines are unchanged), keeping only its locks and its listening socket, and the new interpreter
imports Gunicorn and the Flask-free serving modules alone (about 24 MB). The worker builds the
app after the fork, as before. The same step sets the allocator settings a Raspberry Pi should
run with (`ALLOCATOR`), unless the operator set them already. Only for a SQLite game: a game in
PostgreSQL holds its hold on a database connection that no new interpreter could take over.

This module imports only the standard library at the top: the lean master imports it.
"""

from __future__ import annotations

import gc
import json
import os
import sys
from functools import partial
from pathlib import Path

# glibc's malloc gives each thread that allocates its own arena, up to 8 per core; a live page
# holds four threads, so 200 pages spread the worker's small allocations over 16 arenas, each
# keeping its own free memory. Two arenas (docs/PERFORMANCE.md "Memory"). Environment
# variables, because glibc reads them once at start, before any Python code runs.
# tcache_count=0: glibc's per-thread cache of freed blocks (7 of each size up to 1 KB, per thread)
# let each of 800 threads keep up to ~200 KB no other thread could use, filling slowly: the soak's
# growth of ~16 MB an hour (bench/soak_probe.py, tests/system/test_soak_bounded_malloc.py).
ALLOCATOR = {"MALLOC_ARENA_MAX": "2", "GLIBC_TUNABLES": "glibc.malloc.tcache_count=0"}

# Runs in the new interpreter: the checkout (or install) this `terrabank` came from goes first
# on the path (`-c` would put the working directory there), then main().
_BOOT = ("# terrabank serve: Gunicorn's master (bank/cli/serve_lean.py)\n"
         "import sys; sys.path[0] = sys.argv[2]\n"
         "from bank.cli.serve_lean import main; main(sys.argv[1])")


def app(config_path: str, db: str, **settings):
    """The app of the game at `db` with the config at `config_path` (Flask is loaded here only)."""
    from bank.web import create_app

    return create_app({"DB": db, "CONFIG": served_config(config_path), **settings})


def served_config(config_path: str):
    """The config a worker serves: the one its master checked and started it on, not the file as it is now
    (bank/web/serving/reload.py); the file, where no checking master started this process."""
    from bank.game.config import load_config, parse_config
    from bank.web.serving.reload import accepted_text

    text = accepted_text()
    return load_config(config_path) if text is None else parse_config(text, config_path)


def hosting_settings(games: str | None, config_path: str) -> dict:
    """create_app's settings for `--games` (bank/web/serving/hosting.py); none without it."""
    if not games:
        return {}
    from bank.web.serving.hosting import prepare_hosted

    # A new game starts from this server's config.toml (copied into its folder, to edit there).
    return {"GAMES_DIR": str(Path(games)), "GAMES_CONFIG": config_path, "PREPARE_HOSTED": prepare_hosted}


def exec_master(params: dict, keep: list) -> None:
    """Become the lean master: this process, re-executed with `params` (JSON), descriptors `keep` open.

    Never returns. `params`: config, db, base, games, host, port, listener (a descriptor or None),
    limits (Limits as a dict, already fitted)."""
    for fd in keep:
        os.set_inheritable(fd, True)
    env = {**ALLOCATOR, **os.environ}  # the operator's own values win
    root = str(Path(__file__).resolve().parents[2])
    sys.stdout.flush()
    sys.stderr.flush()
    os.execve(sys.executable, [sys.executable, "-c", _BOOT, json.dumps(params), root], env)


def can_exec() -> bool:
    """Whether this system lets `serve` find the descriptors it must keep (Linux's /proc/self/fd)."""
    return os.path.isdir("/proc/self/fd") and hasattr(os, "set_inheritable")


def held_descriptors(paths: list) -> list:
    """This process's open descriptors on `paths` (the locks `serve` holds), found in /proc/self/fd."""
    wanted = {str(Path(p).resolve()) for p in paths}
    found = []
    for name in os.listdir("/proc/self/fd"):
        try:
            if os.readlink(f"/proc/self/fd/{name}") in wanted:
                found.append(int(name))
        except OSError:
            continue  # the descriptor listdir itself used, gone already
    return found


def main(encoded: str) -> None:
    """The lean master: Gunicorn with the worker class, and the app loaded in the worker only."""
    params = json.loads(encoded)
    _name_process(b"terrabank")
    from bank.web.serving.limits import Limits
    from bank.web.serving.master import raise_fd_limit, run_gunicorn

    limits = Limits(**params["limits"])
    raise_fd_limit(limits.fd_needed())
    # What the master holds now is shared with the worker it forks: keep the collector of the
    # worker from writing to those objects (copy on write), as Instagram's gc.freeze() does.
    gc.collect()
    gc.freeze()
    run_gunicorn(partial(_worker_app, params), params["host"], params["port"], limits,
                 listener=params["listener"], reload_check=(params["config"], params["db"]))


def _worker_app(params: dict, limits):
    """In the worker, after the fork: the app to serve (Flask is loaded here, not in the master)."""
    skip_unused_imports(params["config"], params["games"])
    from bank.web.serving.server import prepare

    settings = hosting_settings(params["games"], params["config"])
    served = app(params["config"], params["db"], TICKER=True, PHONE_BASE=params["base"], **settings)
    _trusted(served, params["db"])
    return prepare(served, limits)


def _trusted(served, db: str) -> None:
    """Refuse to serve a journal edited since the master's check at start (bank/cli/serve.py check_database).

    Gunicorn starts a worker again after a crash, an out-of-memory kill or a reload, long after that check. A row
    edited by hand while the bank served (its chain row left as it was), then the worker killed: the new worker
    served the edited row in its balances and answered the phones that witness the journal the very heads they
    saw (the stored chain). Now it fails to boot with the sentence, as `serve` refuses such a file at start
    (bank/web/serving/opening.py: not a failure that passes by itself)."""
    problems = served.extensions["terrabank"].bank.verify(whole=False)
    if problems:
        from bank.store.storage import known_failure

        raise known_failure("database_corrupt", db, "; ".join(problems))


def skip_unused_imports(config_path: str, games: str | None, config=None) -> list:
    """Keep python-socketio from importing, in the worker, what this server never uses (P3 memory).

    `import socketio` imports its asyncio client, whose Engine.IO client imports aiohttp when it is
    installed (the benches' extra: 9 MB resident), and its Redis manager, which imports redis and
    redis.asyncio (6 MB) whether or not a queue is set. Both modules try their imports and go on
    without them. The bank itself imports redis only for a queue (push/peers.py); a queue comes
    from the environment or config.toml at start (a reload never adds one), and a hosted game's
    own config might set one, so redis is kept with --games. `serve`'s first process (before it becomes
    this master) builds an app too, to answer the start-up questions: it skips them as well, given the
    config it has read already. Returns the modules left out."""
    from bank.web.push.peers import queue_url

    skipped = ["aiohttp"]
    if not games and queue_url(config or served_config(config_path)) is None:
        skipped.append("redis")
    skipped = [name for name in skipped if name not in sys.modules]
    for name in skipped:
        sys.modules[name] = None  # `import name` raises ImportError from now on in this process
    return skipped


def _name_process(name: bytes) -> None:
    """`terrabank` in top and pgrep (the new interpreter would be "python3"); Linux only."""
    try:
        import ctypes

        ctypes.CDLL(None).prctl(15, name, 0, 0, 0)  # PR_SET_NAME
    except (OSError, AttributeError):
        pass
