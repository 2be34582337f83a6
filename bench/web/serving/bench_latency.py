"""Command latency through the HTTP API against two floors on the same stack, in a room with no page and
in one with 200 live pages.

Three servers, always the same three, take turns in a fixed rotation (the order shifts by one every
iteration, so none always goes first), each on the same stack (bank/web/serving.run: Gunicorn's guarded
threaded worker with the bank's limits) in its own process, each talked to by the same client (harness.Api,
one keep-alive connection, a facilitator logged in):

- **bank**: a real `terrabank serve` (SQLite WAL + synchronous=FULL, ticker running);
- **authenticated floor** (bench/auth_floor_server.py): the least a server must do for a logged-in
  facilitator's command: signed session cookie, the session row with idle expiry, CSRF compared in
  constant time, BEGIN IMMEDIATE / INSERT / COMMIT. Every ratio the docs give is against it;
- **anonymous floor** (bench/floor_server.py): one durable insert, nobody checked; the second line.

In a room of live pages the third server is instead the **authenticated floor with fan-out**
(`auth_floor_server.py --fanout`): the same floor, which also sends its pages, after the COMMIT and after
the reply, from a thread of its own, one `round` message of the bank's size (the plain floor's pages receive
nothing, while the bank sends each of them the update, 7-20 ms of CPU per command in its broadcaster
thread), at most one per 100 ms as the bank's broadcaster. Its size is the bank's own, measured in the same
room during the warm-up: the mean bytes of the messages the bank's pages received (bench/clients.Fleet
counts them), set on the floor before the first run. The plain authenticated floor stays the first line; the rotation stays 3 servers.

How many servers rotate changes the ratios (measured 1.13-1.29x with 2, 1.24-1.38x with 3,
1.37-1.43x with 7): this is always 3. Every server gets the very same requests: per iteration a
harvest (measured), then an `inventory` (not measured: it stocks the team up), a `build` (measured) and
a `reverse` taking the building back (not measured). The floors book those too, so no server has a
warm-up the others lack (were only the bank to get the `inventory`, it would warm its caches just
before the measured build).

Each room starts its servers once, warms each up alike, then measures `--runs` runs (>= 5) of
`--samples` iterations; the report gives each ratio's median over the runs and its range. Rooms:
`--rooms 0,200`: no page connected, and 200 Socket.IO clients per server (bench/clients.Fleet: 2 big
screens, 3 consoles, the rest team phones; the floors' pages get nothing, the bank's get every update).
CPU per request: user + system time of each server's whole process tree (Gunicorn's master and worker,
bench/proctree.py) over a run, divided by the requests it answered in that run (4 per iteration).

Late in the game: `--rows 0,20000,50000` serves the bank a game of that many journal rows
built by bench/late_game.py (`--games DIR` keeps them between runs).

    .venv/bin/python bench/web/serving/bench_latency.py                  # 5 runs of 200, rooms of 0 and 200 pages
    .venv/bin/python bench/web/serving/bench_latency.py --quick          # 5 runs of 60, no page only
    .venv/bin/python bench/web/serving/bench_latency.py --rows 0,50000 --games /tmp/late-games --rooms 0
"""

from __future__ import annotations

import argparse
import itertools
import os
import shutil
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # bench/: the shared modules
from harness import PASSWORD, TERRABANK, USER, Api, Server, launch, machine
from figures import percentile
from proctree import tree

HERE = Path(__file__).resolve().parents[2]
TEAMS = ["blue", "yellow", "red", "green"]
HARVESTERS = ["harvester-1", "harvester-2"]
RESOURCES = ["water", "flora", "dioxygen", "fauna", "energy"]
# Buildings a team owning nothing may build (the others need a building or animals first).
BUILDINGS = ["power_plant_1", "purification_centre", "greenhouse", "reserve"]
STOCK = {r: 30 for r in RESOURCES}  # enough for any of BUILDINGS
SIDES = ("bank", "auth", "anon")  # the fixed rotation
ROOM_SIDES = ("bank", "auth", "fan")  # with live pages: the anonymous floor's turn goes to the fan-out floor
LABELS = {"bank": "**terrabank serve**", "auth": "authenticated floor", "anon": "anonymous floor",
          "fan": "authenticated floor + fan-out"}
REQUESTS_PER_ITERATION = 4  # harvest, inventory, build, reverse


class Without(Server):
    """`terrabank serve` with the parts in `off` switched off (bench/serve_without.py)."""

    def __init__(self, folder: Path, off: str):
        super().__init__(folder)
        self.off = off

    def serve_command(self) -> list:
        return [sys.executable, str(HERE / "serve_without.py"), self.off, *super().serve_command()[1:]]


