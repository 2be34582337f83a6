"""What opening a Trias game costs with its chain checked first (bank/services/journal_service.py `trusted`).

A game whose rows no longer match its chain is refused at open; the check reads the rows once more and hashes
each. GAMES games of four random computer seats are played to their end in a folder, then each is opened in a
fresh TriasGames (as a restarted server opens it at its first page) ROUNDS times with the check and without it,
alternately: the CPU seconds per open, both medians and their ratio (the floor is the open without the check, in
the same run), printed as one JSON line. SQLite only (PostgreSQL runs the same check on the same rows).

    .venv/bin/python bench/services/bench_trias_open.py --games 20 --rounds 5
"""

from __future__ import annotations

import argparse
import json
import statistics
import tempfile
import time
from pathlib import Path

from bank.services.trias_games import open_games

SEATS = [{"name": f"C{i}", "kind": "computer", "level": "random"} for i in range(4)]


def _played(folder: Path, games: int) -> tuple[list, int]:
    opened = open_games(folder / "terrabank.db")
    ids, rows = [], 0
    for n in range(games):
        game = opened.create(SEATS, seed=n)
        while game.state.phase != "over":
            seat, seq, command = game.choose_computer()
            game.apply_computer(seat, seq, command)
        ids.append(game.id)
        rows += game.last_seq
    opened.close()
    return ids, rows // games


def _open_all(folder: Path, ids: list, trusted: bool) -> float:
    games = open_games(folder / "terrabank.db")
    games.trusted = trusted
    started = time.process_time()
    for game_id in ids:
        assert games.get(game_id) is not None
    spent = time.process_time() - started
    games.close()
    return spent / len(ids)


def run(games: int, rounds: int) -> dict:
    with tempfile.TemporaryDirectory() as name:
        folder = Path(name)
        ids, rows = _played(folder, games)
        checked, floor = [], []
        for _ in range(rounds):
            floor.append(_open_all(folder, ids, trusted=False))
            checked.append(_open_all(folder, ids, trusted=True))
    a, b = statistics.median(checked), statistics.median(floor)
    return {"games": games, "rows_per_game": rows, "cpu_ms_per_open_checked": round(a * 1000, 2),
            "cpu_ms_per_open_unchecked": round(b * 1000, 2), "ratio": round(a / b, 3)}


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=20)
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    print(json.dumps(run(args.games, args.rounds)))
