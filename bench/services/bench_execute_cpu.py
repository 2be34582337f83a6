"""The CPU of `Bank.execute` itself per harvest and per build, in-process, no web layer.

A fresh durable game (SQLite, Bank.create) books bench_latency's mix directly on the bank:
harvest, inventory (so the team can pay), build, reverse. Each command's CPU is the booking
thread's (time.thread_time) around `Bank.execute`; reported per type (mean and p50, µs).

    .venv/bin/python bench/services/bench_execute_cpu.py [--rounds 2000]            # this tree, per type
    .venv/bin/python bench/services/bench_execute_cpu.py --profile [--top 40]      # cProfile of the same mix
    .venv/bin/python bench/services/bench_execute_cpu.py --base /tmp/ab/base --new /tmp/ab/new [--runs 6]
        # A/B: two worker processes, each importing the bank from one copy of the tree, booking the mix
        # in batches of 50 rounds by turns, so both sides see the same machine load; per run the
        # median over batch pairs of the new/base ratio of the mean CPU per command type.

Making the copies (the files a cut changes, taken from the commit before it on the base side):

    mkdir -p /tmp/ab && for s in base new; do mkdir -p /tmp/ab/$s; tar -C /work/main --exclude=./.git \\
        --exclude=./.venv -cf - bank config.toml | tar -xf - -C /tmp/ab/$s; done
    git -C /work/main show <before>:bank/services/bank.py > /tmp/ab/base/bank/services/bank.py   # ...
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
TYPES = ("harvest", "inventory", "build", "reverse")
TEAMS = ["blue", "yellow", "red", "green"]
HARVESTERS = ["harvester-1", "harvester-2"]
RESOURCES = ["water", "flora", "dioxygen", "fauna", "energy"]
BUILDINGS = ["power_plant_1", "purification_centre", "greenhouse", "reserve"]  # as bench_latency.py
STOCK = {r: 30 for r in RESOURCES}


def mix(i: int) -> list[dict]:
    """Round i of bench_latency's mix, as commands with their ids."""
    team, building = TEAMS[i % 4], BUILDINGS[i // 4 % len(BUILDINGS)]
    return [{"id": f"h{i}", "type": "harvest", "team": team, "card": HARVESTERS[i // 4 % 2], "resource": RESOURCES[i % 5]},
            {"id": f"inv{i}", "type": "inventory", "team": team, "counted": STOCK, "reason": "bench"},
            {"id": f"b{i}", "type": "build", "team": team, "building": building},
            {"id": f"rev{i}", "type": "reverse", "seq": None, "reason": "bench"}]


def book_rounds(bank, rounds: int, start: int, spent: dict | None) -> None:
    """Book `rounds` rounds of the mix; per type, the booking thread's CPU of each execute (µs) into `spent`."""
    for i in range(start, start + rounds):
        build_seq = None
        for command in mix(i):
            if command["type"] == "reverse":
                command["seq"] = build_seq
            before = time.thread_time()
            result = bank.execute(command)
            cpu = time.thread_time() - before
            if command["type"] == "build":
                build_seq = result.seq
            if spent is not None:
                spent[command["type"]].append(cpu * 1e6)


def fresh_bank(folder: Path):
    from bank.game.config import load_config
    from bank.services.bank import Bank

    bank = Bank.create(folder / "game.db", load_config(ROOT / "config.toml"))
    bank.execute({"id": "start", "type": "start_clock"})
    return bank


def measure(rounds: int, warmup: int) -> dict:
    """{type: [µs per execute]} over `rounds` rounds of the mix on a fresh game."""
    spent = {t: [] for t in TYPES}
    with tempfile.TemporaryDirectory(prefix="terrabank-execute-cpu-") as tmp:
        bank = fresh_bank(Path(tmp))
        try:
            book_rounds(bank, warmup, 0, None)
            book_rounds(bank, rounds, warmup, spent)
        finally:
            bank.close()
    return spent


def profile(rounds: int, top: int) -> None:
    import cProfile
    import io
    import pstats

    with tempfile.TemporaryDirectory(prefix="terrabank-execute-profile-") as tmp:
        bank = fresh_bank(Path(tmp))
        book_rounds(bank, 50, 0, None)
        profiler = cProfile.Profile(time.thread_time)  # CPU, not the wait for the disk
        profiler.enable()
        book_rounds(bank, rounds, 50, None)
        profiler.disable()
        bank.close()
    out = io.StringIO()
    pstats.Stats(profiler, stream=out).sort_stats("tottime").print_stats(top)
    print(out.getvalue())


def serve_batches(warmup: int) -> None:
    """A/B worker: a fresh game; for each line "N" on stdin, N rounds of the mix, then one line of JSON,
    {type: mean µs} of that batch, on stdout."""
    with tempfile.TemporaryDirectory(prefix="terrabank-execute-cpu-") as tmp:
        bank = fresh_bank(Path(tmp))
        try:
            book_rounds(bank, warmup, 0, None)
            done = warmup
            for line in sys.stdin:
                rounds = int(line)
                spent = {t: [] for t in TYPES}
                book_rounds(bank, rounds, done, spent)
                done += rounds
                print(json.dumps({t: statistics.fmean(v) for t, v in spent.items()}), flush=True)
        finally:
            bank.close()


def worker(tree: Path, warmup: int) -> subprocess.Popen:
    """A worker process importing the bank from `tree` (serve_batches)."""
    code = (f"import sys; sys.path.insert(0, {str(tree)!r}); sys.path.insert(1, {str(ROOT / 'bench')!r}); "
            f"import bench_execute_cpu as b; b.serve_batches({warmup})")
    return subprocess.Popen([sys.executable, "-c", code], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            text=True, cwd=tree)


def ab(base: Path, new: Path, runs: int, rounds: int, warmup: int, batch: int = 50) -> None:
    """Both workers alive at once, batches of `batch` rounds alternating (the order turning every batch),
    so both sides see the same machine load; per batch pair the new/base ratio of the mean CPU."""
    load = " ".join(Path("/proc/loadavg").read_text().split()[:3])
    workers = {"base": worker(base.resolve(), warmup), "new": worker(new.resolve(), warmup)}
    ratios = {t: [] for t in TYPES}
    means = {side: {t: [] for t in TYPES} for side in workers}
    try:
        for run in range(runs):
            run_ratios = {t: [] for t in TYPES}
            for k in range(max(1, rounds // batch)):
                order = ("base", "new") if k % 2 == 0 else ("new", "base")
                got = {}
                for side in order:
                    workers[side].stdin.write(f"{batch}\n")
                    workers[side].stdin.flush()
                    got[side] = json.loads(workers[side].stdout.readline())
                for t in TYPES:
                    run_ratios[t].append(got["new"][t] / got["base"][t])
                    for side in got:
                        means[side][t].append(got[side][t])
            for t in TYPES:
                ratios[t].append(statistics.median(run_ratios[t]))
            print(f"run {run + 1}: " + "  ".join(f"{t} {ratios[t][-1]:.3f}x" for t in TYPES), flush=True)
    finally:
        for w in workers.values():
            w.stdin.close()
            w.wait()
    print(f"\n{runs} runs of {rounds} rounds in batches of {batch} (after {warmup} warm-up), both sides alternating;"
          f" load at start {load}, at end {' '.join(Path('/proc/loadavg').read_text().split()[:3])}")
    print("| command | base µs (median of batch means) | new µs | new/base: median of the runs' medians (range) |")
    print("| --- | ---: | ---: | --- |")
    for t in TYPES:
        print(f"| {t} | {statistics.median(means['base'][t]):.0f} | {statistics.median(means['new'][t]):.0f} | "
              f"{statistics.median(ratios[t]):.3f} ({min(ratios[t]):.3f}-{max(ratios[t]):.3f}) |")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=1000, help="rounds of the mix (4 commands each)")
    parser.add_argument("--warmup", type=int, default=100)
    parser.add_argument("--profile", action="store_true")
    parser.add_argument("--top", type=int, default=40)
    parser.add_argument("--base", type=Path)
    parser.add_argument("--new", type=Path)
    parser.add_argument("--runs", type=int, default=6)
    args = parser.parse_args()
    if args.base or args.new:
        ab(args.base, args.new, args.runs, args.rounds, args.warmup)
        return
    if args.profile:
        profile(args.rounds, args.top)
        return
    sys.path.insert(0, str(ROOT))
    spent = measure(args.rounds, args.warmup)
    print(f"load {' '.join(Path('/proc/loadavg').read_text().split()[:3])}")
    for t in TYPES:
        print(f"{t:10} mean {statistics.fmean(spent[t]):7.0f} µs  p50 {statistics.median(spent[t]):7.0f} µs")


if __name__ == "__main__":
    if str(ROOT) not in sys.path:
        sys.path.insert(0, str(ROOT))
    main()
