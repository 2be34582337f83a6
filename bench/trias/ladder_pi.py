"""The Trias ladder where people play: real time budgets, each game's process held to a Pi's budget.

    # the final run: every cell, 4 workers (each its own Pi), stop at 19:50 whatever n is reached
    nohup .venv/bin/python bench/trias/ladder_pi.py run --workers 4 --games 100 --games4 64 --lead2 0.8 \
        --until 19:50 --log bench/trias/ladder_pi_run.jsonl --json bench/trias/ladder_pi_run.json &
    # the tables again from the JSON lines (a run cut short, or several logs of the same commit)
    .venv/bin/python bench/trias/ladder_pi.py report --log bench/trias/ladder_pi_run.jsonl
    # reproducible: medium and hard at the iteration counts bench_trias_ladder.py calibrated, greedy unbounded
    .venv/bin/python bench/trias/ladder_pi.py run --mode iterations --games 20 --log /tmp/it.jsonl

What it measures. `bench/trias/bench_trias_ladder.py` plays medium and hard at iteration counts a quiet
core buys in their budgets; a family plays them at their time budgets (`trias.bots.DEFAULT_BUDGET`,
seconds of wall time) on a small computer. Here every worker process stands for one Raspberry Pi:
it makes its OWN control group with `bench/system/pi_budget.py`'s `Budget` (one core, by default 2.5 ms of
CPU every 10 ms, a quarter of the core) and moves itself in before it plays; workers alternate
between cores 0 and 1. A worker plays complete games, every seat through `trias.bots.choose` with
the seat's level at its DEFAULT_BUDGET, and times each decision (wall and CPU, and the search's
iterations for medium and hard). So the time budgets run out as they would on a Pi: a decision's
seconds are the Pi's seconds, and the iterations it buys are what a Pi buys.

Cells (tested level in one seat, the level below in the others): 2 players easy:random,
medium:easy, hard:medium, hard:easy; 4 players medium:easy and hard:medium (rate against parity,
25 %). Seats rotate: game g is dealt by seed SEED_BASE + g // players and puts the tested level in
seat g mod players, so every board is played from every seat and a cell of n = k * players games
plays each seat order equally. A shared first place counts as a shared win. Intervals are Wilson 95 %.

Games are handed out interleaved across cells, each cell at the pace of its --games target, so a run
stopped at any time (--until, --minutes, SIGTERM) has every cell in proportion. Each finished game is
appended to --log as one JSON line at once. A cell's figures count only the longest prefix of its
games all finished (so the quick games of a cell are never kept while its long ones were cut off);
the rest are reported as dropped.

The quota follows the host: a fixed share of a machine whose speed moves (the same loop took 0.36 s of CPU
in the morning and 0.5-0.76 s at noon) is not a fixed Pi. Before the workers start, the calibration loop runs
three times outside any group and --quota (the Pi on the reference host, REFERENCE_CPU_S) is scaled by the
median CPU time against the reference, up to the whole core; every calibration during the run scales it again
from the last three samples and sets every worker's group. The output says each quota set and why, and each
game records the quota it started at. --fixed-quota keeps --quota as given.

Calibration: `pi_budget.calibrate`'s pure-Python loop, timed in a group of the same budget and
outside it, at the start (before any worker) and every --calibrate-every minutes during the run on
alternating cores: the factor is the loop's wall time in the group over its CPU time outside (about
4 for a quarter core on a quiet machine; more when other work takes the core from the group). Each
game also records its CPU / wall share: what the worker's Pi actually got.

--mode iterations (reproducible, not where people play): medium and hard at the iteration counts of
`bench/trias/trias_calibration.json` (what their budgets buy on a quiet core, per player count), greedy
without a time bound, one seeded rng a game; the workers are still held to the Pi budget unless
--no-pi, so the decision times say what those counts cost on a Pi. The report says which mode each
figure is.

Needs root on Linux with cgroups (v1 or v2, as pi_budget.py). Groups are removed at the end.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import math
import multiprocessing as mp
import os
import queue
import random
import signal
import statistics
import subprocess
import sys
import threading
import time
import traceback
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))
sys.path.insert(0, str(ROOT / "bench" / "system"))  # pi_budget

import pi_budget  # noqa: E402
from pi_budget import Budget  # noqa: E402
from bench_trias import wilson  # noqa: E402 (the Wilson interval, one copy)

import trias  # noqa: E402
from trias import bots  # noqa: E402
from trias.bots import search  # noqa: E402
from trias.bots.randombot import random_action  # noqa: E402

CELLS = ((2, "easy", "random"), (2, "medium", "easy"), (2, "hard", "medium"), (2, "hard", "easy"),
         (4, "medium", "easy"), (4, "hard", "medium"))
SEED_BASE = 32_000
TARGET_RATE = 0.65        # each level beats the one below in >= 65 % of 2-player games
TARGET_HARD_EASY = 0.80   # hard beats greedy in >= 80 %
TARGET_N = 100            # per 2-player cell
BOUND_S = {"easy": 0.5, "any": 2.0}   # every decision <= 2 s at the Pi budget, easy <= 0.5 s
TURN_BOUND_S = dict(bots.TURN_BOUND)   # a whole computer turn: hard <= 5 s, easy <= 2 s
# The calibration loop's CPU seconds outside any group on the host whose quarter core stood for a Pi when the
# budgets were set: the median of the 13 samples of the runs of 2 December 04:37-08:24 (ladder_turns_run,
# ladder_carry_run; 0.245-0.456 s). The same host took 0.5-0.76 s at noon: a fixed share of it is not a fixed Pi.
REFERENCE_CPU_S = 0.357


def cell_name(cell: tuple) -> str:
    return f"{cell[0]}:{cell[1]}:{cell[2]}"


def parse_cells(text: str | None) -> list:
    if not text:
        return list(CELLS)
    out = []
    for part in text.split(","):
        players, tested, below = part.split(":")
        out.append((int(players), tested, below))
    return out


def commit() -> dict:
    """The commit measured, and whether the engine and bots differ from it in the tree that runs."""
    def git(*args):
        try:
            return subprocess.run(["git", *args], cwd=ROOT, capture_output=True, text=True, timeout=20).stdout.strip()
        except (OSError, subprocess.SubprocessError):
            return ""
    head = git("log", "-1", "--format=%h")
    if not head and (ROOT / "COMMIT").exists():  # a `git archive` copy made for a run
        head = (ROOT / "COMMIT").read_text().strip()
    return {"commit": head or "unknown", "trias_changed": git("status", "--porcelain", "--", "trias") if head else ""}


def budgets_for(mode: str, players: int, calibration: dict | None, seconds: dict | None = None,
                iterations: dict | None = None, budgets: dict | None = None) -> dict:
    """Each level's budget for `bots.choose` at `players`: the real seconds (DEFAULT_BUDGET, or the
    --seconds a pilot tries instead, or a whole --budget), or iterations (calibrated, or --iterations)."""
    if mode == "seconds":
        return {"random": None, **{level: dict(b) for level, b in bots.DEFAULT_BUDGET.items()},
                **{level: {"seconds": s} for level, s in (seconds or {}).items()},
                **{level: dict(b) for level, b in (budgets or {}).items()}}
    row = calibration.get(str(players)) if calibration else None
    counts = {level: row[level]["iterations_mean"] for level in ("medium", "hard")} if row else {}
    counts.update(iterations or {})
    return {"random": None, "easy": {"seconds": None}, **{level: {"iterations": n} for level, n in counts.items()}}


# --- a worker: one Pi -------------------------------------------------------------------------

class _Stop(Exception):
    pass


def _count_iterations() -> list:
    """Count the search's iterations (the bench's wrapper around search._iterate; the bot is unchanged)."""
    counter = [0]
    real = search._iterate

    def counting(*args, **kwargs):
        counter[0] += 1
        return real(*args, **kwargs)

    search._iterate = counting
    return counter


def play(job: dict, counter: list) -> dict:
    """One complete game: `tested` in seat job['seat'], `below` in every other; per decision its times."""
    players, tested, below = job["players"], job["tested"], job["below"]
    state, _ = trias.new_game(players, job["seed"])
    rng = random.Random(job["seed"] * 10 + job["seat"])
    levels = [tested if s == job["seat"] else below for s in range(players)]
    budgets = job["budgets"]
    decisions = {level: {"wall": [], "cpu": [], "it": [], "turns": []} for level in set(levels)}
    fallbacks, started, cpu0 = 0, time.perf_counter(), time.process_time()
    turn_of = None  # (seat, turn) of the decisions summed into the level's last turn time
    while state.phase != "over":
        level = levels[state.current]
        counter[0] = 0
        t, c = time.perf_counter(), time.process_time()
        command = bots.choose(trias.view(state, state.current), level, budgets[level], rng)
        wall, cpu = time.perf_counter() - t, time.process_time() - c
        d = decisions[level]
        d["wall"].append(round(wall, 4))
        if state.phase in ("start", "drift", "actions"):  # a whole turn: what the table waits for (placements apart)
            if turn_of != (state.current, state.turn):
                turn_of = (state.current, state.turn)
                d["turns"].append(0.0)
            d["turns"][-1] = round(d["turns"][-1] + wall, 4)
        d["cpu"].append(round(cpu, 4))
        if level in ("medium", "hard"):
            d["it"].append(counter[0])
        if not trias.is_legal(state, command):  # as the table's seat does: a legal move at random
            fallbacks += 1
            command = random_action(state, rng)
        _, state = trias.handle(state, command)
    won = state.result["winners"]
    wall, cpu = time.perf_counter() - started, time.process_time() - cpu0
    return {"kind": "game", "cell": cell_name((players, tested, below)), "players": players, "tested": tested,
            "below": below, "game": job["game"], "seed": job["seed"], "seat": job["seat"], "winners": won,
            "score": (1 / len(won)) if job["seat"] in won else 0.0, "decisions": decisions, "fallbacks": fallbacks,
            "wall_s": round(wall, 2), "cpu_s": round(cpu, 2), "share": round(cpu / wall, 3) if wall else None,
            "budgets": budgets}


def speed_quota(quota_us: int, period_us: int, free_cpu: list) -> int:
    """The quota that buys a worker the work `quota_us` bought on the reference host (REFERENCE_CPU_S): scaled
    by how long the calibration loop's CPU time is here now (the median of `free_cpu`), so a slower host gives
    a proportionally larger share; at most the whole core (each group has one), at least the kernel's 1 ms."""
    factor = statistics.median(free_cpu) / REFERENCE_CPU_S
    return max(1000, min(period_us, round(quota_us * factor)))


