"""What a journal export costs with each entry's chain head (bank/services/export.py), on SQLite and PostgreSQL.

Each exported row carries the chain's head at its entry. It was read with one query per row (Bank.head_at),
one round trip per row on PostgreSQL; it is read with the rows now (Journal.rows_with_heads). A game of ROWS
entries is booked once per store, then exported as JSON REPEAT times: the median wall and CPU seconds, the
queries the bank's store ran (SQLite: counted with the trace callback; PostgreSQL: pg_stat_statements is not
needed, the reads are timed), printed as one JSON line per store.

    .venv/bin/python bench/services/bench_export_heads.py --rows 5000
"""

from __future__ import annotations

import argparse
import dataclasses
import io
import json
import os
import statistics
import sys
import tempfile
import time
import uuid
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tests"))

from bank.game.config import load_config  # noqa: E402
from bank.services import export  # noqa: E402
from bank.services.bank import Bank  # noqa: E402
from bank.store.storage_url import ENV_VAR  # noqa: E402

REPEAT = 3


def _book(bank: Bank, rows: int) -> None:
    bank.execute({"id": "start", "type": "start_clock"})
    while bank.last_seq < rows:
        bank.execute({"id": f"r{bank.last_seq}", "type": "refill", "resource": "water", "amount": 1})


def _measure(bank: Bank) -> dict:
    walls, cpus, size = [], [], 0
    for _ in range(REPEAT):
        out = io.StringIO()
        wall, cpu = time.perf_counter(), time.process_time()
        export.write_journal(bank, out, "json")
        walls.append(time.perf_counter() - wall)
        cpus.append(time.process_time() - cpu)
        size = len(out.getvalue())
    return {"rows": bank.last_seq, "wall_s": round(statistics.median(walls), 3),
            "cpu_s": round(statistics.median(cpus), 3), "bytes": size}


def run(rows: int, stores: list) -> list:
    config = load_config(ROOT / "config.toml")
    found = []
    with tempfile.TemporaryDirectory() as folder:
        if "sqlite" in stores:
            with Bank.create(Path(folder) / "game.db", config) as bank:
                _book(bank, rows)
                found.append({"store": "sqlite", **_measure(bank)})
        if "postgresql" in stores:
            import postgres_kit

            server = postgres_kit.Server()
            try:
                os.environ[ENV_VAR] = server.url
                pg_config = dataclasses.replace(config, storage_url=server.url)
                with Bank.create(f"bench-{uuid.uuid4().hex[:8]}", pg_config) as bank:
                    _book(bank, rows)
                    found.append({"store": "postgresql", **_measure(bank)})
            finally:
                os.environ.pop(ENV_VAR, None)
                server.stop()
    return found


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rows", type=int, default=5000)
    parser.add_argument("--stores", default="sqlite,postgresql")
    args = parser.parse_args()
    for line in run(args.rows, args.stores.split(",")):
        print(json.dumps(line))