class Floor:
    """A floor server (bench/floor_server.py or bench/auth_floor_server.py) in its own process, on a port it chose."""

    def __init__(self, folder: Path, script: str, row_bytes: int, *options: str):
        name = Path(script).stem + ("-fanout" if "--fanout" in options else "")
        self.proc, self.port = launch([sys.executable, str(HERE / script), "--db", str(folder / f"{name}.db"),
                                       "--row-bytes", str(row_bytes), *options], folder / f"{name}.log")
        self.url = f"http://127.0.0.1:{self.port}"  # launch returned once it answered HTTP
        self.pid = self.proc.pid

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


def cpu_seconds(pid: int) -> float:
    """User + system CPU of `pid` and every process below it, in seconds (/proc/PID/stat)."""
    ticks = 0
    for p in tree(pid):
        try:
            fields = Path(f"/proc/{p}/stat").read_text().rpartition(")")[2].split()
        except OSError:
            continue
        ticks += int(fields[11]) + int(fields[12])  # utime, stime (fields 14 and 15 of stat)
    return ticks / os.sysconf("SC_CLK_TCK")


def sent(api: Api, key: str, command: dict) -> tuple[float, dict]:
    """(milliseconds, reply) of one POST /api/commands; the reply must be a success."""
    start = time.perf_counter()
    status, body = api.command(key, **command)
    ms = (time.perf_counter() - start) * 1000
    if status != 200:
        raise RuntimeError(f"{command['type']} refused: {status} {body}")
    return ms, body


