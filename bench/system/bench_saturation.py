"""Commands per second at saturation: 1, 2, 4 processes x 1, 4 games, PostgreSQL + Redis.

Not the offered pace (PERFORMANCE.md's older "commands per s" column): a closed loop. Each game
gets `--commanders` consoles (default 8, as the issue measured), each sending its next command the
moment the previous one is answered, command k of a console to process k % N of its game; the
figure is the commands answered per second over a window, after a warm-up. Every command is a
lead's award to the teams in turn, which the rules never refuse: each one writes a journal row,
the write path at its worst ("answered" and "booked" then agree; a refusal would say why not).

Each game is served by its own N `terrabank serve` processes (bench/processes_cluster.Cluster:
one throwaway PostgreSQL and Redis for all, tests/postgres_kit.py and redis_kit.py), so 4 games
x 4 processes are 16 servers (each game has servers of its own here, not `serve --games`). Every
cell's servers run for the whole bench; the cells are measured in turn, one window each a round (the
others' consoles paused), so a load that drifts on a shared machine weighs on every cell alike. Each
cell is the median of --runs windows, with every window's figure printed beside it; the CPU of the
consoles themselves (this process) is printed apart.

--code FOLDER runs the servers from another checkout (e.g. `git worktree add /tmp/before HEAD`
made before a change), with that checkout's config.toml: what the change bought, measured by this same script on this machine.

    .venv/bin/python bench/system/bench_saturation.py                                  # the table
    .venv/bin/python bench/system/bench_saturation.py --code /tmp/before --label before
    .venv/bin/python bench/system/bench_saturation.py --counts 1,4 --games 1 --seconds 5 --runs 3   # a trial
    .venv/bin/python bench/system/bench_saturation.py --cells 1x1,2x1,4x1,1x4 --record   # PERFORMANCE.md's rows
"""

from __future__ import annotations

import argparse
import itertools
from collections import Counter
import os
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # bench/: the shared modules
from harness import ROOT, Api, machine
from processes_cluster import Cluster, queue_servers
from proctree import cpu_seconds, machine_ticks

from bank.store.journal_pg_schema import LOCK_SPACE  # the games' write locks (the same in every checkout)


class Commanders:
    """`count` consoles on one game, closed loop: each sends its next command once the last is answered."""

    def __init__(self, urls: list, teams: list, count: int, tag: str):
        self.urls, self.teams, self.tag = urls, teams, tag
        first = Api(urls[0]).login()  # one session for all: the sessions are rows of the shared database
        self.apis = [[self._same_session(first, url) for url in urls] for _ in range(count)]
        self.answered, self.booked, self.failed = [0] * count, [0] * count, [0] * count
        self.why: Counter = Counter()  # what the failures were: an error code, or the exception's name
        self.halt = threading.Event()
        self.go = threading.Event()  # set: the consoles send; clear: each stops after its command in flight
        self.threads = [threading.Thread(target=self._run, args=(i,), daemon=True) for i in range(count)]

    @staticmethod
    def _same_session(api: Api, url: str) -> Api:
        copy = Api(url)
        copy.cookie, copy.csrf = api.cookie, api.csrf
        return copy

    def start(self) -> None:
        for thread in self.threads:
            thread.start()

    def stop(self) -> None:
        self.halt.set()
        self.go.set()
        for thread in self.threads:
            thread.join(60)

    def totals(self) -> tuple[int, int, int]:
        return sum(self.answered), sum(self.booked), sum(self.failed)

    def _run(self, i: int) -> None:
        for k in itertools.count():
            self.go.wait()
            if self.halt.is_set():
                return
            command = {"type": "award", "team": self.teams[(i + k) % len(self.teams)], "points": 1,
                       "reason": "saturation"}
            try:
                status, body = self.apis[i][k % len(self.urls)].command(f"{self.tag}-{i}-{k}", **command)
            except Exception as exc:  # noqa: BLE001 - no answer: counted, the console goes on
                self.failed[i] += 1
                self.why[type(exc).__name__] += 1
                continue
            if status in (200, 400, 409):
                self.answered[i] += 1
                self.booked[i] += status == 200
            else:
                self.failed[i] += 1
                self.why[f"{status} {(body.get('error') or {}).get('code') if isinstance(body, dict) else ''}"] += 1


