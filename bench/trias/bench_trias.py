"""Benchmark of the Trias engine and its bots.

    python bench/trias/bench_trias.py speed            # random games/s, drift listing, playouts/s, decision time
    python bench/trias/bench_trias.py speed --games 100 --players 4 --games-only   # the table's figure, short
    python bench/trias/bench_trias.py strength --games 200 --workers 2 --iterations 200
    python bench/trias/bench_trias.py strength --games 40 --workers 2 --hard-seconds 1.5 --pairings hard:easy
    python bench/trias/bench_trias.py strength --calibration bench/trias/trias_calibration.json   # real budgets, 2 players

--medium 20 and --iterations 80 are far below what the real budgets buy (on a quiet core medium's
0.4 s buys about 350 iterations at 2 players, hard's 1.5 s about 1,300): pass --calibration to
judge the levels as people meet them; bench_trias_ladder.py does 2-5 players.

Everything runs on one core unless --workers says otherwise; figures are
printed as JSON (and written with --json); docs/PERFORMANCE.md, "## Trias engine", quotes them.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import random
import sys
import time
from multiprocessing import Pool
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

import trias  # noqa: E402
from trias import bots  # noqa: E402
from trias.bots.randombot import random_action  # noqa: E402
from trias.bots.search import search_action  # noqa: E402
from trias.state import forget_boards  # noqa: E402


def random_game(players: int, seed: int) -> tuple:
    """One complete game between random players: (steps, final state); replay is checked."""
    state, journal = trias.new_game(players, seed)
    rng = random.Random(seed)
    steps = 0
    while state.phase != "over":
        events, state = trias.handle(state, random_action(state, rng))
        journal += events
        steps += 1
    return steps, state, journal


def games_per_second(players: int, games: int) -> dict:
    """Random complete games per second on this core, and a replay check of every tenth."""
    start, cpu = time.perf_counter(), time.process_time()
    steps, journals = 0, []
    for seed in range(games):
        n, state, journal = random_game(players, seed)
        steps += n
        assert state.result and state.result["winners"]
        journals.append((journal, state))
    took, cpu = time.perf_counter() - start, time.process_time() - cpu
    # Floor: folding the same journals, no decisions and no checks (and proof that replay is exact).
    floor = time.process_time()
    for journal, state in journals:
        assert trias.replay(journal) == state
    floor = time.process_time() - floor
    return {"players": players, "games": games, "seconds": round(took, 2), "games_per_s": round(games / took, 1),
            "games_per_cpu_s": round(games / cpu, 1), "commands_per_game": round(steps / games, 1),
            "events_per_game": round(sum(len(j) for j, _ in journals) / games, 1),
            "replay_floor_games_per_cpu_s": round(games / floor, 1), "ratio_to_floor": round(cpu / floor, 1)}


def mid_game(players: int, seed: int):
    """A position half-way through a random game (half the deck drawn), at a seat's phase 1."""
    state, _ = trias.new_game(players, seed)
    rng = random.Random(seed)
    half = len(state.deck) // 2
    while not (state.phase == "start" and len(state.deck) <= half):
        _, state = trias.handle(state, random_action(state, rng))
    return state


def drift_listing(players: int = 4, boards: int = 20) -> dict:
    """Time to list every legal drift on a mid-game board: cold (new board) and warm (cached)."""
    cold, warm, counts = [], [], []
    for seed in range(boards):
        state = mid_game(players, seed)
        forget_boards()
        state.geo = None
        t = time.perf_counter()
        drifts = trias.legal_drifts(state)
        cold.append(time.perf_counter() - t)
        t = time.perf_counter()
        trias.legal_drifts(state)
        warm.append(time.perf_counter() - t)
        counts.append(len(drifts))
    return {"players": players, "boards": boards, "drifts_mean": round(sum(counts) / boards, 1),
            "cold_ms_mean": round(1000 * sum(cold) / boards, 2), "cold_ms_max": round(1000 * max(cold), 2),
            "warm_ms_mean": round(1000 * sum(warm) / boards, 3)}