def harvest_command(i: int) -> dict:
    return {"type": "harvest", "team": TEAMS[i % 4], "card": HARVESTERS[i // 4 % 2], "resource": RESOURCES[i % 5]}


def iterate(apis: dict, i: int, ids, times: dict | None) -> None:
    """One iteration: every server, in the order of the rotation, gets the same four requests."""
    sides = tuple(apis)
    order = list(sides[i % 3:] + sides[:i % 3])
    cmd = harvest_command(i)
    for side in order:
        ms, _ = sent(apis[side], f"h{next(ids)}", cmd)
        if times is not None:
            times["harvest"][side].append(ms)
    team, building = TEAMS[i % 4], BUILDINGS[i // 4 % len(BUILDINGS)]
    for side in order:
        api = apis[side]
        sent(api, f"inv{next(ids)}", {"type": "inventory", "team": team, "counted": STOCK, "reason": "bench"})
        ms, body = sent(api, f"b{next(ids)}", {"type": "build", "team": team, "building": building})
        if times is not None:
            times["build"][side].append(ms)
        sent(api, f"rev{next(ids)}", {"type": "reverse", "seq": body["seq"], "reason": "bench: take the building back"})


def one_run(apis: dict, pids: dict, start: int, samples: int, ids) -> dict:
    """{"harvest"/"build": {side: [ms]}, "cpu": {side: ms per request}} for `samples` iterations."""
    times = {k: {side: [] for side in pids} for k in ("harvest", "build")}
    before = {side: cpu_seconds(pid) for side, pid in pids.items()}
    for i in range(start, start + samples):
        iterate(apis, i, ids, times)
    requests = samples * REQUESTS_PER_ITERATION
    times["cpu"] = {side: (cpu_seconds(pid) - before[side]) * 1000 / requests for side, pid in pids.items()}
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


def ratio_stats(runs: list, kind: str, a: str, b: str) -> tuple:
    """((p50 ratio median, min, max), (p99 ratio median, min, max)) of side a over side b across the runs."""
    p50 = [statistics.median(r[kind][a]) / statistics.median(r[kind][b]) for r in runs]
    p99 = [percentile(r[kind][a], 99) / percentile(r[kind][b], 99) for r in runs]
    return tuple((statistics.median(v), min(v), max(v)) for v in (p50, p99))


def spread(values: list, unit: str = "x") -> str:
    return f"{statistics.median(values):.2f}{unit} ({min(values):.2f}-{max(values):.2f})"


def report_room(runs: list, title: str) -> list:
    sides = tuple(runs[0]["cpu"])
    third = sides[2]
    lines = [f"### {title}", "", "Median over the runs, range in brackets.", "",
             "| command | server | p50 ms | p99 ms | CPU ms per request |", "| --- | --- | ---: | ---: | ---: |"]
    for kind in ("harvest", "build"):
        for side in sides:
            p50 = [statistics.median(r[kind][side]) for r in runs]
            p99 = [percentile(r[kind][side], 99) for r in runs]
            cpu = [r["cpu"][side] for r in runs]
            lines.append(f"| {kind} | {LABELS[side]} | {spread(p50, '')} | {spread(p99, '')} | {spread(cpu, '')} |")
    lines += ["", "| command | ratio | p50 | p99 | runs with p50 <= 1.2x |", "| --- | --- | ---: | ---: | ---: |"]
    for kind in ("harvest", "build"):
        for a, b in (("bank", "auth"), ("bank", third), ((third, "auth") if third == "fan" else ("auth", third))):
            (m50, lo50, hi50), (m99, lo99, hi99) = ratio_stats(runs, kind, a, b)
            under = sum(statistics.median(r[kind][a]) / statistics.median(r[kind][b]) <= 1.2 for r in runs)
            lines.append(f"| {kind} | {LABELS[a]} / {LABELS[b]} | {m50:.2f}x ({lo50:.2f}-{hi50:.2f}) | "
                         f"{m99:.2f}x ({lo99:.2f}-{hi99:.2f}) | {under} of {len(runs)} |")
    cpu = [r["cpu"]["bank"] / r["cpu"]["auth"] for r in runs]
    lines += ["", f"Worker CPU per request, bank / authenticated floor: {spread(cpu)}; "
              f"bank / {LABELS[third]}: {spread([r['cpu']['bank'] / r['cpu'][third] for r in runs])}.", ""]
    return lines


def measured_fanout(fleet, before: tuple) -> dict:
    """The mean bytes of the update messages the bank's pages received since `before` (wire bytes, messages):
    the fan-out floor's message size."""
    (wire, _), messages = fleet.wire_bytes(), fleet.messages()
    wire, messages = wire - before[0], messages - before[1]
    if not messages:
        raise RuntimeError("the bank's pages received no update during the warm-up: no size for the fan-out floor")
    return {"bytes": round(wire / messages), "messages": messages}


def measure_room(rows: int, pages: int, games: Path, folder: Path, args, notes: list) -> tuple[list, dict, str, dict]:
    """(runs, journal row sizes, load averages, {server: pages still connected at the end}) for one game size and
    one room, with its own three servers."""
    from clients import Fleet, lead_cookie_and_tokens
    from late_game import game_file

    folder.mkdir(parents=True)
    bank = served_copy(game_file(rows, games, log=sys.stderr), folder / "bank") if rows else \
        Server(folder / "bank").prepare()
    floors, fleets, apis, kept = [], [], {}, {}
    load = " ".join(Path("/proc/loadavg").read_text().split()[:3])
    with bank.start() as server:
        try:
            third = Floor(folder, "auth_floor_server.py", args.row_bytes, "--fanout") if pages else \
                Floor(folder, "floor_server.py", args.row_bytes)
            floors = [Floor(folder, "auth_floor_server.py", args.row_bytes), third]
            sides = ROOM_SIDES if pages else SIDES
            urls = dict(zip(sides, (server.url, floors[0].url, floors[1].url)))
            pids = dict(zip(sides, (server.pid, floors[0].pid, floors[1].pid)))
            apis = {side: Api(url).login() for side, url in urls.items()}
            for side, api in apis.items():  # the same first request everywhere
                sent(api, "start", {"type": "resume" if rows else "start_clock"})
            if pages:
                cookie, tokens = lead_cookie_and_tokens(apis["bank"])
                for side in sides:
                    room_tokens = tokens if side == "bank" else {t: t for t in tokens}
                    fleets.append(Fleet(urls[side], room_tokens, cookie if side == "bank" else apis[side].cookie,
                                        n=pages).start())
            ids = itertools.count(1)
            if pages:
                # The bank's pages weigh what they get during the warm-up only: counting encodes and deflates
                # every message again in this process, whose loop then answered the bank's pings (10 s) too
                # late (a first version counted throughout: 109-200 of the bank's pages dropped, none of the floors').
                fleets[0].count_bytes = True
                counted = (fleets[0].wire_bytes(), fleets[0].messages())
            for i in range(args.warmup):  # every server warmed up alike, not measured
                iterate(apis, i, ids, None)
            if pages:
                time.sleep(0.5)  # the bank's last round of the warm-up reaches its pages
                fleets[0].count_bytes = False
                fanout = measured_fanout(fleets[0], (counted[0][0], counted[1]))
                status, body = apis["fan"].request("POST", "/bench/fanout", {"bytes": fanout["bytes"]})
                if status != 200:
                    raise RuntimeError(f"the fan-out floor refused its size: {status} {body}")
                per_command = fanout["messages"] / max(1, fleets[0].connected()) / (args.warmup * REQUESTS_PER_ITERATION)
                notes.append(f"Fan-out floor: messages of {fanout['bytes']} bytes, the mean of the bank's {pages} pages "
                             f"during the warm-up (which got {per_command:.2f} messages per page per command).")
            runs = []
            for n in range(args.runs):
                start = args.warmup + n * args.samples
                runs.append(one_run(apis, pids, start, args.samples, ids))
                print(f"  rows {rows}, {pages} pages: run {n + 1} of {args.runs} done", file=sys.stderr, flush=True)
            if pages:
                kept.update({side: f.connected() for side, f in zip(sides, fleets)})
                lost = {side: f.disconnects() for side, f in zip(sides, fleets) if f.disconnects()}
                if lost:
                    print(f"  warning: pages disconnected during the runs: {lost}", file=sys.stderr)
                    reasons = {side: f.disconnect_reasons() for side, f in zip(sides, fleets) if f.disconnects()}
                    notes.append(f"Pages disconnected during the runs, by server: {lost} (why: {reasons}).")
        finally:
            for fleet in fleets:
                fleet.stop()
            for api in apis.values():
                api.close()
            for floor in floors:
                floor.stop()
    load += " -> " + " ".join(Path("/proc/loadavg").read_text().split()[:3])
    return runs, row_sizes(server.db), load, kept


def main() -> None:
    parser = argparse.ArgumentParser(description="p50/p99 latency of harvest and build against two floors")
    parser.add_argument("--quick", action="store_true", help="runs of 60 iterations, no page only")
    parser.add_argument("--runs", type=int, default=5, help="runs per room (the report's median and range)")
    parser.add_argument("--samples", type=int, help="iterations per run (default 200, 60 with --quick)")
    parser.add_argument("--warmup", type=int, default=20, help="iterations before the first run, for every server")
    parser.add_argument("--rooms", help="live pages per server, e.g. 0,200 (default; --quick: 0)")
    parser.add_argument("--row-bytes", type=int, default=400, help="bytes of the floors' stand-in events column")
    parser.add_argument("--no-quiet", action="store_true", help="ignored: the rotation is always the same 3 servers")
    parser.add_argument("--rows", default="0", help="game sizes in journal rows, e.g. 0,20000,50000")
    parser.add_argument("--games", type=Path, help="folder keeping the built games between runs")
    args = parser.parse_args()
    args.samples = args.samples or (60 if args.quick else 200)
    rooms = [int(r) for r in (args.rooms or ("0" if args.quick else "0,200")).split(",")]
    sizes = [int(r) for r in args.rows.split(",")]
    started = time.monotonic()
    lines = []  # the closing notes
    with tempfile.TemporaryDirectory(prefix="terrabank-latency-") as tmp:
        games = args.games or Path(tmp) / "games"
        for rows in sizes:
            for pages in rooms:
                notes = []
                runs, sizes_seen, load, kept = measure_room(rows, pages, games, Path(tmp) / f"rows-{rows}-pages-{pages}",
                                                            args, notes)
                connected = ", ".join(f"{side} {n}" for side, n in kept.items())
                title = (f"{'No page' if not pages else f'{pages} live pages per server'}"
                         + (f", game of {rows:,} journal rows" if rows else "")
                         + f" ({len(runs)} runs of {args.samples}; load average {load}"
                         + (f"; pages connected at the end: {connected}" if kept else "") + ")")
                if any(n < pages for n in kept.values()) or any("disconnected" in note for note in notes):
                    # A room that lost pages is not the room measured (a bank pushing to 5 pages
                    # against a floor pushing to 200 printed 0.28x): void, no ratio.
                    print("\n".join([f"### {title}", "", "VOID: pages were dropped during the runs, so no ratio is given "
                                     "for this room.", *notes, ""]), flush=True)
                    continue
                room = report_room(runs, title) + ["Journal row (command + events) mean bytes: "
                                                   + ", ".join(f"{k} {v}" for k, v in sorted(sizes_seen.items())), "",
                                                   *notes, ""]
                print("\n".join(room), flush=True)  # each room as it ends: a later failure keeps it
    lines += [f"Floor rows: about {args.row_bytes + 60} bytes.",
              "", "Targets: p50 <= 1.2x and p99 <= 1.5x the authenticated floor, median of >= 5 runs, "
              "both rooms; worker CPU per command <= 1.2x the authenticated floor's.",
              "", f"Command: `.venv/bin/python bench/web/serving/bench_latency.py {' '.join(sys.argv[1:])}`",
              "", f"Machine: {machine()}"]
    print("\n".join(lines))
    print(f"\n(run took {time.monotonic() - started:.0f} s)")


if __name__ == "__main__":
    main()
