"""What a round of the live pages costs the bank before it sends anything: making each audience's picture
(the public one, each team's) and diffing it against the last round's, one harvest between two rounds.

In one process, no server: a game of 60 harvests, then ROUNDS rounds each after one more harvest (the
teams in turn, as the tablets of cost_per_page.py book them). CPU time of this process, so run it on a
quiet machine or compare two commits in the same session (`git stash`, run, `git stash pop`, run).

    .venv/bin/python bench/web/push/round_pictures.py
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # bench/: the shared modules
from page_room import harvest

from bank.game.config import load_config
from bank.services.bank import Bank
from bank.web.field import payloads
from bank.web.push import delta

ROOT = Path(__file__).resolve().parents[3]


def pictures(bank, config) -> dict:
    seq, state = payloads.current(bank)
    now = bank.now()
    made = {"public": payloads.public_of(seq, state, config, now, bank=bank)}
    for team in config.teams:
        made[team] = payloads.team_of(seq, state, config, team, now, bank=bank)
    return made


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=300)
    args = parser.parse_args()
    config = load_config(str(ROOT / "config.toml"))
    with tempfile.TemporaryDirectory() as tmp:
        bank = Bank.create(Path(tmp) / "game.db", config)
        bank.execute({"id": "start", "type": "start_clock"})
        for i in range(60):
            bank.execute({"id": f"h{i}", **harvest(i)})
        last, made, diffed = pictures(bank, config), 0.0, 0.0
        for i in range(60, 60 + args.rounds):
            bank.execute({"id": f"h{i}", **harvest(i)})
            a = time.process_time()
            fresh = pictures(bank, config)
            b = time.process_time()
            for audience, picture in fresh.items():
                delta.diff(last[audience], picture, whole=False)
            made, diffed, last = made + b - a, diffed + time.process_time() - b, fresh
        bank.close()
    print(f"{args.rounds} rounds of one harvest, {len(config.teams)} teams: pictures {1000 * made / args.rounds:.2f} ms, "
          f"diffs {1000 * diffed / args.rounds:.2f} ms a round (CPU); load average {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
