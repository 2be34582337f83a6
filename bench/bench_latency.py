"""Command latency through the HTTP API, against the floor of one durable SQLite insert.

Subject: a real `terrabank serve` (bench/harness.Server: Gunicorn's guarded threaded
worker, SQLite WAL + synchronous=FULL, ticker running), a facilitator posting `harvest`
and `build` commands to /api/commands over one keep-alive connection (harness.Api).

Third, for the record: the same `terrabank serve` with the Socket.IO broadcast
after each command switched off (bench/serve_without.py broadcast), to show its share.

Floor: bench/floor_server.py, a bare Flask endpoint doing one BEGIN IMMEDIATE /
INSERT / COMMIT of a row of about the same size with the same PRAGMAs, served by
the same stack (bank/web/serving.run: Gunicorn gthread, guarded) in its own process,
talked to by the same client. Floor and bank requests alternate (and swap order every
iteration), so the machine's drift hits both alike.

Late in the game (issue 14): `--rows 0,20000,50000` measures on games of that many
journal rows, built before the servers start by bench/late_game.py (the soak's mix
with events and reversals, booked on bank.services.bank.Bank directly); each size gets its
own servers and its own floor, measured in the same rotation. `--games DIR` keeps the
built games between runs (a 50,000-row game takes minutes to build).

Builds need tokens and a team builds each building once: before each measured
build an `inventory` command gives the team the tokens, and after it a `reverse`
takes the building back (neither is measured). Harvests rotate teams, cards and
resources (config.toml has no minimum interval between harvests).

    .venv/bin/python bench/bench_latency.py            # 500 samples per kind, fresh game
    .venv/bin/python bench/bench_latency.py --quick    # 100 samples per kind
    .venv/bin/python bench/bench_latency.py --rows 0,20000,50000 --games /tmp/late-games
"""

from __future__ import annotations

import argparse
import itertools
import shutil
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from harness import PASSWORD, TERRABANK, USER, Api, Server, launch, machine

HERE = Path(__file__).resolve().parent
TEAMS = ["blue", "yellow", "red", "green"]
HARVESTERS = ["harvester-1", "harvester-2"]
RESOURCES = ["water", "flora", "dioxygen", "fauna", "energy"]
# Buildings a team owning nothing may build (the others need a building or animals first).
BUILDINGS = ["power_plant_1", "purification_centre", "greenhouse", "reserve"]
STOCK = {r: 30 for r in RESOURCES}  # enough for any of BUILDINGS


class Without(Server):
    """`terrabank serve` with the parts in `off` switched off (bench/serve_without.py)."""

    def __init__(self, folder: Path, off: str):
        super().__init__(folder)
        self.off = off

    def serve_command(self) -> list:
        return [sys.executable, str(HERE / "serve_without.py"), self.off, *super().serve_command()[1:]]


class QuietServer(Without):
    """The same `terrabank serve`, with the broadcast after each command switched off."""

    def __init__(self, folder: Path):
        super().__init__(folder, "broadcast")


class Floor:
    """bench/floor_server.py in its own process, on a port it chose."""

    def __init__(self, folder: Path, row_bytes: int):
        self.proc, self.port = launch([sys.executable, str(HERE / "floor_server.py"), "--db", str(folder / "floor.db"),
                                       "--row-bytes", str(row_bytes)], folder / "floor.log")
        self.url = f"http://127.0.0.1:{self.port}"  # launch returned once it answered HTTP

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.terminate()
            self.proc.wait(timeout=10)


def served_copy(game: Path, folder: Path, server_class=Server) -> Server:
    """A server on a copy of a built game, with this run's facilitator account."""
    from late_game import settle

    server = server_class(folder)
    folder.mkdir(parents=True)
    shutil.copy(game, server.db)
    settle(server.db)
    subprocess.run([TERRABANK, "--config", server.config, "--db", str(server.db), "user", USER, "--role", "lead",
                    "--password-stdin"], input=PASSWORD + "\n", text=True, check=True, capture_output=True)
    return server


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


def report_rows(times: dict, sizes: dict) -> list:
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
    lines += ["", "Journal row (command + events) mean bytes: "
              + ", ".join(f"{k} {v}" for k, v in sorted(sizes.items()))]
    return lines


