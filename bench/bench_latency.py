"""Command latency through the HTTP API, against the floor of one durable SQLite insert.

Subject: a real `terrabank serve` (bench/harness.Server: SQLite WAL +
synchronous=FULL, ticker running), a facilitator posting `harvest` and `build`
commands to /api/commands over one keep-alive connection (harness.Api).

Third, for the record: the same `terrabank serve` with the Socket.IO broadcast
after each command switched off (bench/serve_quiet.py), to show its share.

Floor: bench/floor_server.py, a bare Flask endpoint doing one BEGIN IMMEDIATE /
INSERT / COMMIT of a row of about the same size with the same PRAGMAs, served by
the same stack (socketio.run on threaded Werkzeug) in its own process, talked to
by the same client. Floor and bank requests alternate (and swap order every
iteration), so the machine's drift hits both alike.

Builds need tokens and a team builds each building once: before each measured
build an `inventory` command gives the team the tokens, and after it a `reverse`
takes the building back (neither is measured). Harvests rotate teams, cards and
resources (config.toml has no minimum interval between harvests).

    .venv/bin/python bench/bench_latency.py            # 500 samples per kind
    .venv/bin/python bench/bench_latency.py --quick    # 100 samples per kind
"""

from __future__ import annotations

import argparse
import itertools
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from harness import Api, Server, free_port, machine, wait_for_port

HERE = Path(__file__).resolve().parent
TEAMS = ["blue", "yellow", "red", "green"]
HARVESTERS = ["harvester-1", "harvester-2"]
RESOURCES = ["water", "flora", "dioxygen", "fauna", "energy"]
# Buildings a team owning nothing may build (the others need a building or animals first).
BUILDINGS = ["power_plant_1", "purification_centre", "greenhouse", "reserve"]
STOCK = {r: 30 for r in RESOURCES}  # enough for any of BUILDINGS


class QuietServer(Server):
    """The same `terrabank serve`, with the broadcast after each command switched off (serve_quiet.py)."""

    def start(self) -> "QuietServer":
        log = open(self.log, "ab")
        self.proc = subprocess.Popen(
            [sys.executable, str(HERE / "serve_quiet.py"), "--config", self.config, "--db", str(self.db), "serve",
             "--host", "127.0.0.1", "--port", str(self.port)], stdout=log, stderr=subprocess.STDOUT)
        log.close()
        wait_for_port(self.port, proc=self.proc)
        return self


class Floor:
    """bench/floor_server.py in its own process."""

    def __init__(self, folder: Path, row_bytes: int):
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.log = open(folder / "floor.log", "ab")
        self.proc = subprocess.Popen([sys.executable, str(HERE / "floor_server.py"), "--db", str(folder / "floor.db"),
                                      "--port", str(self.port), "--row-bytes", str(row_bytes)],
                                     stdout=self.log, stderr=subprocess.STDOUT)
        wait_for_port(self.port, proc=self.proc)

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.terminate()
            self.proc.wait(timeout=10)
        self.log.close()


def timed(api: Api, key: str, command: dict) -> float:
    """Milliseconds for one POST /api/commands; the reply must be a success."""
    start = time.perf_counter()
    status, body = api.command(key, **command)
    ms = (time.perf_counter() - start) * 1000
    if status != 200:
        raise RuntimeError(f"{command['type']} refused: {status} {body}")
    return ms


def ok(api: Api, key: str, command: dict) -> dict:
    status, body = api.command(key, **command)
    if status != 200:
        raise RuntimeError(f"{command['type']} refused: {status} {body}")
    return body


def percentile(values: list, p: float) -> float:
    """Nearest-rank percentile."""
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(p / 100 * len(ordered) + 0.5) - 1))]


