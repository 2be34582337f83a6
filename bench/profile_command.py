"""Where a command's server time goes: the real app in-process, its Flask test client, cProfile.

Runs the same mix as bench_latency.py (harvests; inventory + build + reverse) on a
fresh game with a durable database, and prints the functions by cumulative time,
plus the share of the request spent in the Socket.IO broadcast (bank/web/push/live.py)
and in Bank.execute.

    .venv/bin/python bench/profile_command.py [--commands 300] [--top 30]
    .venv/bin/python bench/profile_command.py --split   # no profiler: execute / broadcast / rest
    .venv/bin/python bench/profile_command.py --late 0,20000,50000 [--games DIR]
        # issue 14: on games of 0, 20,000 and 50,000 journal rows (bench/late_game.py), which
        # state fields grow and what a command costs in Bank.execute, part by part

The fixed cost of a command over bench_latency's floor, part by part (session, body,
rules, hash chain, COMMIT...): bench/profile_overhead.py.
"""

from __future__ import annotations

import argparse
import cProfile
import io
import pstats
import tempfile
import time
from pathlib import Path

import harness  # noqa: F401  (puts the repo on sys.path)
from bench_latency import BUILDINGS, STOCK, TEAMS, harvest_command

from bank.game.config import load_config
from bank.web import create_app


def client_for(app):
    client = app.test_client()
    csrf = client.get("/api/csrf").get_json()["csrf"]
    reply = client.post("/api/login", json={"username": "bench", "password": "bench-password-1"},
                        headers={"X-CSRF-Token": csrf})
    csrf = reply.get_json()["csrf"]

    def post(key, **command):
        reply = client.post("/api/commands", json=command, headers={"X-CSRF-Token": csrf, "Idempotency-Key": key})
        assert reply.status_code == 200, reply.get_json()
        return reply.get_json()
    return post


