"""The ladder of Trias opponents at 2-5 players: each level in one seat against the level below.

    # 1. How many search iterations each level's real time budget buys, per player count
    python bench/trias/bench_trias_ladder.py calibrate --json bench/trias/trias_calibration.json
    # 2. The tables (full run: 200 games a cell; see "full run" in the output for its CPU-hours)
    python bench/trias/bench_trias_ladder.py ladder --calibration bench/trias/trias_calibration.json \
        --games 200 --workers 8 --json ladder.json --markdown ladder.md

A full run (16 cells: the three rungs and hard against greedy, at 2-5 players, 200 games each)
needs about 50 CPU-hours at the calibrated budgets (hard's cells are nearly 90 % of it: 80 CPU-s
a game measured for hard against medium at 2 players, up to 150 at 3-5): some 6 hours on 8 free
cores. On the 2-core machine shared by seven engineers
where the figures in docs/PERFORMANCE.md were taken, cells were capped with --minutes.

Seats rotate: game g puts the tested level in seat g mod players, the level below in every
other seat, on the board dealt by seed 20000 + g (every cell plays the same boards). A shared
first place counts as a shared win; parity is 1 / players. Intervals are Wilson 95 %.

Budgets. A time budget measures the machine as much as the bot: on a loaded machine 1.5 s
buys a fraction of the iterations it buys on a quiet core. So the search levels play with
iteration budgets calibrated to their real time budgets (DEFAULT_BUDGET): `calibrate` runs
the search with its own clock replaced by this process's CPU clock (what a quiet core
gives), with the real budget in seconds, at positions along greedy games, and counts the
iterations. Greedy ("easy") plays without its 1.0 s bound: `calibrate` reports its longest
decision in CPU time, well under 1 s, so on a quiet core the bound never cuts it short.
Without --calibration the search levels play with their real time budgets (fine on a machine
with a core per worker). `--minutes` caps each cell's wall time: the games finished in order before the cap are
kept (a prefix of the seeds, never the quickest games), so n is honest but may be short.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import sys
import time
from multiprocessing import Pool
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import trias  # noqa: E402
from trias import bots  # noqa: E402
from trias.bots import DEFAULT_BUDGET, greedy, search  # noqa: E402
from bench_trias import emit, wilson  # noqa: E402

RUNGS = (("easy", "random"), ("medium", "easy"), ("hard", "medium"))
GOALS = (("hard", "easy"),)  # hard against three greedy as well
SEED_BASE = 20_000


class _CpuClock:
    """Stands in for the time module inside the bots: their deadlines run on this process's CPU time."""

    perf_counter = staticmethod(time.process_time)


def cpu_clocked():
    """Make the bots' time budgets count CPU seconds of this process (a quiet core's seconds)."""
    search.time = _CpuClock
    greedy.time = _CpuClock


def _positions(players: int, games: int, every: int) -> list:
    """Decision points along greedy self-play games (where a search level would think)."""
    found = []
    for seed in range(games):
        state, _ = trias.new_game(players, 9_000 + seed)
        rng = random.Random(seed)
        step = 0
        while state.phase != "over":
            if step % every == 0 and state.phase in ("start", "actions", "drift"):
                found.append(state)
            _, state = trias.handle(state, bots.choose(state, "easy", {"seconds": None}, rng))
            step += 1
    return found


def calibrate(players: int, games: int = 2, every: int = 7) -> dict:
    """Iterations the search levels complete in their real budgets of CPU time; greedy's longest decision."""
    cpu_clocked()
    counted = [0]
    real_iterate = search._iterate

    def counting(*args, **kwargs):
        counted[0] += 1
        return real_iterate(*args, **kwargs)

    search._iterate = counting
    out = {"players": players}
    try:
        positions = _positions(players, games, every)
        out["positions"] = len(positions)
        for level in ("medium", "hard"):
            counts = []
            for i, state in enumerate(positions):
                counted[0] = 0
                bots.choose(state, level, DEFAULT_BUDGET[level], random.Random(i))
                counts.append(counted[0])
            out[level] = {"seconds": DEFAULT_BUDGET[level]["seconds"], "iterations_mean": round(statistics.mean(counts)),
                          "iterations_median": round(statistics.median(counts)), "iterations_min": min(counts)}
        longest = 0.0
        for i, state in enumerate(positions):
            started = time.process_time()
            bots.choose(state, "easy", {"seconds": None}, random.Random(i))
            longest = max(longest, time.process_time() - started)
        out["easy"] = {"longest_decision_cpu_s": round(longest, 3)}
    finally:
        search._iterate = real_iterate
    return out