def group_quota(pid: int) -> int | None:
    """The CPU quota (microseconds a period) of worker `pid`'s group now, or None without one."""
    v1, v2 = pi_budget.V1_CPU / f"terrabank-pi-{pid}" / "cpu.cfs_quota_us", pi_budget.V2 / f"terrabank-pi-{pid}" / "cpu.max"
    try:
        return int(v1.read_text()) if v1.exists() else int(v2.read_text().split()[0])
    except (OSError, ValueError):
        return None


def set_group_quota(pid: int, quota_us: int, period_us: int) -> None:
    """Give worker `pid`'s group a new quota (the parent follows the host's speed during a run)."""
    v1 = pi_budget.V1_CPU / f"terrabank-pi-{pid}"
    try:
        if v1.is_dir():
            (v1 / "cpu.cfs_quota_us").write_text(str(quota_us))
        else:
            (pi_budget.V2 / f"terrabank-pi-{pid}" / "cpu.max").write_text(f"{quota_us} {period_us}")
    except OSError:  # the worker ended meanwhile
        pass


def pi(core: int, quota: int, period: int, weight: int) -> Budget:
    """pi_budget's group, with `weight` times the usual scheduling weight: on a machine others load, the
    group then gets its quota (a Pi is not shared with other engineers' tests) and never more (the quota)."""
    budget = Budget(core, quota, period, protect=False)  # weight 1: as any process, as this bench always ran
    if weight != 1:
        if budget.kind.startswith("cgroup v2"):
            (budget.groups[0] / "cpu.weight").write_text(str(min(10_000, 100 * weight)))
        else:
            (budget.groups[0] / "cpu.shares").write_text(str(1024 * weight))
    return budget


