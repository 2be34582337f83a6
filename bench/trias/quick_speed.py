"""Random 4-player games per CPU-second, the median of a few short runs (issue 32).

    .venv/bin/python bench/trias/quick_speed.py --games 40 --runs 3 --players 4

The same games as `bench/bench_trias.py speed` (seeds 0..games-1, the random player through
`trias.handle`), without the replay check, drift listing, playouts and decisions: a short
figure to compare two versions of the engine on a shared machine.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent.parent))

from bench.bench_trias import random_game  # noqa: E402
from trias.state import _GEOMETRIES  # noqa: E402


def one_run(players: int, games: int) -> float:
    """Games per CPU-second over seeds 0..games-1 (with the board cache emptied: a run never
    reuses the boards of the run before)."""
    _GEOMETRIES.clear()
    cpu = time.process_time()
    for seed in range(games):
        random_game(players, seed)
    return games / (time.process_time() - cpu)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=40)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--players", type=int, default=4)
    args = parser.parse_args()
    rates = [one_run(args.players, args.games) for _ in range(args.runs)]
    print(json.dumps({"players": args.players, "games": args.games, "runs": [round(r, 1) for r in rates],
                      "median_games_per_cpu_s": round(statistics.median(rates), 1)}))


if __name__ == "__main__":
    main()