def run(post, n: int, start: int = 0) -> None:
    for i in range(start, start + n):
        post(f"h{i}", **harvest_command(i))
        team, building = TEAMS[i % 4], BUILDINGS[i // 4 % len(BUILDINGS)]
        post(f"inv{i}", type="inventory", team=team, counted=STOCK, reason="bench")
        seq = post(f"b{i}", type="build", team=team, building=building)["seq"]
        post(f"rev{i}", type="reverse", seq=seq, reason="bench")


def split(app, post, n: int) -> None:
    """Without a profiler: per request, the time in Bank.execute, in the broadcast, and the rest."""
    from bank.web.push import live
    from bank.services.bank import Bank

    spent = {"Bank.execute": 0.0, "live.broadcast": 0.0}

    def timing(name, fn):
        def wrapper(*args, **kwargs):
            start = time.perf_counter()
            try:
                return fn(*args, **kwargs)
            finally:
                spent[name] += time.perf_counter() - start
        return wrapper

    real_execute, real_broadcast = Bank.execute, live.broadcast
    Bank.execute, live.broadcast = timing("Bank.execute", real_execute), timing("live.broadcast", real_broadcast)
    try:
        started = time.perf_counter()
        run(post, n, start=100000)
        wall = time.perf_counter() - started
    finally:
        Bank.execute, live.broadcast = real_execute, real_broadcast
    requests = n * 4
    rest = wall - sum(spent.values())
    print(f"{requests} requests through the Flask test client, no profiler: {wall / requests * 1000:.2f} ms each")
    for name, secs in [*spent.items(), ("web layer and test client (the rest)", rest)]:
        print(f"  {name:38} {secs / requests * 1000:6.3f} ms/request  {secs / wall * 100:5.1f} %")


def state_sizes(state) -> dict:
    """Per field of the state: (items, bytes of JSON); only the fields that hold anything."""
    import json

    sizes = {}
    for name, value in vars(state).items():
        if name.startswith("_"):
            continue
        items = len(value) if isinstance(value, (dict, list)) else 1
        sizes[name] = (items, len(json.dumps(value)))
    return sizes


PARTS = ("copy", "decide", "fingerprint", "journal insert", "checkpoint row", "snapshot", "reply encoding")


def late_parts(path: Path, commands: int) -> dict:
    """ms per command in each part of Bank.execute, on a copy of the game at `path`.

    The mix is bench_latency's (harvest; inventory + build + reverse), booked directly on
    Bank. Parts are timed by wrapping the functions that do them; "decide" is engine.handle
    less the copy made in it; "lock, transaction, COMMIT" is what execute spends outside them.
    """
    import json
    import shutil

    from bank.game import engine
    from bank.services import bank as service
    from bank.store.canonical_json import canonical_json
    from bank.game import turn
    from bank.store.journal import Journal
    from bank.services.bank import Bank

    spent = dict.fromkeys(PARTS + ("execute", "handle"), 0.0)

    def timing(owner, attr, name):
        real = getattr(owner, attr)

        def wrapper(*args, **kwargs):
            start = time.perf_counter()
            try:
                return real(*args, **kwargs)
            finally:
                spent[name] += time.perf_counter() - start
        setattr(owner, attr, wrapper)
        return owner, attr, real

    with tempfile.TemporaryDirectory(prefix="terrabank-late-parts-") as tmp:
        db = Path(tmp) / "game.db"
        shutil.copy(path, db)
        config = load_config(harness.CONFIG)
        bank = Bank.open(db, config)
        sizes = state_sizes(bank.state)
        ids = iter(range(10**9))

        def book(**command):
            result = bank.execute({"id": f"p{next(ids)}", **command})
            started = time.perf_counter()
            json.dumps({"seq": result.seq, "events": result.events, "duplicate": result.duplicate})
            spent["reply encoding"] += time.perf_counter() - started
            return {"seq": result.seq}

        if bank.state.clock["status"] != "running":
            book(type="start_clock" if bank.state.clock["status"] == "setup" else "resume")
        wrapped = [timing(Bank, "execute", "execute"), timing(engine, "handle", "handle"),
                   timing(turn.Turn, "__init__", "copy"), timing(service, "fingerprint", "fingerprint"),
                   timing(Journal, "append", "journal insert"), timing(Journal, "save_checkpoint", "checkpoint row"),
                   timing(Journal, "write_snapshot", "snapshot")]
        if hasattr(turn.Turn, "commit"):  # the copy-on-write turn materialises its state at the end
            wrapped.append(timing(turn.Turn, "commit", "copy"))
        try:
            run(lambda key, **command: book(**command), 20)  # warm up
            for key in spent:
                spent[key] = 0.0
            n = 0
            for i in range(commands):
                run(lambda key, **command: book(**command), 1, start=1000 + i)
                n += 4
            # A snapshot is written every SNAPSHOT_EVERY seqs: time one on this state by itself,
            # as the service encodes it (a copy with to_dict() before issue 14, the state's own data since).
            state = bank.state
            started = time.perf_counter()
            canonical_json(state.plain() if hasattr(state, "plain") else state.to_dict())
            snapshot_once = (time.perf_counter() - started) * 1000
        finally:
            for owner, attr, real in wrapped:
                setattr(owner, attr, real)
            bank.close()
    per = {k: v / n * 1000 for k, v in spent.items()}
    per["decide"] = per["handle"] - per["copy"]
    per["lock, transaction, COMMIT"] = per["execute"] - sum(per[k] for k in PARTS if k != "reply encoding")
    return {"sizes": sizes, "per": per, "commands": n, "snapshot_once": snapshot_once}


def late(rows_list: list, games: Path, commands: int) -> None:
    """Print, for each game size, the state's fields and the cost of each part of a command."""
    import sys

    from late_game import game_file

    results = {rows: late_parts(game_file(rows, games, log=sys.stderr), commands) for rows in rows_list}
    fields = sorted({f for r in results.values() for f in r["sizes"]})
    print("State fields, items / JSON bytes:\n")
    print("| field | " + " | ".join(f"{r:,} rows" for r in rows_list) + " |")
    print("| --- |" + " ---: |" * len(rows_list))
    for f in fields:
        cells = [results[r]["sizes"].get(f, (0, 0)) for r in rows_list]
        print(f"| {f} | " + " | ".join(f"{n:,} / {b:,}" for n, b in cells) + " |")
    print("\nBank.execute, ms per command (bench_latency's mix, "
          f"{results[rows_list[0]]['commands']} commands per game):\n")
    print("| part | " + " | ".join(f"{r:,} rows" for r in rows_list) + " |")
    print("| --- |" + " ---: |" * len(rows_list))
    for part in ("execute",) + PARTS[:-1] + ("lock, transaction, COMMIT", "reply encoding"):
        print(f"| {part} | " + " | ".join(f"{results[r]['per'][part]:.3f}" for r in rows_list) + " |")
    print("| one snapshot (its JSON), every 500 seqs | "
          + " | ".join(f"{results[r]['snapshot_once']:.2f}" for r in rows_list) + " |")
    print(f"\nload average: {Path('/proc/loadavg').read_text().split()[:3]}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--commands", type=int, default=300, help="iterations (4 commands each)")
    parser.add_argument("--top", type=int, default=30)
    parser.add_argument("--split", action="store_true", help="no profiler: time spent in execute, broadcast, the rest")
    parser.add_argument("--late", help="issue 14: game sizes in journal rows, e.g. 0,20000,50000")
    parser.add_argument("--games", type=Path, help="folder keeping the built games between runs (default: a temporary one)")
    args = parser.parse_args()
    if args.late:
        rows = [int(r) for r in args.late.split(",")]
        if args.games:
            late(rows, args.games, args.commands)
        else:
            with tempfile.TemporaryDirectory(prefix="terrabank-late-games-") as games:
                late(rows, Path(games), args.commands)
        return
    with tempfile.TemporaryDirectory(prefix="terrabank-profile-") as tmp:
        app = create_app({"DB": Path(tmp) / "p.db", "CONFIG": load_config(harness.CONFIG)})
        app.extensions["terrabank"].access.add_user("bench", "bench-password-1", "lead")
        post = client_for(app)
        post("start", type="start_clock")
        run(post, 20)  # warm up
        if args.split:
            split(app, post, args.commands)
            app.extensions["terrabank"].bank.close()
            return
        profiler = cProfile.Profile()
        started = time.perf_counter()
        profiler.enable()
        run(post, args.commands, start=1000)
        profiler.disable()
        wall = time.perf_counter() - started
        app.extensions["terrabank"].bank.close()
    requests = args.commands * 4
    out = io.StringIO()
    stats = pstats.Stats(profiler, stream=out)
    stats.sort_stats("cumulative").print_stats(args.top)
    print(out.getvalue())
    total = {f"{Path(k[0]).parent.name}/{Path(k[0]).name}:{k[2]}": v[3] for k, v in stats.stats.items()}
    print(f"{requests} requests, {wall / requests * 1000:.2f} ms each under the profiler")
    for name in ("live.py:broadcast", "bank.py:execute", "bank_clock.py:_decide_tick", "turn.py:__init__",
                 "state.py:copy", "rows.py:fingerprint", "sqlite_transaction.py:__exit__", "journal.py:append"):
        secs = next((v for k, v in total.items() if k.endswith(name)), 0.0)
        print(f"  {name:28} {secs / requests * 1000:6.3f} ms/request  {secs / wall * 100:5.1f} %")


if __name__ == "__main__":
    main()
