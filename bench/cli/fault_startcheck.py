"""What the start-up check of `terrabank serve` costs: SQLite's integrity_check of the
whole game file (bank/cli/serve.py check_database), on games of growing length, against
two floors: opening the bank (reading the last snapshot and folding the rows after it)
and the whole `terrabank serve` start until it answers HTTP (check included).

The server binds a free port itself (--port 0) and prints it (harness.launch reads it).
Such a port accepts connections as soon as it is bound, right after the check, so the
start ends at the first HTTP answer, not when a fixed port accepts (Gunicorn binds it
before its worker starts): the worker's start is included (+35-55 ms on a 2-vCPU
machine, --quick, same run).

    .venv/bin/python bench/cli/fault_startcheck.py           # 1 000, 10 000 and 30 000 entries
    .venv/bin/python bench/cli/fault_startcheck.py --quick   # 1 000 and 5 000

Both are timed in the same run, interleaved, 5 times each; medians are shown.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # bench/: the shared modules
from harness import CONFIG, TERRABANK, end, launch, machine

from bank.game.config import load_config
from bank.store.journal import Journal
from bank.services.bank import Bank

CARDS = ("harvester-1", "harvester-2")
RESOURCES = ("water", "flora", "dioxygen", "fauna", "energy")


def make_game(db: Path, entries: int, config) -> None:
    """A game of `entries` harvests (fsync off while building it: only the file matters here)."""
    with Bank.create(db, config) as bank:
        bank._journal._conn.execute("PRAGMA synchronous=OFF")
        bank.execute({"id": "clock", "type": "start_clock"})
        teams = list(config.teams)
        for n in range(entries - 1):
            bank.execute({"id": f"h{n}", "type": "harvest", "team": teams[n % len(teams)],
                          "card": CARDS[n % 2], "resource": RESOURCES[n % 5]})


def timed(fn) -> float:
    started = time.perf_counter()
    fn()
    return time.perf_counter() - started


def open_bank(db, config):
    Bank.open(db, config).close()


def check_file(db):
    journal = Journal.open(db)
    try:
        assert journal.integrity_check() == "ok"
    finally:
        journal.close()


def serve_start(db: Path) -> float:
    """Seconds from launching `terrabank serve` to its first HTTP answer."""
    started = time.perf_counter()
    proc, _ = launch([TERRABANK, "--config", CONFIG, "--db", str(db), "serve", "--host", "127.0.0.1",
                      "--port", "0"], db.with_name("serve.log"))
    seconds = time.perf_counter() - started
    end(proc)
    return seconds


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true")
    args = parser.parse_args()
    sizes = (1000, 5000) if args.quick else (1000, 10_000, 30_000)
    config = load_config(CONFIG)
    print("| journal entries | file size | open the bank | `terrabank serve` start | integrity_check | check / open | check / serve start |")
    print("|---:|---:|---:|---:|---:|---:|---:|")
    with tempfile.TemporaryDirectory(prefix="startcheck-") as tmp:
        for size in sizes:
            db = Path(tmp) / f"game-{size}.db"
            make_game(db, size, config)
            opens, checks, starts = [], [], []
            for _ in range(5):  # interleaved, so drift on a shared machine hits all alike
                opens.append(timed(lambda: open_bank(db, config)))
                checks.append(timed(lambda: check_file(db)))
                starts.append(serve_start(db))
            o, c, s = (statistics.median(x) for x in (opens, checks, starts))
            print(f"| {size} | {db.stat().st_size / 1e6:.1f} MB | {o * 1000:.0f} ms | {s * 1000:.0f} ms "
                  f"| {c * 1000:.0f} ms | {c / o:.1f} | {c / s:.3f} |")
    print()
    print(f"Command: .venv/bin/python bench/cli/fault_startcheck.py{' --quick' if args.quick else ''}")
    print(f"Machine: {machine()}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