def ratios(times: dict) -> dict:
    """{kind: (p50 ratio, p99 ratio)} of the bank against the floor."""
    return {kind: (statistics.median(t["bank"]) / statistics.median(t["floor"]),
                   percentile(t["bank"], 99) / percentile(t["floor"], 99)) for kind, t in times.items()}


def report(runs: dict, row_bytes: int, argv: list, target: float) -> str:
    """runs: {rows: (times, sizes, load average)}."""
    lines = []
    for rows, (times, sizes, load) in runs.items():
        if len(runs) > 1 or rows:
            lines += [f"### Game of {rows:,} journal rows (load average before: {load})", ""]
        lines += report_rows(times, sizes) + [""]
    if len(runs) > 1:
        lines += ["| game rows | harvest p50 / floor | harvest p99 / floor | build p50 / floor | build p99 / floor |",
                  "| ---: | ---: | ---: | ---: | ---: |"]
        for rows, (times, _, _) in runs.items():
            r = ratios(times)
            lines.append(f"| {rows:,} | {r['harvest'][0]:.2f}x | {r['harvest'][1]:.2f}x | "
                         f"{r['build'][0]:.2f}x | {r['build'][1]:.2f}x |")
        lines.append("")
    command = " ".join(["bench/bench_latency.py", *argv])
    lines += [f"Floor row: about {row_bytes + 60} bytes.",
              "", f"Target: terrabank serve's p50 and p99 within {target}x of the floor"
              + (" at every size." if len(runs) > 1 else "."),
              "", f"Command: `.venv/bin/python {command}`",
              "", f"Machine: {machine()}"]
    return "\n".join(lines)


def measure_size(rows: int, games: Path, folder: Path, samples: int, warmup: int, args) -> tuple:
    """(times, row sizes, load average) for one game size, with its own servers and floor."""
    from late_game import game_file

    folder.mkdir(parents=True)
    if rows:
        game = game_file(rows, games, log=sys.stderr)
        bank, quiet = served_copy(game, folder / "bank"), served_copy(game, folder / "quiet", QuietServer)
    else:
        bank, quiet = Server(folder / "bank").prepare(), QuietServer(folder / "quiet").prepare()
    floor = None
    load = " ".join(Path("/proc/loadavg").read_text().split()[:3])
    with bank.start() as server, (quiet.start() if not args.no_quiet else quiet) as quiet:
        try:
            floor = Floor(folder, args.row_bytes)
            sides = {"floor": Api(floor.url).login(), "bank": Api(server.url).login()}
            if not args.no_quiet:
                sides["quiet"] = Api(quiet.url).login()
            for side, api in sides.items():
                if side != "floor":
                    ok(api, "start", {"type": "resume" if rows else "start_clock"})
            times = measure(sides, samples, warmup)
            for api in sides.values():
                api.close()
        finally:
            if floor is not None:
                floor.stop()
    return times, row_sizes(server.db), load


def main() -> None:
    parser = argparse.ArgumentParser(description="p50/p99 latency of harvest and build against a durable-insert floor")
    parser.add_argument("--quick", action="store_true", help="100 samples per kind instead of 500")
    parser.add_argument("--samples", type=int, help="samples per kind (default 500, 100 with --quick)")
    parser.add_argument("--row-bytes", type=int, default=400, help="bytes of the floor's stand-in events column")
    parser.add_argument("--no-quiet", action="store_true", help="skip the third server (broadcast off)")
    parser.add_argument("--rows", default="0", help="game sizes in journal rows, e.g. 0,20000,50000 (issue 14)")
    parser.add_argument("--games", type=Path, help="folder keeping the built games between runs")
    args = parser.parse_args()
    samples = args.samples or (100 if args.quick else 500)
    sizes = [int(r) for r in args.rows.split(",")]
    target = 1.2 if sizes != [0] else 1.5
    started = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="terrabank-latency-") as tmp:
        games = args.games or Path(tmp) / "games"
        runs = {rows: measure_size(rows, games, Path(tmp) / f"rows-{rows}", samples, 20, args) for rows in sizes}
    print(report(runs, args.row_bytes, sys.argv[1:], target))
    print(f"\n(run took {time.monotonic() - started:.0f} s)")


if __name__ == "__main__":
    main()