def playouts(players: int, positions: int = 5, iterations: int = 300) -> dict:
    """Search iterations (determinise, descend, expand, play out, judge) per second."""
    took = cpu = 0.0
    for seed in range(positions):
        state = mid_game(players, seed)
        v = trias.view(state, state.current)
        t, c = time.perf_counter(), time.process_time()
        search_action(v, random.Random(seed), iterations=iterations)
        took += time.perf_counter() - t
        cpu += time.process_time() - c
    return {"players": players, "positions": positions, "iterations": iterations,
            "playouts_per_s": round(positions * iterations / took), "playouts_per_cpu_s": round(positions * iterations / cpu)}


def decision_time(level: str = "hard", players: int = 2, positions: int = 10) -> dict:
    """Wall time of one decision at `level` with its default budget, over positions of all phases."""
    times, cpus = [], []
    for seed in range(positions):
        state = mid_game(players, seed)
        for _ in range(seed % 4):  # some decisions in phase 2 as well
            if state.phase == "over":
                break
            _, state = trias.handle(state, random_action(state, random.Random(seed)))
        t, c = time.perf_counter(), time.process_time()
        command = bots.choose(state, level, None, random.Random(seed))
        times.append(time.perf_counter() - t)
        cpus.append(time.process_time() - c)
        assert trias.is_legal(state, command)
    return {"level": level, "players": players, "decisions": positions,
            "mean_s": round(sum(times) / len(times), 3), "max_s": round(max(times), 3),
            "cpu_mean_s": round(sum(cpus) / len(cpus), 3)}


def wilson(wins: float, n: int, z: float = 1.96) -> tuple:
    """Wilson score interval for a win rate."""
    if n == 0:
        return (0.0, 0.0)
    p = wins / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return (max(0.0, centre - half), min(1.0, centre + half))


def play_pairing(job: tuple) -> dict:
    """One two-player game of `a` against `b`; seats alternate with the game number."""
    a, b, game, budgets = job
    state, _ = trias.new_game(2, 10_000 + game)
    seats = [a, b] if game % 2 == 0 else [b, a]
    rng = random.Random(game)
    times = {a: [], b: []}
    while state.phase != "over":
        level = seats[state.current]
        t = time.perf_counter()
        command = bots.choose(trias.view(state, state.current), level, budgets.get(level), rng)
        times[level].append(time.perf_counter() - t)
        _, state = trias.handle(state, command)
    won = state.result["winners"]
    return {"a": a, "b": b, "a_score": sum(1 / len(won) for s in won if seats[s] == a),
            "a_max_s": max(times[a] or [0]), "b_max_s": max(times[b] or [0])}


def strength(pairings: list, games: int, workers: int, budgets: dict, log: Path | None = None) -> list:
    """Win rates with Wilson 95 % intervals, pairing by pairing; a tie for first counts as a shared win."""
    rows = []
    with Pool(workers) as pool:
        for a, b in pairings:
            start = time.perf_counter()
            mine = pool.map(play_pairing, [(a, b, g, budgets) for g in range(games)], chunksize=1)
            score = sum(r["a_score"] for r in mine)
            low, high = wilson(score, len(mine))
            rows.append({"a": a, "b": b, "games": len(mine), "a_wins": score, "rate": round(score / len(mine), 3),
                         "ci_low": round(low, 3), "ci_high": round(high, 3),
                         "a_max_decision_s": round(max(r["a_max_s"] for r in mine), 3),
                         "seconds": round(time.perf_counter() - start)})
            if log:
                with log.open("a") as out:
                    out.write(json.dumps(rows[-1]) + "\n")
    return rows


def emit(out: dict, path: Path | None) -> None:
    """Print the figures as JSON, and write them to `path` when given."""
    text = json.dumps(out, indent=1)
    if path:
        path.write_text(text)
    print(text)


