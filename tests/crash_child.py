"""Child process of test_crash: executes commands until killed, printing ACK <id> after each.

Usage: python crash_child.py DB PREFIX. Creates the game at DB if missing, starts
the clock (idempotent), then loops over harvests, awards and refills across teams.
"""

from __future__ import annotations

import itertools
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # run as a plain script: find the bank package

from bank.services import bank as service  # noqa: E402
from bank.game.config import load_config  # noqa: E402
from bank.services.bank import Bank  # noqa: E402

RESOURCES = ("water", "flora", "dioxygen", "fauna", "energy")
MAX_COMMANDS = 5_000  # stop by itself if the parent never kills it


def commands(config, prefix: str):
    """An endless cycle of simple valid commands, each with a new id."""
    teams = list(config.teams)
    for i in itertools.count():
        team, cid = teams[i % len(teams)], f"{prefix}-{i}"
        if i % 7 == 3:
            yield {"id": cid, "type": "award", "team": team, "points": 1, "reason": "crash test"}
        elif i % 11 == 5:
            yield {"id": cid, "type": "refill", "resource": RESOURCES[i % 5], "amount": 3}
        else:
            yield {"id": cid, "type": "harvest", "team": team, "card": f"harvester-{i % 2 + 1}",
                   "resource": RESOURCES[i % 5]}


def main(db: str, prefix: str) -> None:
    """Run commands on the game at `db` until killed, acknowledging each one."""
    # Snapshots far more often than in play, so that kills also hit snapshot writes.
    service.SNAPSHOT_EVERY = 25
    config = load_config(ROOT / "config.toml")
    bank = Bank.open(db, config) if Path(db).exists() else Bank.create(db, config)
    bank.execute({"id": "start", "type": "start_clock"})
    for command in itertools.islice(commands(config, prefix), MAX_COMMANDS):
        bank.execute(command)
        # Only after execute returned (committed) may the parent count on it.
        print(f"ACK {command['id']}", flush=True)
    bank.close()


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
