"""What the clock loop's sweep of the journal costs (bank/services/chain_watch.py sweep_rows), against a booking.

A row edited with its chain left keeps every head, so only the rows read and hashed can tell: each 5 s look of the
clock loop (bank/web/push/chain_alarm.py) reads the next SWEEP_ROWS rows. A game of ROWS entries (snapshots bound every
500) is booked on SQLite; then the CPU seconds of a sweep window and of one booked refill (the floor), medians of
REPEAT, and their ratio: what the sweep takes every 5 s, in bookings. One JSON line.

    .venv/bin/python bench/services/bench_sweep.py --rows 3000
"""

from __future__ import annotations

import argparse
import json
import statistics
import tempfile
import time
from pathlib import Path

from bank.game.config import load_config
from bank.services.bank import Bank
from bank.services.chain_watch import SWEEP_ROWS

ROOT = Path(__file__).resolve().parents[2]
REPEAT = 12


def run(rows: int) -> dict:
    with tempfile.TemporaryDirectory() as folder:
        bank = Bank.create(Path(folder) / "game.db", load_config(ROOT / "config.toml"))
        bank.execute({"id": "start", "type": "start_clock"})
        while bank.last_seq < rows:
            bank.execute({"id": f"r{bank.last_seq}", "type": "refill", "resource": "water", "amount": 1})
        sweeps, books = [], []
        for n in range(REPEAT):
            started = time.process_time()
            assert bank.sweep_rows() is None
            sweeps.append(time.process_time() - started)
            started = time.process_time()
            bank.execute({"id": f"b{n}", "type": "refill", "resource": "water", "amount": 1})
            books.append(time.process_time() - started)
        bank.close()
    sweep, book = statistics.median(sweeps), statistics.median(books)
    return {"rows": rows, "window": SWEEP_ROWS, "cpu_ms_per_window": round(sweep * 1000, 2),
            "cpu_ms_per_booking": round(book * 1000, 2), "ratio": round(sweep / book, 2)}


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=3000)
    print(json.dumps(run(parser.parse_args().rows)))