def worker(index: int, core: int | None, quota: int, period: int, weight: int, jobs, results) -> None:
    """Make this worker's own Pi (a group of its own), move in, play games until told to stop."""
    def stop(signum, frame):
        raise _Stop()

    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the parent decides; it sends SIGTERM
    budget = None
    try:
        if core is not None:
            budget = pi(core, quota, period, weight)
            budget.admit(os.getpid())
        counter = _count_iterations()
        while True:
            job = jobs.get()
            if job is None:
                break
            quota_now = group_quota(os.getpid()) if budget is not None else None
            try:
                out = play(job, counter)
            except _Stop:
                raise
            except Exception:  # noqa: BLE001 - a bot's or the engine's failure is a finding, recorded
                out = {"kind": "error", "cell": cell_name((job["players"], job["tested"], job["below"])),
                       "game": job["game"], "traceback": traceback.format_exc()}
            out.update(worker=index, core=core, quota_us=quota_now)
            results.put(out)
    except _Stop:
        pass
    finally:
        if budget is not None:
            results.put({"kind": "worker", "worker": index, "core": core, "throttled": budget.throttled()})
            budget.remove()


# --- the run ----------------------------------------------------------------------------------

def jobs_for(cells: list, games: dict, mode: str, calibration: dict | None, first: int,
             seconds: dict | None = None, iterations: dict | None = None, lead2: float = 1.0,
             budgets: dict | None = None) -> list:
    """Every game of every cell, interleaved so that each cell advances at the pace of its target;
    the 2-player cells (the targets' n) done within the first `lead2` of the run."""
    out = []
    for cell in cells:
        players, tested, below = cell
        n = games[cell]
        blocks = max(1, math.ceil(n / players))
        pace = lead2 if players == 2 else 1.0
        for g in range(first, first + n):
            block = (g - first) // players
            out.append((pace * (block + 0.5) / blocks, CELLS.index(cell) if cell in CELLS else 99, g,
                        {"players": players, "tested": tested, "below": below, "game": g,
                         "seed": SEED_BASE + g // players, "seat": g % players,
                         "budgets": budgets_for(mode, players, calibration, seconds, iterations, budgets)}))
    out.sort(key=lambda t: t[:3])
    return [t[3] for t in out]