class LockWatch(threading.Thread):
    """What the games' write locks cost, read from PostgreSQL itself while the consoles run: how many
    backends wait for a game's advisory lock (pg_locks, sampled every 20 ms), and the transactions
    rolled back (pg_stat_database: a row refused because another process booked its seq first)."""

    def __init__(self, url: str):
        super().__init__(daemon=True)
        import psycopg

        self.conn = psycopg.connect(url, autocommit=True)
        # This watcher's own backend: its sampling costs the same each second whatever the servers book, so it
        # is left out of the CPU per booked command (counted in, it weighed twice as much on a cell booking half).
        self.backend = self.conn.execute("SELECT pg_backend_pid()").fetchone()[0]
        self.samples: list[int] = []
        self.halt = threading.Event()

    def run(self) -> None:
        while not self.halt.wait(0.02):
            self.samples.append(self.conn.execute(
                "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND NOT granted AND classid = %s",
                (LOCK_SPACE,)).fetchone()[0])

    def counters(self) -> tuple[int, int]:
        """(commits, rollbacks) of the database so far."""
        return self.conn.execute("SELECT xact_commit, xact_rollback FROM pg_stat_database "
                                 "WHERE datname = current_database()").fetchone()

    def stop(self) -> None:
        self.halt.set()
        self.join(10)
        self.conn.close()


def cpu_without(pids: list, left_out: int) -> float:
    """CPU seconds of the trees of `pids`, less the process `left_out` (the lock watcher's backend)."""
    return cpu_seconds(pids) - own_cpu_seconds(left_out)


def own_cpu_seconds(pid: int) -> float:
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    except (OSError, IndexError, ValueError):
        return 0.0


def database_pids(postgres, redis) -> list:
    """PostgreSQL's postmaster (its backends are its children) and redis-server: the CPU a command costs
    the database and the queue, counted beside the servers' (a rolled-back try burns a backend's too)."""
    return [int((postgres.data / "postmaster.pid").read_text().split()[0]), redis.proc.pid]


def warm_up(consoles: list, args, processes: int) -> None:
    """--warmup seconds, and until every server has answered --warmup-commands: with 4 processes a
    fixed time alone warms each a quarter as much as one process, whose cell it is compared with."""
    time.sleep(args.warmup)
    deadline = time.monotonic() + 120
    while any(c.totals()[0] < args.warmup_commands * processes for c in consoles):
        if time.monotonic() > deadline:
            raise SystemExit("bench_saturation: the servers did not answer their warm-up commands in 120 s")
        time.sleep(0.1)


class Cell:
    """`processes` servers per game x `games` games, running for the whole bench, driven only in its windows."""

    def __init__(self, processes: int, games: int, args, postgres, redis):
        self.processes, self.games = processes, games
        folder = Path(tempfile.mkdtemp(prefix=f"terrabank-saturation-{processes}x{games}-"))
        self.clusters, self.consoles, self.windows, self.warm = [], [], [], False
        try:
            for g in range(games):
                self.clusters.append(Cluster(folder / f"game-{g}", f"sat{processes}x{games}g{g}", postgres.url,
                                             redis.url, processes, args.config))
            tag = f"sat{processes}x{games}"
            for g, cluster in enumerate(self.clusters):
                urls = [f"http://127.0.0.1:{port}" for port in cluster.ports]
                lead = Api(urls[0]).login()
                lead.command(f"{tag}-start-{g}", type="start_clock")
                status, links = lead.request("GET", "/api/teams/links")
                self.consoles.append(Commanders(urls, list(links), args.commanders, f"{tag}-{g}"))
            for c in self.consoles:
                c.start()
        except BaseException:
            self.stop()
            raise
        self.pids = [pid for cluster in self.clusters for pid in cluster.pids()]

    def drive(self, on: bool) -> None:
        for c in self.consoles:
            (c.go.set if on else c.go.clear)()

    def stop(self) -> None:
        for c in self.consoles:
            c.stop()
        for cluster in self.clusters:
            cluster.stop()


