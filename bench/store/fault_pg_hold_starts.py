"""How often a PostgreSQL `terrabank serve` loses its hold on the game by itself (fencing).

Starts `serve --port 0` on a throwaway PostgreSQL (tests/postgres_kit.py) N times, lets it run,
stops it (SIGTERM) and counts the starts whose log says "lost the hold", while it ran and at
its stop. Before the fix (journal_pg_connect._disown_inherited) Gunicorn's worker, ending,
closed the hold's connection it had inherited from the master, which ended the master's
session: 8 of 8 starts at load 19-23, 6 of 13 at load 2-14; after it, 0 of 8 at load 9-30.

    .venv/bin/python bench/store/fault_pg_hold_starts.py            # 8 starts, 3 s each
    .venv/bin/python bench/store/fault_pg_hold_starts.py -n 20 --run 5
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # bench/: the shared modules
from harness import CONFIG, TERRABANK, end, launch, machine

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "tests"))
from postgres_kit import Server, missing_reason  # noqa: E402

LOST = "lost the hold"


def one_start(pg: Server, folder: Path, run: float) -> str:
    """'ok', 'while running' or 'at stop'."""
    import subprocess

    env = {"TERRABANK_DATABASE_URL": pg.url}
    db = str(folder / "game")
    subprocess.run([TERRABANK, "--config", CONFIG, "--db", db, "init"], env={**os.environ, **env}, check=True,
                   capture_output=True, cwd=folder)
    log = folder / "serve.log"
    proc, _ = launch([TERRABANK, "--config", CONFIG, "--db", db, "serve", "--host", "127.0.0.1", "--port", "0"],
                     log, timeout=60, env=env, cwd=folder)
    time.sleep(run)
    running = LOST in log.read_text(errors="replace")
    end(proc)
    if running:
        return "while running"
    return "at stop" if LOST in log.read_text(errors="replace") else "ok"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("-n", type=int, default=8, help="starts (default 8)")
    parser.add_argument("--run", type=float, default=3.0, help="seconds each server runs (default 3)")
    args = parser.parse_args()
    why = missing_reason()
    if why:
        print(f"cannot run: {why}")
        return 2
    print(machine(), f"load before: {os.getloadavg()[0]:.1f}")
    pg = Server()
    counts = {"ok": 0, "while running": 0, "at stop": 0}
    try:
        for i in range(args.n):
            folder = Path(tempfile.mkdtemp(prefix="tb-hold-"))
            try:
                outcome = one_start(pg, folder, args.run)
            finally:
                shutil.rmtree(folder, ignore_errors=True)
            counts[outcome] += 1
            print(f"start {i + 1}: {outcome}", flush=True)
    finally:
        pg.stop()
    print(f"lost the hold in {args.n - counts['ok']} of {args.n} starts ({counts['while running']} while running, "
          f"{counts['at stop']} at stop); load after: {os.getloadavg()[0]:.1f}")
    return 0 if counts["ok"] == args.n else 1


if __name__ == "__main__":
    sys.exit(main())