def play(job: tuple) -> dict:
    """One game: `tested` in seat game mod players, `below` in the others."""
    tested, below, players, game, budgets = job
    state, _ = trias.new_game(players, SEED_BASE + game)
    mine = game % players
    rng = random.Random(SEED_BASE + game)
    longest, cpu = 0.0, time.process_time()
    while state.phase != "over":
        level = tested if state.current == mine else below
        started = time.process_time()
        command = bots.choose(trias.view(state, state.current), level, budgets[players].get(level), rng)
        if level == tested:
            longest = max(longest, time.process_time() - started)
        _, state = trias.handle(state, command)
    won = state.result["winners"]
    return {"score": 1 / len(won) if mine in won else 0.0, "longest_cpu_s": longest,
            "cpu_s": time.process_time() - cpu}


def budgets_from(calibration: dict | None, players_list: list) -> dict:
    """Per player count, each level's budget for `bots.choose`: calibrated iterations, or none for greedy."""
    out = {}
    for players in players_list:
        row = (calibration or {}).get(str(players)) or (calibration or {}).get(players)
        levels = {"random": None, "easy": {"seconds": None}}
        for level in ("medium", "hard"):
            levels[level] = {"iterations": row[level]["iterations_mean"]} if row else dict(DEFAULT_BUDGET[level])
        out[players] = levels
    return out


def cell(pool, tested: str, below: str, players: int, games: int, budgets: dict, minutes: float | None,
         first: int = 0) -> dict:
    """One cell of the table: as many of `games` (from game `first`) as finish, in seed order, within `minutes`."""
    started = time.perf_counter()
    results = []
    jobs = [(tested, below, players, g, budgets) for g in range(first, first + games)]
    for result in pool.imap(play, jobs, chunksize=1):
        results.append(result)
        if minutes is not None and time.perf_counter() - started > 60 * minutes:
            break
    n = len(results)
    score = sum(r["score"] for r in results)
    low, high = wilson(score, n)
    cpu_per_game = sum(r["cpu_s"] for r in results) / max(n, 1)
    return {"players": players, "tested": tested, "below": below, "budget": budgets[players].get(tested),
            "below_budget": budgets[players].get(below), "games": n, "wins": score,
            "rate": round(score / n, 3) if n else None, "ci_low": round(low, 3), "ci_high": round(high, 3),
            "parity": round(1 / players, 3), "first_game": first, "cpu_s_per_game": round(cpu_per_game, 1),
            "longest_decision_cpu_s": round(max((r["longest_cpu_s"] for r in results), default=0), 3),
            "wall_s": round(time.perf_counter() - started)}


def merged(rows: list) -> list:
    """Rows of one cell (same players, levels and budgets; runs over further games) as one row."""
    cells: dict = {}
    for r in rows:
        key = (r["players"], r["tested"], r["below"], json.dumps(r["budget"]), json.dumps(r["below_budget"]))
        if key not in cells:
            cells[key] = dict(r, cpu=r["cpu_s_per_game"] * r["games"])
            continue
        c = cells[key]
        c["games"] += r["games"]
        c["wins"] += r["wins"]
        c["cpu"] += r["cpu_s_per_game"] * r["games"]
        c["wall_s"] += r["wall_s"]
        c["longest_decision_cpu_s"] = max(c["longest_decision_cpu_s"], r["longest_decision_cpu_s"])
    out = []
    for c in cells.values():
        n = c["games"]
        low, high = wilson(c["wins"], n)
        c.update(rate=round(c["wins"] / n, 3) if n else None, ci_low=round(low, 3), ci_high=round(high, 3),
                 cpu_s_per_game=round(c.pop("cpu") / max(n, 1), 1))
        c.pop("first_game", None)
        out.append(c)
    return out