def window(cell: Cell, args, watch, others: list) -> dict:
    """One window of --seconds on `cell`, its consoles sending, every other cell's paused (warmed up first
    the first time). `others`: the database's and the queue's pids, whose CPU counts too."""
    cell.drive(True)
    if not cell.warm:
        warm_up(cell.consoles, args, cell.processes)
        cell.warm = True
    else:
        time.sleep(1.0)  # the consoles back at their pace, the servers' threads awake
    consoles, pids = cell.consoles, cell.pids
    before = [c.totals() for c in consoles]
    cpu, ticks, wall, clients = cpu_seconds(pids), machine_ticks(), time.monotonic(), time.process_time()
    cpu_others = cpu_without(others, watch.backend)
    sampled, (commits, rollbacks) = len(watch.samples), watch.counters()
    time.sleep(args.seconds)
    after = [c.totals() for c in consoles]
    took = time.monotonic() - wall
    clients = time.process_time() - clients  # this bench's own process: the consoles (and the lock watcher)
    busy, all_ticks = (a - b for a, b in zip(machine_ticks(), ticks))
    answered, booked, failed = (sum(a[j] - b[j] for a, b in zip(after, before)) for j in range(3))
    waits = watch.samples[sampled:]
    commits_after, rollbacks_after = watch.counters()
    servers = cpu_seconds(pids) - cpu
    database = cpu_without(others, watch.backend) - cpu_others
    cell.drive(False)
    time.sleep(0.5)  # the commands in flight answered before the next cell's window
    return {"answered": answered / took, "booked": booked / took, "failed": failed,
            "why": dict(sum((c.why for c in consoles), Counter())),
            "servers_cpu": servers / took, "database_cpu": database / took, "clients_cpu": clients / took,
            # every process a command runs through: servers, PostgreSQL's backends, Redis
            "cpu_ms_per_booked": 1000 * (servers + database) / max(1, booked),
            "machine_busy": busy / max(1, all_ticks) * os.cpu_count(),
            "waiting": sum(waits) / max(1, len(waits)),
            "rolled_back": (rollbacks_after - rollbacks) / max(1, booked)}


def summary(cell: Cell, log) -> dict:
    windows = cell.windows
    problems = [p for c in cell.clusters for p in c.problems()]
    result = {"processes": cell.processes, "games": cell.games, "windows": windows, "problems": problems,
              "answered": statistics.median(w["answered"] for w in windows),
              "waiting": statistics.median(w["waiting"] for w in windows),
              "rolled_back": statistics.median(w["rolled_back"] for w in windows),
              # Per CPU-second the servers got: on a machine others load, what is left of the figure
              # once their share of the cores is taken out (it still counts waits for the game's lock).
              "per_cpu": statistics.median(w["answered"] / max(w["servers_cpu"], 1e-9) for w in windows),
              "cpu_ms": statistics.median(w["cpu_ms_per_booked"] for w in windows),
              "cores": statistics.median(w["servers_cpu"] + w["database_cpu"] for w in windows),
              "booked": statistics.median(w["booked"] for w in windows)}
    each = ", ".join(f"{w['answered']:.0f}" for w in windows)
    med = lambda key: statistics.median(w[key] for w in windows)  # noqa: E731
    print(f"{cell.processes} process(es) per game x {cell.games} game(s): {result['answered']:.0f} answered/s "
          f"(windows {each}), {result['booked']:.0f} booked/s, failures {sum(w['failed'] for w in windows)}, "
          f"{windows[-1]['why'] or ''}, servers' CPU {med('servers_cpu'):.2f} cores, PostgreSQL and Redis "
          f"{med('database_cpu'):.2f}, the consoles {med('clients_cpu'):.2f}, machine busy "
          f"{med('machine_busy'):.2f} of {os.cpu_count()} cores, "
          f"backends waiting for a game's lock {result['waiting']:.2f} on average, rollbacks per booked command "
          f"{result['rolled_back']:.2f}, CPU per booked command {result['cpu_ms']:.1f} ms (servers, "
          f"PostgreSQL, Redis), log problems {len(problems)}", file=log, flush=True)
    return result