def harvest_command(i: int) -> dict:
    return {"type": "harvest", "team": TEAMS[i % 4], "card": HARVESTERS[i // 4 % 2], "resource": RESOURCES[i % 5]}


def measure(sides: dict, samples: int, warmup: int) -> dict:
    """{kind: {side: [ms...]}} for harvest and build; sides = {"floor": Api, "bank": Api, ...}.

    The order of the sides rotates every iteration so none always goes first.
    """
    times = {k: {side: [] for side in sides} for k in ("harvest", "build")}
    ids = itertools.count(1)
    names = list(sides)
    for i in range(warmup + samples):
        keep = i >= warmup
        order = names[i % len(names):] + names[:i % len(names)]
        cmd = harvest_command(i)
        for side in order:
            ms = timed(sides[side], f"h{next(ids)}", cmd)
            if keep:
                times["harvest"][side].append(ms)
        # Build: stock up (not measured), build (measured), take it back (not measured).
        team, building = TEAMS[i % 4], BUILDINGS[i // 4 % len(BUILDINGS)]
        cmd = {"type": "build", "team": team, "building": building}
        for side in order:
            api = sides[side]
            if side != "floor":
                ok(api, f"inv{next(ids)}", {"type": "inventory", "team": team, "counted": STOCK, "reason": "bench"})
            start = time.perf_counter()
            status, body = api.command(f"b{next(ids)}", **cmd)
            ms = (time.perf_counter() - start) * 1000
            if status != 200:
                raise RuntimeError(f"build refused: {status} {body}")
            if keep:
                times["build"][side].append(ms)
            if side != "floor":
                ok(api, f"rev{next(ids)}", {"type": "reverse", "seq": body["seq"], "reason": "bench: take the building back"})
    return times


def row_sizes(db: Path) -> dict:
    """Mean bytes of command + events per journal row type, to check the floor's row size."""
    conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    try:
        rows = conn.execute("SELECT type, AVG(LENGTH(command) + LENGTH(events)) FROM journal "
                            "WHERE type IN ('harvest', 'build') GROUP BY type").fetchall()
    finally:
        conn.close()
    return {t: round(n) for t, n in rows}


def report(times: dict, sizes: dict, row_bytes: int, argv: list) -> str:
    lines = ["| command | server | samples | p50 ms | p50 / floor | p99 ms | p99 / floor |",
             "| --- | --- | ---: | ---: | ---: | ---: | ---: |"]
    labels = {"floor": "floor: bare Flask + 1 durable insert", "bank": "**terrabank serve**",
              "quiet": "terrabank serve, broadcast off"}
    for kind, t in times.items():
        f50, f99 = statistics.median(t["floor"]), percentile(t["floor"], 99)
        for side, ms in t.items():
            p50, p99 = statistics.median(ms), percentile(ms, 99)
            bold = "**" if side == "bank" else ""
            lines.append(f"| {kind} | {labels[side]} | {len(ms)} | {p50:.2f} | {bold}{p50 / f50:.2f}x{bold} | "
                         f"{p99:.2f} | {bold}{p99 / f99:.2f}x{bold} |")
    command = " ".join(["bench/bench_latency.py", *argv])
    lines += ["", "Journal row (command + events) mean bytes: "
              + ", ".join(f"{k} {v}" for k, v in sorted(sizes.items())) + f"; floor row: about {row_bytes + 60} bytes.",
              "", "Target: terrabank serve's p50 and p99 within 1.5x of the floor.",
              "", f"Command: `.venv/bin/python {command}`",
              "", f"Machine: {machine()}"]
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description="p50/p99 latency of harvest and build against a durable-insert floor")
    parser.add_argument("--quick", action="store_true", help="100 samples per kind instead of 500")
    parser.add_argument("--samples", type=int, help="samples per kind (default 500, 100 with --quick)")
    parser.add_argument("--row-bytes", type=int, default=400, help="bytes of the floor's stand-in events column")
    parser.add_argument("--no-quiet", action="store_true", help="skip the third server (broadcast off)")
    args = parser.parse_args()
    samples = args.samples or (100 if args.quick else 500)
    warmup = 20
    with tempfile.TemporaryDirectory(prefix="terrabank-latency-") as tmp:
        folder = Path(tmp)
        floor = None
        with Server(folder / "bank").prepare().start() as server, \
                QuietServer(folder / "quiet").prepare().start() as quiet:
            try:
                floor = Floor(folder, args.row_bytes)
                sides = {"floor": Api(floor.url).login(), "bank": Api(server.url).login()}
                if not args.no_quiet:
                    sides["quiet"] = Api(quiet.url).login()
                for side, api in sides.items():
                    if side != "floor":
                        ok(api, "start", {"type": "start_clock"})
                started = time.monotonic()
                times = measure(sides, samples, warmup)
                elapsed = time.monotonic() - started
                for api in sides.values():
                    api.close()
            finally:
                if floor is not None:
                    floor.stop()
        sizes = row_sizes(server.db)
    print(report(times, sizes, args.row_bytes, sys.argv[1:]))
    print(f"\n(run took {elapsed:.0f} s)")


if __name__ == "__main__":
    main()
