"""A small black-box search for the Trias heuristic's weights, by greedy self-play.

    python bench/trias/trias_tune.py --train 20 --heldout 100 --rounds 2 --workers 2 --json tune.json

The weights are heuristic.py's module constants. A candidate plays greedy ("easy") in one
seat against greedy with the default weights in the others, on fixed training boards
(seeds 1000+), each board twice with the seats swapped (2 players) so that the luck of
the deal cancels. The search is a coordinate search: each weight in turn is tried a step
up and a step down (multiplied by 1 +- step, or set to +-0.5 step when it is 0), and a
move is kept when the candidate's mean point margin over its opponents on the training
boards beats the incumbent's (the margin is less noisy than wins); the step halves after
a round without a move. The winner is then judged on held-out boards (seeds 50000+, never
seen in training): its win rate against the defaults with a Wilson 95 % interval. The
defaults change only if that interval lies above 50 %.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from multiprocessing import Pool
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import trias  # noqa: E402
from trias import bots  # noqa: E402
from trias.bots import heuristic  # noqa: E402
from bench_trias import emit, wilson  # noqa: E402

NAMES = ("PROJECTED", "ON_MAIN", "ON_MAIN_LATE", "ON_OTHER", "AT_RISK", "IN_STOCK", "LOCAL")
DEFAULTS = {name: getattr(heuristic, name) for name in NAMES}
TRAIN_SEED, HELDOUT_SEED = 1_000, 50_000


def _use(weights: dict) -> None:
    for name, value in weights.items():
        setattr(heuristic, name, value)


def game(job: tuple) -> dict:
    """One game: greedy with `weights` in seat `mine`, greedy with the defaults elsewhere."""
    weights, players, seed, mine = job
    state, _ = trias.new_game(players, seed)
    rng = random.Random(seed)
    try:
        while state.phase != "over":
            _use(weights if state.current == mine else DEFAULTS)
            _, state = trias.handle(state, bots.choose(state, "easy", {"seconds": None}, rng))
    finally:
        _use(DEFAULTS)
    won = state.result["winners"]
    best_other = max(p for s, p in enumerate(state.score) if s != mine)
    return {"win": 1 / len(won) if mine in won else 0.0, "margin": state.score[mine] - best_other}


def judge(pool, weights: dict, players: int, boards: int, first_seed: int) -> dict:
    """Mean margin and win rate of `weights` against the defaults, every board once per seat."""
    jobs = [(weights, players, first_seed + b, seat) for b in range(boards) for seat in range(players)]
    results = pool.map(game, jobs, chunksize=1)
    wins = sum(r["win"] for r in results)
    low, high = wilson(wins, len(results))
    return {"games": len(results), "margin": round(sum(r["margin"] for r in results) / len(results), 3),
            "wins": wins, "rate": round(wins / len(results), 3), "ci_low": round(low, 3), "ci_high": round(high, 3)}


def tune(pool, players: int, train: int, rounds: int, step: float, log) -> tuple:
    """Coordinate search from the defaults; (best weights, its training judgement, the trail)."""
    best = dict(DEFAULTS)
    best_score = judge(pool, best, players, train, TRAIN_SEED)
    trail = [{"weights": best, **best_score}]
    log(trail[-1])
    for _ in range(rounds):
        moved = False
        for name in NAMES:
            for sign in (1, -1):
                trial = dict(best)
                trial[name] = round(best[name] * (1 + sign * step) if best[name] else max(0.0, sign * step / 2), 4)
                if trial[name] == best[name]:
                    continue
                score = judge(pool, trial, players, train, TRAIN_SEED)
                trail.append({"weights": trial, **score, "kept": score["margin"] > best_score["margin"]})
                log(trail[-1])
                if score["margin"] > best_score["margin"]:
                    best, best_score, moved = trial, score, True
                    break
        if not moved:
            step /= 2
    return best, best_score, trail


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--players", type=int, default=2)
    parser.add_argument("--train", type=int, default=20, help="training boards (each played once per seat)")
    parser.add_argument("--heldout", type=int, default=100, help="held-out boards (each played once per seat)")
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--step", type=float, default=0.5)
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument("--weights", help="JSON weights to judge on held-out boards only (no search)")
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    started = time.perf_counter()

    def log(row):
        print(json.dumps(row), flush=True)

    out = {"players": args.players, "defaults": DEFAULTS}
    with Pool(args.workers) as pool:
        if args.weights:
            best = json.loads(args.weights)
        else:
            best, score, trail = tune(pool, args.players, args.train, args.rounds, args.step, log)
            out.update(train_boards=args.train, best_train=score, trail=trail)
        out["best"] = best
        out["heldout"] = judge(pool, best, args.players, args.heldout, HELDOUT_SEED)
    out["significant"] = out["heldout"]["ci_low"] > 0.5
    out["seconds"] = round(time.perf_counter() - started)
    emit(out, args.json)


if __name__ == "__main__":
    main()