def measure_all(cells: list, args, postgres, redis, log) -> list[dict]:
    """--runs rounds; in each, one window per cell, the cells in turn (the order shifted each round): a
    machine whose load drifts (other work on shared cores) weighs on every cell alike, not on the last."""
    watch = LockWatch(postgres.url)
    watch.start()
    try:
        for r in range(args.runs):
            for cell in cells[r % len(cells):] + cells[:r % len(cells)]:
                cell.windows.append(window(cell, args, watch, database_pids(postgres, redis)))
                w = cell.windows[-1]
                print(f"  round {r + 1}: {cell.processes}x{cell.games} {w['answered']:.0f}/s, "
                      f"{w['cpu_ms_per_booked']:.1f} ms a command, load "
                      f"{Path('/proc/loadavg').read_text().split()[0]}", file=log, flush=True)
    finally:
        watch.stop()
    return [summary(cell, log) for cell in cells]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--counts", default="1,2,4", help="processes per game")
    parser.add_argument("--games", default="1,4", help="games served at once")
    parser.add_argument("--cells", help="PROCESSESxGAMES,... instead of --counts x --games, e.g. 1x1,2x1,4x1,1x4")
    parser.add_argument("--commanders", type=int, default=8, help="closed-loop consoles per game")
    parser.add_argument("--runs", type=int, default=3, help="measured windows per cell (the median is kept)")
    parser.add_argument("--seconds", type=float, default=10.0, help="length of each window")
    parser.add_argument("--warmup", type=float, default=3.0, help="seconds of warm-up, at least")
    parser.add_argument("--warmup-commands", type=int, default=100,
                        help="commands each server answers before the windows start")
    parser.add_argument("--code", help="serve from this checkout instead (its bank/ goes first on PYTHONPATH)")
    parser.add_argument("--label", default="this checkout")
    parser.add_argument("--record", action="store_true",
                        help="keep one game's figures (1, 2 and 4 processes) in bench/results (bench/record.py)")
    args = parser.parse_args()
    if args.code:
        code = Path(args.code).resolve()
        if not (code / "bank" / "__init__.py").exists():
            raise SystemExit(f"bench_saturation: {code} holds no bank/ package: give a checkout of Terrabank")
        os.environ["PYTHONPATH"] = os.pathsep.join(filter(None, [str(code), os.environ.get("PYTHONPATH")]))
    args.config = str(Path(args.code or ROOT).resolve() / "config.toml")  # a checkout's config is its own
    log = sys.stdout
    print(f"bench_saturation ({args.label}{', code in ' + args.code if args.code else ''}): {machine()}, "
          f"load {' '.join(Path('/proc/loadavg').read_text().split()[:3])}; {args.commanders} consoles per game, "
          f"closed loop, {args.runs} windows of {args.seconds:g} s", file=log, flush=True)
    if args.cells:
        shapes = [tuple(int(x) for x in each.split("x")) for each in args.cells.split(",")]
    else:
        shapes = [(p, g) for g in (int(x) for x in args.games.split(",")) for p in (int(x) for x in args.counts.split(","))]
    postgres, redis = queue_servers()
    started = []
    try:
        for processes, games in shapes:
            started.append(Cell(processes, games, args, postgres, redis))
        cells = measure_all(started, args, postgres, redis, log)
    finally:
        for cell in started:
            cell.stop()
        redis.stop()
        postgres.stop()
    if args.record:
        keep(cells, args)
    print(f"\n| processes per game | games | answered/s ({args.label}) | booked/s | vs 1 process | "
          "per server CPU-second | CPU ms per booked (all) | vs 1 process | waiting for a game's lock | "
          "rollbacks per booked |", file=log)
    print("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |", file=log)
    for cell in cells:
        one = next((c for c in cells if c["games"] == cell["games"] and c["processes"] == 1), cells[0])
        print(f"| {cell['processes']} | {cell['games']} | {cell['answered']:.0f} | {cell['booked']:.0f} | "
              f"{cell['answered'] / one['answered']:.2f} | {cell['per_cpu']:.0f} | {cell['cpu_ms']:.1f} | "
              f"{cell['cpu_ms'] / one['cpu_ms']:.2f} | {cell['waiting']:.2f} | "
              f"{cell['rolled_back']:.2f} |", file=log, flush=True)
    one = next((c for c in cells if (c["processes"], c["games"]) == (1, 1)), None)
    for many in (c for c in cells if c["processes"] == 1 and c["games"] > 1 and one):
        # What the cores allow: N games on a process each need N times the cores one game used, and all of them
        # together book at most the machine's cores over the CPU a command costs (the consoles and other work left out).
        ceiling = os.cpu_count() * 1000 / many["cpu_ms"]
        print(f"\n{many['games']} games on {many['games']} processes (one each): {many['answered']:.0f} commands/s, "
              f"{many['answered'] / one['answered']:.2f}x one game on one process; one game used {one['cores']:.2f} cores "
              f"(servers, PostgreSQL, Redis), so {many['games']}x needs {many['games'] * one['cores']:.2f} of "
              f"{os.cpu_count()}; at {many['cpu_ms']:.1f} ms a command the {os.cpu_count()} cores book at most "
              f"{ceiling:.0f}/s ({ceiling / one['answered']:.2f}x one game)", file=log, flush=True)
    return 0