def speed_main(args) -> dict:
    out = {"load_average": [round(x, 2) for x in os.getloadavg()], "cpus": os.cpu_count()}
    players = [int(p) for p in args.players.split(",")]
    out["games"] = []
    for p in players:
        forget_boards()  # each player count starts with no board known, as in its own process
        out["games"].append(games_per_second(p, args.games))
    if args.games_only:
        out["load_average_after"] = [round(x, 2) for x in os.getloadavg()]
        return out
    out["drift_listing"] = drift_listing()
    out["playouts"] = [playouts(2), playouts(4)]
    out["decision"] = [decision_time("hard", 2), decision_time("hard", 4, positions=6)]
    out["load_average_after"] = [round(x, 2) for x in os.getloadavg()]
    return out


def strength_main(args) -> dict:
    budgets = {"medium": {"iterations": args.medium}, "hard": {"iterations": args.iterations}}
    if args.calibration:
        # The iterations each level's real time budget buys on a quiet core (bench_trias_ladder.py
        # calibrate), two players: a fixed 20 iterations would be 1/17 of what medium's 0.4 s buys.
        two = json.loads(args.calibration.read_text())["calibration"]["2"]
        budgets = {level: {"iterations": two[level]["iterations_mean"]} for level in ("medium", "hard")}
    if args.hard_seconds:
        budgets["hard"] = {"seconds": args.hard_seconds}
    pairings = [tuple(p.split(":")) for p in args.pairings.split(",")]
    start = time.perf_counter()
    rows = strength(pairings, args.games, args.workers, budgets, args.log)
    return {"budgets": budgets, "rows": rows, "seconds": round(time.perf_counter() - start)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("what", choices=["speed", "strength"])
    parser.add_argument("--games", type=int, default=200)
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument("--iterations", type=int, default=80, help="hard level's iterations in the strength table")
    parser.add_argument("--hard-seconds", type=float, help="give the hard level this time budget instead")
    parser.add_argument("--medium", type=int, default=20, help="medium level's iterations in the strength table")
    parser.add_argument("--calibration", type=Path, help="bench_trias_ladder.py calibrate's JSON: medium and hard"
                        " at the iterations their real time budgets buy (instead of --medium and --iterations)")
    parser.add_argument("--pairings", default="easy:random,hard:easy,medium:easy,hard:medium")
    parser.add_argument("--players", default="2,4,5", help="speed: the player counts of the random games")
    parser.add_argument("--games-only", action="store_true", help="speed: only the random games (a short run;"
                        " the target is the 4-player games_per_cpu_s)")
    parser.add_argument("--json", type=Path)
    parser.add_argument("--log", type=Path, help="append each pairing's row here as soon as it is done")
    parser.add_argument("--record", action="store_true", help="speed: keep the 4-player games per CPU-second as the "
                        "last measured (bench/results/13_trias.json) and make docs/PERFORMANCE.md's table again")
    args = parser.parse_args()
    out = speed_main(args) if args.what == "speed" else strength_main(args)
    emit(out, args.json)
    four = [g for g in out.get("games", []) if g.get("players") == 4]
    if args.record and four:
        sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
        import record  # bench/record.py
        row = {"figure": "Trias: random 4-player games per CPU-second", "value": four[0]["games_per_cpu_s"],
               "unit": "", "goal": ">=", "limit": 200}
        command = " ".join([".venv/bin/python", record.script(__file__), *(a for a in sys.argv[1:] if a != "--record")])
        measured = (f"{time.strftime('%Y-%m-%d')}, {four[0].get('games')} games, CPU time on one core, "
                    f"load {out['load_average'][0]:.0f}")
        print(record.record("13_trias", [row], command=command, measured=measured), file=sys.stderr)
        record.main_table()


if __name__ == "__main__":
    main()