def calibration_sample(core: int, quota: int, period: int, weight: int) -> dict:
    """pi_budget's loop outside any group and in a group of the Pi budget on `core`."""
    free = pi_budget.calibrate(None)
    budget = pi(core, quota, period, weight)
    try:
        held = pi_budget.calibrate(budget)
    finally:
        budget.remove()
    return {"kind": "calibration", "at": dt.datetime.now().isoformat(timespec="seconds"), "core": core,
            "free_wall_s": round(free[0], 3), "free_cpu_s": round(free[1], 3), "held_wall_s": round(held[0], 3),
            "held_cpu_s": round(held[1], 3), "factor": round(held[0] / free[1], 2),
            "load": round(os.getloadavg()[0], 2)}


def quota_line(quota: int, args, free: list) -> str:
    """What the run set the workers' quota to, and why (printed, so a reader of the output sees it)."""
    if args.fixed_quota:
        return f"Pi quota fixed: {quota} us every {args.period} us ({quota / args.period:.0%} of a core)"
    return (f"Pi quota set: {quota} us every {args.period} us ({quota / args.period:.0%} of a core): the calibration "
            f"loop took {free} s of CPU here against {REFERENCE_CPU_S} s on the reference host, whose Pi was "
            f"{args.quota} us ({args.quota / args.period:.0%})")


def until_time(text: str | None, minutes: float | None) -> float | None:
    """The wall-clock moment (time.time()) the run stops."""
    ends = []
    if minutes is not None:
        ends.append(time.time() + 60 * minutes)
    if text:
        hour, minute = (int(x) for x in text.split(":"))
        now = dt.datetime.now()
        at = now.replace(hour=hour, minute=minute, second=0, microsecond=0)
        if at <= now:
            at += dt.timedelta(days=1)
        ends.append(at.timestamp())
    return min(ends) if ends else None