def keep(cells: list, args) -> None:
    """One game's figures against the goals of docs/PERFORMANCE.md, as the last measured (bench/record.py)."""
    from record import main_table, record, script

    one = {c["processes"]: c for c in cells if c["games"] == 1}
    games = next((c for c in cells if (c["processes"], c["games"]) == (1, 4)), None)
    if not {1, 2, 4} <= set(one) or games is None:
        raise SystemExit("bench_saturation --record: needs the cells 1x1,2x1,4x1 and 1x4 (--cells)")
    rows = [{"figure": "Processes of one game: rollbacks per booked command, 2 and 4 processes",
             "value": round(max(one[2]["rolled_back"], one[4]["rolled_back"]), 2), "unit": "", "goal": "<=", "limit": 0.1},
            {"figure": "Processes of one game: CPU per booked command, 4 processes, x one process",
             "value": round(one[4]["cpu_ms"] / one[1]["cpu_ms"], 2), "unit": "x", "goal": "<=", "limit": 1.3}]
    rows += [{"figure": f"Processes of one game: commands a second, {n} processes, x one process",
              "value": round(one[n]["answered"] / one[1]["answered"], 2), "unit": "x", "goal": ">=", "limit": 0.9}
             for n in (2, 4)]
    ceiling = os.cpu_count() * 1000 / games["cpu_ms"] / one[1]["answered"]  # what the cores allow (main's last lines)
    rows.append({"figure": f"Four games on four processes (one each): commands a second, x one game on one process "
                           f"(one game used {one[1]['cores']:.2f} cores; the {os.cpu_count()} cores allow {ceiling:.2f}x "
                           f"at {games['cpu_ms']:.1f} ms a command)",
                 "value": round(games["answered"] / one[1]["answered"], 2), "unit": "x", "goal": ">=", "limit": 2.5})
    load = " ".join(Path("/proc/loadavg").read_text().split()[:3])
    record("09_saturation", rows, command=" ".join([".venv/bin/python", script(__file__), *sys.argv[1:]]),
           measured=f"{time.strftime('%Y-%m-%d')}, games on PostgreSQL, {args.commanders} consoles a game, the median of "
                    f"{args.runs} windows of {args.seconds:g} s, the cells in turn; {machine()}, load {load} at the end")
    main_table()


if __name__ == "__main__":
    sys.exit(main())
