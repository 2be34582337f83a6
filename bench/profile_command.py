"""Where a command's server time goes: the real app in-process, its Flask test client, cProfile.

Runs the same mix as bench_latency.py (harvests; inventory + build + reverse) on a
fresh game with a durable database, and prints the functions by cumulative time,
plus the share of the request spent in the Socket.IO broadcast (bank/web/live.py)
and in Bank.execute.

    .venv/bin/python bench/profile_command.py [--commands 300] [--top 30]
    .venv/bin/python bench/profile_command.py --split   # no profiler: execute / broadcast / rest
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

from bank.config import load_config
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
    from bank.web import live
    from bank.service import Bank

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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--commands", type=int, default=300, help="iterations (4 commands each)")
    parser.add_argument("--top", type=int, default=30)
    parser.add_argument("--split", action="store_true", help="no profiler: time spent in execute, broadcast, the rest")
    args = parser.parse_args()
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
    for name in ("live.py:broadcast", "service.py:execute", "service.py:_decide_tick", "turn.py:__init__",
                 "state.py:copy", "service.py:fingerprint", "journal.py:transaction", "journal.py:append"):
        secs = next((v for k, v in total.items() if k.endswith(name)), 0.0)
        print(f"  {name:28} {secs / requests * 1000:6.3f} ms/request  {secs / wall * 100:5.1f} %")


if __name__ == "__main__":
    main()