def run(args) -> None:
    cells = parse_cells(args.cells)
    games = {cell: (args.games4 if cell[0] >= 4 and args.games4 else args.games) for cell in cells}
    calibration = (json.loads(args.calibration.read_text())["calibration"]
                   if args.mode == "iterations" and not args.iterations else None)
    ends = until_time(args.until, args.minutes)
    log = args.log.open("a")
    lock = threading.Lock()

    def write(record: dict) -> None:
        with lock:
            log.write(json.dumps(record, separators=(",", ":")) + "\n")
            log.flush()

    with_pi = not args.no_pi
    quota, free = args.quota, []
    if with_pi and not args.fixed_quota:
        free = [round(pi_budget.calibrate(None)[1], 3) for _ in range(3)]
        quota = speed_quota(args.quota, args.period, free)
    header = {"kind": "run", "started": dt.datetime.now().isoformat(timespec="seconds"), **commit(),
              "mode": args.mode, "pi": with_pi, "quota_us": quota, "period_us": args.period, "weight": args.weight,
              "quota_follows": with_pi and not args.fixed_quota, "reference_quota_us": args.quota,
              "reference_cpu_s": REFERENCE_CPU_S, "free_cpu_s": free,
              "workers": args.workers, "lead2": args.lead2, "cells": [cell_name(c) for c in cells],
              "games": {cell_name(c): n for c, n in games.items()},
              "budgets": {str(p): budgets_for(args.mode, p, calibration, args.seconds, args.iterations, args.budget)
                          for p in sorted({c[0] for c in cells})},
              "ends": dt.datetime.fromtimestamp(ends).isoformat(timespec="seconds") if ends else None,
              "load": [round(x, 2) for x in os.getloadavg()], "cpus": os.cpu_count(), "python": sys.version.split()[0]}
    write(header)
    print(json.dumps(header), flush=True)
    if with_pi:
        print(quota_line(quota, args, free), flush=True)
        for core in (0, 1):
            sample = calibration_sample(core, quota, args.period, args.weight)
            write(dict(sample, phase="before"))
            print(json.dumps(sample), flush=True)

    ctx = mp.get_context("fork")
    jobs, results = ctx.Queue(), ctx.Queue()
    for job in jobs_for(cells, games, args.mode, calibration, args.first, args.seconds, args.iterations, args.lead2,
                        args.budget):
        jobs.put(job)
    procs = []
    for i in range(args.workers):
        core = (i % 2) if with_pi else None
        p = ctx.Process(target=worker, args=(i, core, quota, args.period, args.weight, jobs, results),
                        daemon=True)
        p.start()
        procs.append(p)
        jobs.put(None)  # one stop per worker, after every game

    stopping = threading.Event()

    def on_signal(signum, frame):
        stopping.set()

    signal.signal(signal.SIGTERM, on_signal)
    signal.signal(signal.SIGINT, on_signal)

    def calibrating():
        nonlocal quota
        turn = 0
        while not stopping.wait(60 * args.calibrate_every):
            try:
                sample = calibration_sample(turn % 2, quota, args.period, args.weight)
                write(dict(sample, phase="during", quota_us=quota))
                if not args.fixed_quota:  # the quota follows the host: the last three samples' CPU time
                    free.append(sample["free_cpu_s"])
                    new = speed_quota(args.quota, args.period, free[-3:])
                    if abs(new - quota) > 0.05 * quota:
                        quota = new
                        for p in procs:
                            set_group_quota(p.pid, quota, args.period)
                        write({"kind": "quota", "at": dt.datetime.now().isoformat(timespec="seconds"),
                               "quota_us": quota, "free_cpu_s": free[-3:]})
                        print(quota_line(quota, args, free[-3:]), flush=True)
            except Exception:  # noqa: BLE001 - a sample lost is not a run lost
                pass
            turn += 1

    if with_pi and args.calibrate_every > 0:
        threading.Thread(target=calibrating, daemon=True, name="calibration").start()

    done = 0
    while not stopping.is_set():
        if ends is not None and time.time() >= ends:
            write({"kind": "note", "at": dt.datetime.now().isoformat(timespec="seconds"),
                   "note": "stopped at --until/--minutes"})
            break
        try:
            record = results.get(timeout=1)
        except queue.Empty:
            if not any(p.is_alive() for p in procs):
                break
            continue
        write(record)
        if record["kind"] == "game":
            done += 1
            d = record["decisions"]
            slowest = {lv: max(x["wall"]) for lv, x in d.items() if x["wall"]}
            print(f"{record['cell']} game {record['game']} seat {record['seat']}: score {record['score']:.2f}, "
                  f"{record['wall_s']:.0f} s, share {record['share']}, slowest {slowest} (done {done})", flush=True)
        elif record["kind"] == "error":
            print(record["traceback"], flush=True)
    stopping.set()
    for p in procs:
        if p.is_alive():
            os.kill(p.pid, signal.SIGTERM)
    for p in procs:
        p.join(timeout=30)
    while True:  # what the workers said on their way out
        try:
            write(results.get(timeout=0.5))
        except queue.Empty:
            break
    for p in procs:  # a group whose worker died without removing it
        for base in (pi_budget.V1_CPU, pi_budget.V1_CPUSET, pi_budget.V2):
            group = base / f"terrabank-pi-{p.pid}"
            if group.is_dir():
                try:
                    group.rmdir()
                except OSError:
                    pass
    write({"kind": "end", "at": dt.datetime.now().isoformat(timespec="seconds"), "games": done,
           "load": [round(x, 2) for x in os.getloadavg()]})
    log.close()
    summary = report([args.log])
    print(summary["text"], flush=True)
    if args.json:
        args.json.write_text(json.dumps(summary["data"], indent=1) + "\n")


# --- the report -------------------------------------------------------------------------------

def pct(values: list, q: float):
    """Nearest-rank percentile (q in 0..100) of `values`; None when empty."""
    if not values:
        return None
    ordered = sorted(values)
    rank = max(1, math.ceil(q / 100 * len(ordered)))
    return ordered[rank - 1]


def _prefix(records: list) -> tuple:
    """The games of one cell whose numbers form an unbroken run from its first: (kept, dropped)."""
    by_game = {r["game"]: r for r in records}
    if not by_game:
        return [], 0
    g, kept = min(by_game), []
    while g in by_game:
        kept.append(by_game[g])
        g += 1
    return kept, len(by_game) - len(kept)


