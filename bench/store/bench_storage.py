"""Command latency through Bank on the SQLite file and on PostgreSQL, each against its own floor.

Subject: Bank.execute (bank/services/bank.py) of `harvest` commands, rotating teams, cards and
resources, in this process (no HTTP: the store is what differs). On SQLite: the game file
(WAL, synchronous=FULL). On PostgreSQL: a game in a throwaway server started from Debian's
binaries (tests/postgres_kit.py: fsync on, synchronous_commit on, TCP on 127.0.0.1), or
the server named by --url.

Floor, per store: one bare durable insert of a row as large as a harvest's journal row
(its command and events JSON), in its own transaction, on the same store: for SQLite a
file beside the game with the same PRAGMAs (BEGIN IMMEDIATE / INSERT / COMMIT), for
PostgreSQL a table in the same database (INSERT in autocommit, synchronous_commit=on).
The four kinds take turns, in an order that rotates every iteration, so the machine's
drift hits all alike.

    .venv/bin/python bench/store/bench_storage.py            # 500 samples per kind
    .venv/bin/python bench/store/bench_storage.py --quick    # 100 samples per kind
"""

from __future__ import annotations

import argparse
import dataclasses
import itertools
import os
import sqlite3
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]

from bank.game.config import load_config  # noqa: E402
from bank.store.journal import canonical_json  # noqa: E402
from bank.services.bank import Bank  # noqa: E402

TEAMS = ["blue", "yellow", "red", "green"]
HARVESTERS = ["harvester-1", "harvester-2"]
RESOURCES = ["water", "flora", "dioxygen", "fauna", "energy"]


def harvests(bank: Bank, prefix: str):
    """An endless stream of timed harvests: yields the seconds each execute() took."""
    for i in itertools.count():
        command = {"id": f"{prefix}{i}", "type": "harvest", "team": TEAMS[i % 4],
                   "card": HARVESTERS[(i // 4) % 2], "resource": RESOURCES[(i // 8) % 5]}
        start = time.perf_counter()
        bank.execute(command)
        yield time.perf_counter() - start


def row_size(bank: Bank) -> int:
    """Bytes of a harvest's command and events as the journal stores them."""
    row = next(r for r in bank.journal_rows() if r["type"] == "harvest")
    return len(canonical_json(row["command"])) + len(canonical_json(row["events"]))


def sqlite_floor(path: Path, size: int):
    conn = sqlite3.connect(path, isolation_level=None)
    conn.execute("PRAGMA journal_mode=WAL")
    conn.execute("PRAGMA synchronous=FULL")
    conn.execute("CREATE TABLE rows(id INTEGER PRIMARY KEY, body TEXT NOT NULL)")
    body = "x" * size
    while True:
        start = time.perf_counter()
        conn.execute("BEGIN IMMEDIATE")
        conn.execute("INSERT INTO rows(body) VALUES (?)", (body,))
        conn.execute("COMMIT")
        yield time.perf_counter() - start


def postgres_floor(url: str, size: int):
    import psycopg
    conn = psycopg.connect(url, autocommit=True)
    conn.execute("SET synchronous_commit = on")
    conn.execute("CREATE TABLE IF NOT EXISTS bench_floor(id BIGSERIAL PRIMARY KEY, body TEXT NOT NULL)")
    body = "x" * size
    while True:
        start = time.perf_counter()
        conn.execute("INSERT INTO bench_floor(body) VALUES (%s)", (body,))
        yield time.perf_counter() - start


def pct(values: list[float], p: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(p / 100 * (len(ordered) - 1))))] * 1000


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="100 samples per kind instead of 500")
    parser.add_argument("--url", help="an existing PostgreSQL database (default: a throwaway server)")
    args = parser.parse_args()
    samples = 100 if args.quick else 500
    config = load_config(ROOT / "config.toml")
    server = None
    if args.url is None:
        import postgres_kit
        reason = postgres_kit.missing_reason()
        if reason:
            print(f"bench_storage: cannot run PostgreSQL here: {reason}", file=sys.stderr)
            return 2
        server = postgres_kit.Server()
        url = server.url
    else:
        url = args.url
    folder = Path(tempfile.mkdtemp(prefix="bench-storage-"))
    try:
        lite = Bank.create(folder / "bench.db", config)
        pg = Bank.create(f"bench-{os.getpid()}", dataclasses.replace(config, storage_url=url))
        for bank in (lite, pg):
            bank.execute({"id": "start", "type": "start_clock"})
            bank.execute({"id": "warm", "type": "harvest", "team": "blue", "card": "harvester-1",
                          "resource": "water"})
        size = row_size(lite)
        kinds = {"sqlite bank": harvests(lite, "h"), "sqlite floor": sqlite_floor(folder / "floor.db", size),
                 "postgres bank": harvests(pg, "h"), "postgres floor": postgres_floor(url, size)}
        for stream in kinds.values():  # warm up each: first connections, caches
            for _ in range(10):
                next(stream)
        times = {k: [] for k in kinds}
        names = list(kinds)
        for i in range(samples):
            shift = i % len(names)
            for name in names[shift:] + names[:shift]:
                times[name].append(next(kinds[name]))
        lite.close()
        pg.close()
    finally:
        if server is not None:
            server.stop()
    print(f"bench_storage: {samples} samples per kind, row of {size} bytes, load average "
          f"{os.getloadavg()[0]:.2f}, {os.cpu_count()} CPUs")
    print(f"{'kind':<16}{'p50 ms':>9}{'p99 ms':>9}{'mean ms':>9}")
    for name, values in times.items():
        print(f"{name:<16}{pct(values, 50):>9.2f}{pct(values, 99):>9.2f}{statistics.mean(values) * 1000:>9.2f}")
    for store in ("sqlite", "postgres"):
        bank, floor = times[f"{store} bank"], times[f"{store} floor"]
        print(f"{store}: bank/floor p50 {pct(bank, 50) / pct(floor, 50):.2f}x, p99 {pct(bank, 99) / pct(floor, 99):.2f}x")
    print(f"postgres/sqlite bank p50 {pct(times['postgres bank'], 50) / pct(times['sqlite bank'], 50):.2f}x, "
          f"p99 {pct(times['postgres bank'], 99) / pct(times['sqlite bank'], 99):.2f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