def markdown(rows: list) -> str:
    """The rows as the table docs/PERFORMANCE.md quotes."""
    def budget(level, b):
        if b and b.get("iterations"):
            return f"{level} ({b['iterations']} it.)"
        return {"easy": "easy (greedy)"}.get(level, level)

    lines = ["| players | level (one seat, rotated) | against (other seats) | games | win rate | 95 % CI | parity |"
             " CPU s/game |", "| ---: | --- | --- | ---: | ---: | --- | ---: | ---: |"]
    for r in rows:
        rate = f"{100 * r['rate']:.1f} %" if r["rate"] is not None else "-"
        lines.append(f"| {r['players']} | {budget(r['tested'], r['budget'])} | {budget(r['below'], r['below_budget'])} |"
                     f" {r['games']} | {rate} | {100 * r['ci_low']:.1f}-{100 * r['ci_high']:.1f} % |"
                     f" {100 * r['parity']:.0f} % | {r['cpu_s_per_game']} |")
    return "\n".join(lines) + "\n"


def full_run(rows: list, games: int = 200) -> dict:
    """CPU-hours a full table (`games` per cell) needs, from the CPU seconds per game measured here."""
    hours = sum(r["cpu_s_per_game"] * games for r in rows if r["games"]) / 3600
    return {"games_per_cell": games, "cpu_hours": round(hours, 1)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("what", choices=["calibrate", "ladder", "report"],
                        help="report: the table and full-run estimate of the cells appended to --log")
    parser.add_argument("--players", default="2,3,4,5")
    parser.add_argument("--games", type=int, default=200, help="games a cell (ladder); greedy games to sample (calibrate)")
    parser.add_argument("--every", type=int, default=7, help="calibrate: every n-th decision of those games")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--calibration", type=Path, help="calibrate's JSON: iteration budgets per player count")
    parser.add_argument("--cells", help="tested:below pairs, default the ladder's rungs and hard:easy")
    parser.add_argument("--first", type=int, default=0, help="first game number: extends a cell already run"
                        " (report merges the log's rows of the same cell and budgets)")
    parser.add_argument("--minutes", type=float, help="cap on each cell's wall time")
    parser.add_argument("--json", type=Path)
    parser.add_argument("--markdown", type=Path)
    parser.add_argument("--log", type=Path, help="append each cell as soon as it is done")
    args = parser.parse_args()
    players_list = [int(p) for p in args.players.split(",")]
    out = {"load_average": [round(x, 2) for x in os.getloadavg()], "cpus": os.cpu_count()}
    if args.what == "calibrate":
        out["calibration"] = {}
        for players in players_list:
            out["calibration"][str(players)] = calibrate(players, args.games, args.every)
            print(json.dumps(out["calibration"][str(players)]), flush=True)
    elif args.what == "report":
        rows = merged([json.loads(line) for line in args.log.read_text().splitlines() if line.strip()])
        order = list(RUNGS + GOALS)
        rows.sort(key=lambda r: (r["players"], order.index((r["tested"], r["below"]))
                                 if (r["tested"], r["below"]) in order else len(order)))
        out.update(rows=rows, full_run=full_run(rows), markdown=markdown(rows))
        if args.markdown:
            args.markdown.write_text(out["markdown"])
    else:
        calibration = json.loads(args.calibration.read_text())["calibration"] if args.calibration else None
        budgets = budgets_from(calibration, players_list)
        pairs = [tuple(c.split(":")) for c in args.cells.split(",")] if args.cells else list(RUNGS + GOALS)
        rows = []
        for players in players_list:
            for tested, below in pairs:
                with Pool(args.workers) as pool:  # one pool a cell: a capped cell's queued games die with it
                    rows.append(cell(pool, tested, below, players, args.games, budgets, args.minutes, args.first))
                    print(json.dumps(rows[-1]), flush=True)
                    if args.log:
                        with args.log.open("a") as log:
                            log.write(json.dumps(rows[-1]) + "\n")
        out.update(rows=rows, full_run=full_run(rows))
        out["markdown"] = markdown(rows)
        if args.markdown:
            args.markdown.write_text(out["markdown"])
    out["load_average_after"] = [round(x, 2) for x in os.getloadavg()]
    emit(out, args.json)


if __name__ == "__main__":
    main()