def report(logs: list) -> dict:
    """Per cell: n, rate, Wilson interval; per level: decision times; the calibration; the commit."""
    lines = []
    for path in logs:
        lines += [json.loads(x) for x in Path(path).read_text().splitlines() if x.strip()]
    runs = [r for r in lines if r["kind"] == "run"]
    games = [r for r in lines if r["kind"] == "game"]
    modes = sorted({r["mode"] for r in runs})
    commits = sorted({r["commit"] for r in runs})
    cells: dict = {}
    for r in games:  # a cell is its levels and their budgets: runs at other budgets are other cells
        cells.setdefault((r["cell"], json.dumps(r["budgets"], sort_keys=True)), []).append(r)
    order = [cell_name(c) for c in CELLS]
    rows, kept_games = [], []
    for name, _ in sorted(cells, key=lambda c: (order.index(c[0]) if c[0] in order else 99, c[1])):
        kept, dropped = _prefix(cells[name, _])
        kept_games += kept
        players, tested, below = name.split(":")
        players = int(players)
        n = len(kept)
        wins = sum(r["score"] for r in kept)
        low, high = wilson(wins, n)
        parity = 1 / players
        seats = [sum(1 for r in kept if r["seat"] == s) for s in range(players)]
        row = {"cell": name, "players": players, "tested": tested, "below": below, "n": n, "wins": wins,
               "rate": round(wins / n, 3) if n else None, "ci_low": round(low, 3), "ci_high": round(high, 3),
               "parity": round(parity, 3), "games_per_seat": seats, "dropped_after_gap": dropped,
               "wall_s_per_game": round(statistics.mean(r["wall_s"] for r in kept), 1) if kept else None,
               "cpu_s_per_game": round(statistics.mean(r["cpu_s"] for r in kept), 1) if kept else None,
               "share_median": pct([r["share"] for r in kept if r["share"]], 50),
               "fallbacks": sum(r["fallbacks"] for r in kept),
               "budget": kept[0]["budgets"][tested] if kept else None,
               "below_budget": kept[0]["budgets"][below] if kept else None}
        if players == 2:
            goal = TARGET_HARD_EASY if (tested, below) == ("hard", "easy") else TARGET_RATE
            row["target"] = goal
            row["met"] = ("n too small" if n < TARGET_N else
                          ("met" if row["rate"] >= goal else "not met"))
            row["lower_bound_clears"] = low >= goal
        else:
            row["vs_parity"] = round((wins / n) / parity, 2) if n else None
            row["above_parity"] = low > parity
        rows.append(row)
    levels: dict = {}
    for r in kept_games:
        for level, d in r["decisions"].items():
            for key in (level, f"{level}@{r['players']}p"):
                slot = levels.setdefault(key, {"wall": [], "cpu": [], "it": [], "turns": []})
                for k in ("wall", "cpu", "it", "turns"):
                    slot[k] += d.get(k, [])
    timing = {}
    for key in sorted(levels, key=lambda k: (["random", "easy", "medium", "hard"].index(k.split("@")[0]), k)):
        w, c, it, turns = levels[key]["wall"], levels[key]["cpu"], levels[key]["it"], levels[key]["turns"]
        level = key.split("@")[0]
        bound = BOUND_S.get(level, BOUND_S["any"])
        over = [(x, y) for x, y in zip(w, c) if x > bound]
        timing[key] = {"decisions": len(w), "median_s": pct(w, 50), "p99_s": pct(w, 99), "max_s": max(w),
                       "cpu_median_s": pct(c, 50), "bound_s": bound, "over_bound": len(over),
                       "over_bound_cpu_share": [round(y / x, 3) for x, y in over],
                       "iterations_median": pct(it, 50), "iterations_p1": pct(it, 1),
                       "turns": len(turns), "turn_median_s": pct(turns, 50), "turn_p99_s": pct(turns, 99),
                       "turn_max_s": max(turns) if turns else None, "turn_bound_s": TURN_BOUND_S.get(level),
                       "turns_over_bound": sum(1 for x in turns if x > TURN_BOUND_S.get(level, math.inf))}
    cal = [r for r in lines if r["kind"] == "calibration"]
    calibration = {"samples": len(cal),
                   "before": [r["factor"] for r in cal if r.get("phase") == "before"],
                   "during": [r["factor"] for r in cal if r.get("phase") == "during"],
                   "median": pct([r["factor"] for r in cal], 50),
                   "in_group_wall_per_cpu_median": pct([round(r["held_wall_s"] / r["held_cpu_s"], 2) for r in cal], 50),
                   "quotas_us": sorted({r["quota_us"] for r in games if r.get("quota_us")})}
    errors = [r for r in lines if r["kind"] == "error"]
    data = {"commits": commits, "modes": modes, "runs": runs, "cells": rows, "decisions": timing,
            "calibration": calibration, "errors": len(errors),
            "throttled": [r for r in lines if r["kind"] == "worker"]}
    data["text"] = text = render(data)
    return {"data": data, "text": text}


