"""A long game built fast, for the late-game benchmarks: N journal rows of a
realistic afternoon, booked directly on bank.services.bank.Bank (no HTTP, no server).

The mix is the soak's (bench_soak.pick_command: harvests, builds, free trades, fights and
commands the bank refuses) plus what a real afternoon also has and the soak lacks: game
events opened, given to and closed (about one every 150 rows, as in a real 50,000-row
game), and reversals of recent entries (about 2 % of the rows). The game is left
paused with no building standing from bench_latency.BUILDINGS, so the latency benchmark
can resume it and build each of them again.

The file is written with synchronous=OFF while it is built (minutes saved; nobody
pulls the plug on a benchmark's set-up) and checkpointed at the end.

    .venv/bin/python bench/late_game.py --rows 20000 --out /tmp/late.db   # builds one
"""

from __future__ import annotations

import argparse
import random
import time
from pathlib import Path

import harness  # noqa: F401  (puts the repo on sys.path)
from mix import BUILDINGS, pick_command

from bank.game.config import load_config
from bank.errors import BankError
from bank.services.bank import Bank

EVENT_EVERY = 150      # rows between two game events opened (a real game: 318 events in 50,000 rows)
EVENT_OPEN_ROWS = 60   # rows an event stays open before it is closed
REVERSE_SHARE = 0.02   # share of commands that undo a recent entry


class Builder:
    """Books commands on a Bank with fresh ids; counts what was refused."""

    def __init__(self, bank: Bank, seed: int):
        self.bank, self.rng = bank, random.Random(seed)
        self.n, self.refused, self.booked = 0, 0, []  # booked: (seq, type) of reversible rows
        self.teams = list(bank.config.teams)

    def do(self, command: dict):
        self.n += 1
        try:
            result = self.bank.execute({"id": f"late-{self.n}", **command})
        except BankError:
            self.refused += 1
            return None
        if command["type"] in ("harvest", "trade", "fight", "build", "contribute"):
            self.booked.append((result.seq, command["type"]))
            del self.booked[:-200]
        return result

    def step(self, open_event: list) -> None:
        """One command of the mix; events and reversals at their rates."""
        seq = self.bank.last_seq
        low = [r for r in self.bank.config.resources if self.bank.state.balance("reserve", r) < 40]
        if low:  # facilitators refill the bowls when they run low (R8)
            self.do({"type": "refill", "resource": low[0], "amount": 100})
        elif open_event and seq - open_event[1] >= EVENT_OPEN_ROWS:
            self.do({"type": "close_event", "event": open_event[0]})
            open_event.clear()
        elif not open_event and seq % EVENT_EVERY < 3:
            result = self.do({"type": "open_event", "title": f"Relief {seq}", "accepts": [],
                              "rewards": [{"points": 3}, {"jokers": 1}], "deadline_minutes": 120})
            if result is not None:
                open_event += [result.events[0]["event"], result.seq]
        elif open_event and self.rng.random() < 0.1:
            self.do({"type": "contribute", "event": open_event[0], "team": self.rng.choice(self.teams),
                     "tokens": {self.rng.choice(["water", "flora", "energy"]): 1}})
        elif self.booked and self.rng.random() < REVERSE_SHARE:
            seq, _ = self.booked.pop(self.rng.randrange(len(self.booked)))
            self.do({"type": "reverse", "seq": seq, "reason": "late game: a mistake"})
        else:
            self.do(pick_command(self.rng, self.teams)[1])

    def take_back_buildings(self) -> None:
        """Undo the builds still standing (newest first), so a benchmark can build them again."""
        for resource in self.bank.config.resources:  # the reserve pays the costs back
            self.do({"type": "refill", "resource": resource, "amount": 1000})
        standing = [seq for seq, kind in self.bank_builds() if kind == "build"]
        for seq in reversed(standing):
            self.do({"type": "reverse", "seq": seq, "reason": "late game: free the buildings"})

    def bank_builds(self) -> list:
        """(seq, 'build') of every build row not reversed, read from the journal."""
        undone = set(self.bank.state.reversed)
        return [(row["seq"], "build") for row in self.bank.journal_rows()
                if row["type"] == "build" and row["seq"] not in undone]


def build_game(path: Path, rows: int, config_path: str = harness.CONFIG, seed: int = 14,
               log=None) -> dict:
    """Create the game at `path` and book commands until it has `rows` journal rows.

    Returns what was built: rows, commands sent, refused, events, reversals, seconds.
    """
    config = load_config(config_path)
    started = time.monotonic()
    Bank.create(path, config).close()
    with Bank.open(path, config) as bank:
        bank._journal._conn.execute("PRAGMA synchronous=OFF")  # set-up only (see the module's note)
        builder = Builder(bank, seed)
        builder.do({"type": "start_clock"})
        open_event: list = []
        while bank.last_seq < rows:
            builder.step(open_event)
            if log and bank.last_seq % 5000 == 0:
                print(f"  {bank.last_seq} rows, {time.monotonic() - started:.0f} s", file=log, flush=True)
        if open_event:
            builder.do({"type": "close_event", "event": open_event[0]})
        builder.take_back_buildings()
        builder.do({"type": "pause"})
        bank._journal.checkpoint()
        state = bank.state
        return {"rows": bank.last_seq, "commands": builder.n, "refused": builder.refused,
                "events": len(state.events), "reversed": len(state.reversed),
                "buildings_left": {t: [b for b in state.buildings[t] if b in BUILDINGS] for t in state.buildings},
                "seconds": round(time.monotonic() - started, 1)}


def settle(path: Path, config_path: str = harness.CONFIG) -> None:
    """Let the game's cooldowns run out (R19), so a benchmark's harvests are not refused.

    Booked on the copy a benchmark serves: the clock is resumed and paused again that many
    game seconds later (rows dated a little ahead of the wall clock; nothing checks that).
    """
    config = load_config(config_path)
    with Bank.open(path, config) as bank:
        now = bank.now()
        state = bank.state
        if state.clock["status"] == "running":
            bank.execute({"id": "settle-pause", "type": "pause"}, now=now)
        left = max([until - bank.state.elapsed(now) for until in bank.state.cooldowns.values()] + [0])
        if left > 0:
            bank.execute({"id": "settle-resume", "type": "resume"}, now=now)
            bank.execute({"id": "settle-wait", "type": "pause"}, now=now + left + 1)


def game_file(rows: int, folder: Path, log=None) -> Path:
    """The game of `rows` rows in `folder`, built the first time it is asked for (minutes at 50,000).

    Keep `folder` between runs (--games) to compare code before and after a change on the same game.
    """
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"late-{rows}.db"
    if not path.exists():
        if log:
            print(f"building a game of {rows} rows in {path}", file=log, flush=True)
        building = folder / f"late-{rows}.building.db"
        for stale in folder.glob(building.name + "*"):
            stale.unlink()
        build_game(building, rows, log=log)
        building.rename(path)
    return path


def main() -> None:
    import sys

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, required=True)
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--seed", type=int, default=14)
    args = parser.parse_args()
    print(build_game(args.out, args.rows, seed=args.seed, log=sys.stderr))


if __name__ == "__main__":
    main()
