"""Issue 27: the worker CPU of a booked harvest, booked optimistically or with the id's look-up first.

Two games in one process, each behind the real app (create_app, Flask's test client, as
profile_command.py): one books as the SQLite store does since issue 27 (no read before the row:
5 statements), the other with `optimistic_ids` switched off on its journal, which is the flow
before it (the id's look-up with the last seq and the chain head first: 6 statements). Harvests
alternate between them, the order rotating every round, so both see the same machine load.
CPU is the request thread's (time.thread_time): what the worker spends on the command, without
the broadcaster thread's round, which is the same for both and runs after the reply.

    .venv/bin/python bench/bench_optimistic_booking.py [--samples 2000]
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import threading
import time
from pathlib import Path

import harness  # noqa: F401  (puts the repo on sys.path)
from bench_latency import harvest_command
from profile_command import client_for

from bank.game.config import load_config
from bank.services.bank import Bank
from bank.web import create_app

SIDES = {"optimistic": "booked from the tip in memory (issue 27)", "look-up first": "the id looked up first (before)"}


def game(folder: Path, name: str, optimistic: bool):
    """(post, bank) of a started game behind its own app."""
    app = create_app({"DB": folder / f"{name}.db", "CONFIG": load_config(harness.CONFIG)})
    app.extensions["terrabank"].access.add_user("bench", "bench-password-1", "lead")
    bank = app.extensions["terrabank"].bank
    bank._journal.optimistic_ids = optimistic
    post = client_for(app)
    post("start", type="start_clock")
    return post, bank


def statements_of(bank: Bank, action) -> int:
    """How many SQL statements `action` runs on the bank's writer connection (from this thread)."""
    seen, me = [], threading.get_ident()
    bank._journal._conn.set_trace_callback(lambda sql: seen.append(sql) if threading.get_ident() == me else None)
    try:
        action()
    finally:
        bank._journal._conn.set_trace_callback(None)
    return len(seen)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--samples", type=int, default=2000)
    parser.add_argument("--warmup", type=int, default=200)
    args = parser.parse_args()
    load = " ".join(Path("/proc/loadavg").read_text().split()[:3])
    request_cpu = {side: [] for side in SIDES}
    execute_cpu = {side: [] for side in SIDES}
    with tempfile.TemporaryDirectory(prefix="terrabank-optimistic-") as tmp:
        games = {side: game(Path(tmp), f"g{i}", side == "optimistic") for i, side in enumerate(SIDES)}
        spent = {}
        for side, (_, bank) in games.items():
            real = bank.execute

            def timed(*a, _real=real, _side=side, **k):
                started = time.thread_time()
                try:
                    return _real(*a, **k)
                finally:
                    spent[_side] = time.thread_time() - started
            bank.execute = timed
        names = list(SIDES)
        for i in range(args.warmup + args.samples):
            k = i % len(names)
            for side in names[k:] + names[:k]:
                post = games[side][0]
                started = time.thread_time()
                post(f"h{i}", **harvest_command(i))
                used = time.thread_time() - started
                if i >= args.warmup:
                    request_cpu[side].append(used * 1000)
                    execute_cpu[side].append(spent[side] * 1000)
        counts = {side: statements_of(bank, lambda p=post: p(f"count-{side}", **harvest_command(7)))
                  for side, (post, bank) in games.items()}
        for side, (_, bank) in games.items():
            assert bank.verify() == [], side
            bank.close()
    after = " ".join(Path("/proc/loadavg").read_text().split()[:3])
    print(f"Harvests, {args.samples} per side, alternating (load average before: {load}; after: {after}):\n")
    print("| side | SQL statements | Bank.execute CPU p50 ms | request thread CPU p50 ms |")
    print("| --- | ---: | ---: | ---: |")
    for side, label in SIDES.items():
        print(f"| {label} | {counts[side]} | {statistics.median(execute_cpu[side]):.3f} | "
              f"{statistics.median(request_cpu[side]):.3f} |")
    ex = statistics.median(execute_cpu["optimistic"]) / statistics.median(execute_cpu["look-up first"])
    rq = statistics.median(request_cpu["optimistic"]) / statistics.median(request_cpu["look-up first"])
    print(f"\nratio optimistic / look-up first: Bank.execute CPU {ex:.3f}, request thread CPU {rq:.3f}")
    print("\nCommand: `.venv/bin/python bench/bench_optimistic_booking.py --samples "
          f"{args.samples}`; machine: {harness.machine()}")


if __name__ == "__main__":
    main()