def label(level: str, budget: dict | None) -> str:
    """A level and its budget as the tables name them: "hard (1.5 s)", "medium (346 it.)", "easy (no bound)"."""
    if not budget:
        return level
    if budget.get("iterations"):
        return f"{level} ({budget['iterations']} it.)"
    if budget.get("turn"):
        search = "".join(f", {key} {budget[key]:g}" for key in ("explore", "drifts") if key in budget)
        return f"{level} ({budget['turn']:g} s a turn{', reuse' if budget.get('reuse') else ''}{search})"
    return f"{level} ({budget['seconds']:g} s)" if budget.get("seconds") else f"{level} (no bound)"


def render(data: dict) -> str:
    runs = data["runs"]
    out = [f"# Trias ladder at the Pi budget: commit {', '.join(data['commits'])}, mode {', '.join(data['modes'])}"]
    for r in runs:
        dirty = " (trias/ differs from the commit!)" if r.get("trias_changed") else ""
        follows = (f" (following the host's speed: the calibration loop took {r['free_cpu_s']} s of CPU against "
                   f"{r['reference_cpu_s']} s where the Pi was {r['reference_quota_us'] / 1000:g} ms)"
                   if r.get("quota_follows") else "")
        pi = (f"each its own group, {r['quota_us'] / 1000:g} ms of CPU every {r['period_us'] / 1000:g} ms{follows}, "
              f"weight x{r.get('weight', 1)}, cores 0/1 alternating") if r["pi"] else "no Pi budget"
        out.append(f"run {r['started']}{dirty}: {r['workers']} workers, {pi}; "
                   f"budgets {json.dumps(r['budgets'])}; load {r['load']}")
    cal = data["calibration"]
    out.append(f"calibration factor (loop's wall time in the group / its CPU time outside): before {cal['before']}, "
               f"during {cal['during']}, median {cal['median']}; in the group, wall / its own CPU: "
               f"{cal['in_group_wall_per_cpu_median']} (period / quota is the quota exactly; the factor differs from it by how "
               "much faster or slower the same loop ran on the CPU outside the group, beside other work)")
    if cal.get("quotas_us"):
        out.append(f"quotas the games were played at (us every period): {cal['quotas_us']}")
    out.append("")
    out.append("| players | tested (1 seat, rotated) | against | n | win rate | Wilson 95 % | lower bound |"
               " target / parity | verdict | s/game |")
    out.append("| ---: | --- | --- | ---: | ---: | --- | ---: | --- | --- | ---: |")
    for r in data["cells"]:
        rate = f"{100 * r['rate']:.1f} %" if r["rate"] is not None else "-"
        if r["players"] == 2:
            goal = f">= {100 * r['target']:.0f} %"
            verdict = r["met"] + ("" if r["met"] == "n too small" else
                                  (", lower bound clears it" if r["lower_bound_clears"] else ", lower bound below it"))
            if r["met"] == "n too small":
                verdict += f" ({'rate above' if (r['rate'] or 0) >= r['target'] else 'rate below'} target)"
        else:
            goal = f"parity {100 * r['parity']:.0f} %"
            verdict = (f"{r['vs_parity']}x parity, " + ("above parity (lower bound)" if r["above_parity"]
                                                          else "not shown above parity")) if r["n"] else "-"
        out.append(f"| {r['players']} | {label(r['tested'], r['budget'])} | {label(r['below'], r['below_budget'])} |"
                   f" {r['n']} | {rate} | "
                   f"{100 * r['ci_low']:.1f}-{100 * r['ci_high']:.1f} % | {100 * r['ci_low']:.1f} % | {goal} | "
                   f"{verdict} | {r['wall_s_per_game']} |")
    out.append("")
    out.append("| level | decisions | median | p99 | max | bound | over | CPU median | iterations median / p1 |")
    out.append("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |")
    for key, t in data["decisions"].items():
        its = f"{t['iterations_median']} / {t['iterations_p1']}" if t["iterations_median"] is not None else "-"
        out.append(f"| {key} | {t['decisions']} | {t['median_s']:.3f} s | {t['p99_s']:.3f} s | {t['max_s']:.3f} s | "
                   f"{t['bound_s']} s | {t['over_bound']} | {t['cpu_median_s']:.3f} s | {its} |")
    out.append("")
    out.append("| level | whole turns | median | p99 | max | bound | over |")
    out.append("| --- | ---: | ---: | ---: | ---: | ---: | ---: |")
    for key, t in data["decisions"].items():
        if t.get("turns"):
            out.append(f"| {key} | {t['turns']} | {t['turn_median_s']:.3f} s | {t['turn_p99_s']:.3f} s | "
                       f"{t['turn_max_s']:.3f} s | {t['turn_bound_s'] or '-'} s | {t['turns_over_bound']} |")
    extra = [f"{r['cell']}: {r['dropped_after_gap']} finished games after an unfinished one not counted"
             for r in data["cells"] if r["dropped_after_gap"]]
    extra += [f"{r['cell']}: {r['fallbacks']} illegal proposals replaced" for r in data["cells"] if r["fallbacks"]]
    for key, t in data["decisions"].items():
        if t["over_bound"] and "@" not in key:
            extra.append(f"{key}: {t['over_bound']} decisions over {t['bound_s']} s; their CPU share (CPU / wall): "
                         f"{sorted(t['over_bound_cpu_share'])} (the quota / period is the Pi's whole share; far below "
                         "it, the machine's other work held the group back)")
    if data["errors"]:
        extra.append(f"{data['errors']} games raised (see the log)")
    shares = ", ".join(f"{r['cell']} {r['share_median']}" for r in data["cells"])
    extra.append(f"CPU share a worker got during its games (median; quota / period = the full quota): {shares}")
    return "\n".join(out + [""] + extra) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("what", choices=["run", "report"])
    parser.add_argument("--cells", help="players:tested:below,... (default the six of the ladder)")
    parser.add_argument("--games", type=int, default=100, help="games per cell (the target's n for 2 players)")
    parser.add_argument("--games4", type=int, help="games per 4-player cell (default --games)")
    parser.add_argument("--lead2", type=float, default=1.0, help="hand out the 2-player cells' games within"
                        " this fraction of the run (0.8: they reach their n first if the run is cut short)")
    parser.add_argument("--first", type=int, default=0, help="first game number (extends a cell already run)")
    parser.add_argument("--workers", type=int, default=2, help="processes, each its own Pi (at most 4 here)")
    parser.add_argument("--mode", choices=["seconds", "iterations"], default="seconds")
    parser.add_argument("--seconds", help="level=s,... instead of DEFAULT_BUDGET (a pilot of other budgets)")
    parser.add_argument("--budget", action="append", help="level=JSON: that level's whole budget instead of"
                        " DEFAULT_BUDGET (a pilot of other search settings), e.g. hard='{\"turn\": 4.0, ...}'")
    parser.add_argument("--iterations", help="--mode iterations: level=n,... instead of the calibration file")
    parser.add_argument("--calibration", type=Path, default=ROOT / "bench" / "trias" / "trias_calibration.json",
                        help="--mode iterations: bench_trias_ladder.py calibrate's JSON")
    parser.add_argument("--no-pi", action="store_true", help="workers not held to a budget")
    parser.add_argument("--quota", type=int, default=2500, help="microseconds of CPU per period on the reference host"
                        " (default 2500, a quarter core); the run scales it by the host's measured speed")
    parser.add_argument("--fixed-quota", action="store_true", help="keep --quota as it is, whatever the host's speed")
    parser.add_argument("--period", type=int, default=10000, help="microseconds (default 10000)")
    parser.add_argument("--weight", type=int, default=256, help="the groups' scheduling weight, times the usual"
                        " (default 256, the kernel's highest: x8 lost to the benches run at autogroup nice -15,"
                        " which weigh about x28; 1: it competes as one process)")
    parser.add_argument("--calibrate-every", type=float, default=10, help="minutes between calibrations (0: none)")
    parser.add_argument("--until", help="HH:MM (local time): stop then, whatever n")
    parser.add_argument("--minutes", type=float, help="stop after this many minutes")
    parser.add_argument("--log", type=Path, action="append", help="JSON lines (run: appended as games finish)")
    parser.add_argument("--json", type=Path, help="the summary as JSON")
    args = parser.parse_args()
    if not args.log:
        parser.error("--log is required")
    if args.seconds:
        args.seconds = {k: float(v) for k, v in (part.split("=") for part in args.seconds.split(","))}
    if args.budget:
        args.budget = {level: json.loads(text) for level, text in (part.split("=", 1) for part in args.budget)}
    if args.iterations:
        args.iterations = {k: int(v) for k, v in (part.split("=") for part in args.iterations.split(","))}
    if args.what == "run":
        if len(args.log) != 1:
            parser.error("run takes one --log")
        args.log = args.log[0]
        run(args)
    else:
        summary = report(args.log)
        print(summary["text"])
        if args.json:
            args.json.write_text(json.dumps(summary["data"], indent=1) + "\n")


if __name__ == "__main__":
    main()
