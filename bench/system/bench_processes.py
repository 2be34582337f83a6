"""Several server processes on one game: 1, 2 and 4 `terrabank serve` with up to 1,000 live pages.

For N in 1, 2, 4: one game in a throwaway PostgreSQL, N processes sharing a throwaway Redis
(bench/processes_cluster.py, over tests/postgres_kit.py and tests/redis_kit.py). The room
(bench/processes_fleet.py): 1,000 Socket.IO clients as bench/clients.mix makes them (2 big
screens, 3 consoles, team phones), client i kept on process i % N as a sticky proxy would,
phones behind access points of 100. They join 50 at a time, each step checked by a harvest
that must be answered and reach every page (bench/processes_load.fill): where N processes
stop holding more, the held count and how the next step failed are reported, and the soak
runs with the pages held. Then bench_soak's mix at its pace (3 consoles, a command every
0.5-1 s each), command k sent to process k % N, for --seconds. When pages were dropped or
missed an update under the soak (servers that fall more than Engine.IO's 10 s ping timeout
behind close pages), the soak runs again on a fresh game with 250 fewer pages, twice at most:
what N processes hold under load, not only connected.

Figures per N: command latency (HTTP reply), send -> last page (on the command's own process,
and on the others: cross-process delivery), errors, memory and CPU of all processes, against
1 process, and against the floor of the same queue: a bare Redis PUBLISH reaching N subscriber
processes (bench/processes_floor.py), measured during the same soak and on a quiet machine.
The same soak on the SQLite file with one process gives the journal's own cost.

    .venv/bin/python bench/system/bench_processes.py                          # 1,000 pages, 90 s per N
    .venv/bin/python bench/system/bench_processes.py --pages 100 --counts 1,2 --seconds 30   # a trial
"""

from __future__ import annotations

import argparse
import contextlib
import itertools
import statistics
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # bench/: the shared modules
from figures import percentile
from clients import lead_cookie_and_tokens
from harness import Api, machine
from processes_cluster import Cluster, SingleFile, postmaster_pid, queue_servers, tree_memory
from processes_fleet import Room
from processes_floor import FloorRun, measure
from processes_load import fill, soak


def loadavg() -> str:
    return " ".join(Path("/proc/loadavg").read_text().split()[:3])


def run_one(label: str, make_subject, target: int, step: int, seconds: float, queue_url: str | None,
            others: list, log, per_address: int) -> dict:
    """Fill a fresh subject's room towards `target`; soak with the pages it held.

    When a step fails, its pages leave; if the servers then work again the soak runs on them,
    else on a fresh subject filled with what the first one held."""
    print(f"{label}: {target} pages, load {loadavg()}", file=log, flush=True)
    tries, result = 0, {"label": label, "target": target}
    while True:
        tries += 1
        subject, room = make_subject(tries), None
        try:
            urls = [f"http://127.0.0.1:{port}" for port in subject.ports]
            lead = Api(urls[0]).login()
            lead.command("start", type="start_clock")
            logged = [lead_cookie_and_tokens(Api(url).login()) for url in urls]
            tokens, teams = logged[0][1], list(logged[0][1])
            room = Room(urls, tokens, [cookie for cookie, _ in logged], target, per_address)
            filled = fill(room, urls, target, step, teams, log)
            if tries == 1:
                result.update(filled)  # the first fill says what the processes hold and how they fail
            if filled["failure"] is not None:
                print(f"  stopped: {filled['failure']}; afterwards: {filled['after'] or 'serving again'}",
                      file=log, flush=True)
                if not filled["recovered"] or filled["held"] == 0:
                    if tries == 1 and filled["held"] > 0:
                        target = filled["held"]
                        continue  # the finally below stops this subject; soak a fresh one with what it held
                    raise RuntimeError(f"{label}: {filled['failure']}")
            floor = FloorRun(queue_url, len(urls)) if queue_url else None
            result.update(soak(room, subject, urls, teams, seconds, log, floor, others))
            result.update(processes=len(urls), memory=subject.memory(),
                          each=[tree_memory([pid])["rss"] for pid in subject.pids()],
                          others=tree_memory(others) if others else None)
            return result
        finally:
            if room is not None:
                room.stop()
            subject.stop()
            result.setdefault("problems", []).extend(subject.problems())


def run_setup(label: str, make_subject, args, queue_url: str, others: list, log) -> list:
    """run_one with the pages asked; while pages were dropped under the soak, again with fewer (a fresh
    game each time, down to --fewer-by steps, at most --retries times): the pages it holds under load."""
    results = [run_one(label, make_subject, args.pages, args.step, args.seconds, queue_url, others, log,
                       args.per_address)]
    for _ in range(args.retries):
        pages = results[-1]["pages"]
        if not (results[-1]["disconnects"] or results[-1]["late"]) or pages <= args.fewer_by:
            break
        target = (pages - 1) // args.fewer_by * args.fewer_by
        retry = run_one(f"{label}, {target:,} pages", make_subject, target, args.step, args.seconds, queue_url,
                        others, log, args.per_address)
        results.append({**retry, "retry": True})
    return results


def ms(values: list, p: float | None = None) -> float:
    if not values:
        return float("nan")
    return statistics.median(values) if p is None else percentile(values, p)


def last_page(r: dict) -> list:
    """ms from send to the last page of any process, per delivered command."""
    return [max(x for x in m if x is not None) for m in r["measured"] if m != (None, None)]


def pair(values: list) -> str:
    return f"{ms(values):.0f} / {ms(values, 99):.0f}" if values else "-"


def errors(r: dict) -> tuple[int, str]:
    unexpected = sum(1 for rec in r["records"] if not rec[6])
    parts = [("unexpected status", unexpected), ("no answer", len(r["failures"])),
             ("not on every page within 10 s", r["late"]), ("disconnects", r["disconnects"]),
             ("stale at the end", r["stale"]), ("out of order", r["regressions"]),
             ("processes showing another game at the end", int(not r["agree"])), ("process died", int(not r["alive"]))]
    named = ", ".join(f"{n} {name}" for name, n in parts if n)
    return sum(n for _, n in parts), named or "none"


def report(results: list, floors: dict, args: list, loads: tuple, pages: int, per_address: int) -> str:
    by = {r["label"]: r for r in results}
    base = by.get("1 process")
    lines = ["## Several processes", "",
             f"One game, 1, 2 and 4 `terrabank serve` processes on a throwaway PostgreSQL and Redis, up to {pages:,} "
             "live pages (Socket.IO clients: 2 big screens, 3 consoles, the rest team phones, behind access points "
             f"of {per_address}), page i on process i % N as a sticky proxy keeps it; bench_soak's command mix and "
             "pace (3 consoles, a command every 0.5-1 s each), command k to process k % N "
             "(`bench/system/bench_processes.py`).", "",
             "**Read with care: this machine has 2 CPUs.** The N servers, PostgreSQL, Redis and the benchmark "
             "itself (every simulated page decodes every update in one Python process) share them, so the "
             "figures are CPU-bound: more processes here means more contention, not more cores. They say that "
             "it works, what it costs, and where the limit is; on a host with a core per process the "
             "processes would not slow one another down.", "",
             "Live pages held: pages join 50 at a time; after each step a harvest must be answered and reach "
             "every page within 15 s.", "",
             f"| servers | pages held (asked {pages:,}) | the next step |", "| --- | --- | --- |"]
    for r in (r for r in results if not r.get("retry")):
        after = ("; once those pages left, it served again" if r["recovered"] else
                 f"; once those pages left: {r['after']} (the soak ran on a fresh start)")
        lines.append(f"| {r['label']} | {r['held']:,} | {r['failure'] + after if r['failure'] else 'all held'} |")
    lines += ["", "Under the soak's mix with the pages held (ms; p50 / p99):", "",
              "| servers | pages (at the end) | commands (per s) | errors | command reply | send -> last page | "
              "on its own process | on the other processes | send -> last page p50, first / second half |",
              "| --- | --- | --- | --- | --- | --- | --- | --- | --- |"]
    for r in results:
        replies = [rec[4] - rec[3] for rec in r["records"]]
        total, named = errors(r)
        own = [m[0] for m in r["measured"] if m[0] is not None]
        other = [m[1] for m in r["measured"] if m[1] is not None]
        last = last_page(r)
        lines.append(f"| {r['label']} | {r['pages']:,} ({r['connected']:,}) | {len(r['records'])} "
                     f"({len(r['records']) / r['wall']:.1f}) | {total} ({named}) | "
                     f"{pair([x * 1000 for x in replies])} | {pair(last)} | {pair(own)} | {pair(other)} | "
                     f"{ms(last[:len(last) // 2]):.0f} / {ms(last[len(last) // 2:]):.0f} |")
    if base and len(results) > 1:
        lines += ["", "Against 1 process on PostgreSQL (p50 ratio; p99 ratio):", ""]
        b_reply = [(rec[4] - rec[3]) * 1000 for rec in base["records"]]
        b_last = last_page(base)
        for r in results:
            if r is base:
                continue
            reply = [(rec[4] - rec[3]) * 1000 for rec in r["records"]]
            last = last_page(r)
            lines.append(f"- {r['label']} ({r['pages']:,} pages against {base['pages']:,}): command reply "
                         f"{ms(reply) / ms(b_reply):.2f}x; {ms(reply, 99) / ms(b_reply, 99):.2f}x, send -> last page "
                         f"{ms(last) / ms(b_last):.2f}x; {ms(last, 99) / ms(b_last, 99):.2f}x")
    lines += ["", "The queue's floor: a bare Redis PUBLISH of the same notice reaching N subscriber processes "
              "(redis-py's pubsub.listen(), as each server listens), during the soak (4 a second) and on the quiet "
              "machine before the servers start (200, 20 ms apart). Cross-process extra: per command, last page "
              "on the other processes minus last page on its own process.", "",
              "| servers | floor, quiet (p50 / p99) | floor, during the soak | cross-process extra p50 / p99 | "
              "floor share of delivery to the other processes (p50) |", "| --- | --- | --- | --- | --- |"]
    for r in results:
        if r.get("floor") is None:
            continue
        n = r["processes"]
        extra = [m[1] - m[0] for m in r["measured"] if m[1] is not None]
        loaded = r["floor"]["ms"]
        other = [m[1] for m in r["measured"] if m[1] is not None]
        share = f"{ms(loaded) / ms(other):.1%}" if other else "-"
        quiet = floors.get(n, {}).get("ms", [])
        missed = f" ({r['floor']['missed']} missed)" if r["floor"]["missed"] else ""
        lines.append(f"| {r['label']} | {ms(quiet):.2f} / {ms(quiet, 99):.2f} | {ms(loaded):.2f} / "
                     f"{ms(loaded, 99):.2f}{missed} | {pair(extra) if extra else '- (one process)'} | {share} |")
    lines += ["", "Memory and CPU at the end of the soak (RSS counts shared pages in each process; PSS splits them):",
              "",
              "| servers | RSS all servers (each) | PSS all servers | threads | PostgreSQL + Redis PSS | "
              "CPUs busy during the soak: servers / PostgreSQL + Redis / the benchmark (pages, consoles) / "
              "the whole machine (other programs too) | "
              "server CPU ms per command | the benchmark's pages: longest loop delay |",
              "| --- | --- | --- | --- | --- | --- | --- | --- |"]
    for r in results:
        m = r["memory"]
        each = " + ".join(f"{x:.0f}" for x in r["each"])
        others = f"{r['others']['pss']:.0f} MB" if r["others"] else "-"
        busy = (f"{r['cpu'] / r['wall']:.2f} / {r['cpu_others'] / r['wall']:.2f} / {r['cpu_self'] / r['wall']:.2f}"
                f" / {r['machine_busy']:.2f}")
        lines.append(f"| {r['label']} | {m['rss']:.0f} MB ({each}) | {m['pss']:.0f} MB | {m['threads']} | "
                     f"{others} | {busy} | {r['cpu'] * 1000 / max(1, len(r['records'])):.0f} | {r['lag']:.2f} s |")
    sqlite = by.get("1 process, SQLite")
    if base and sqlite:
        pg = [(rec[4] - rec[3]) * 1000 for rec in base["records"]]
        lite = [(rec[4] - rec[3]) * 1000 for rec in sqlite["records"]]
        lines += ["", f"PostgreSQL against the SQLite file, 1 process, same pages ({base['pages']:,} and "
                  f"{sqlite['pages']:,}) and mix, same run: command reply p50 {ms(pg):.0f} ms against "
                  f"{ms(lite):.0f} ms ({ms(pg) / ms(lite):.2f}x), p99 {ms(pg, 99):.0f} against {ms(lite, 99):.0f} "
                  f"({ms(pg, 99) / ms(lite, 99):.2f}x)."]
    problems = {r["label"]: r["problems"] for r in results if r["problems"]}
    if problems:
        lines += ["", "Failures the servers logged (first 3 of each):", ""]
        lines += [f"- {label}: {len(found)} lines; " + " / ".join(found[:3]) for label, found in problems.items()]
    for r in results:
        if r["reasons"]:
            lines += ["", f"{r['label']}: pages disconnected per process {r['disconnects_each']}; python-socketio's "
                      f"reason: {dict(r['reasons'])}; python-engineio's client log: {r['client_log']}"]
    lines += ["", f"Load average (1, 5, 15 min) at the start: {loads[0]}; at the end: {loads[1]}.",
              f"Command: `{' '.join(['.venv/bin/python', 'bench/system/bench_processes.py', *args])}`",
              f"Machine: {machine()}"]
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description="1, 2 and 4 server processes on one game with up to 1,000 pages")
    parser.add_argument("--pages", type=int, default=1000, help="live pages asked of every setup")
    parser.add_argument("--counts", default="1,2,4", help="numbers of processes")
    parser.add_argument("--seconds", type=float, default=90, help="soak per setup")
    parser.add_argument("--step", type=int, default=50, help="pages joining between two checks")
    parser.add_argument("--retries", type=int, default=2,
                        help="soaks with fewer pages when pages were dropped under the soak (0: none)")
    parser.add_argument("--fewer-by", type=int, default=250, help="pages fewer at each of those soaks")
    parser.add_argument("--no-sqlite", action="store_true", help="skip the SQLite single-process line")
    parser.add_argument("--per-address", type=int, default=100,
                        help="pages sharing one local address (an access point; --pages: all behind one proxy)")
    parser.add_argument("--out", help="also write the markdown section to this file")
    parser.add_argument("--keep", help="keep the servers' logs and files in this folder (default: a temporary one)")
    args = parser.parse_args()
    counts = [int(c) for c in args.counts.split(",")]
    log, loads, results = sys.stderr, [loadavg()], []
    postgres, redis = queue_servers()
    try:
        with contextlib.nullcontext(args.keep) if args.keep else tempfile.TemporaryDirectory(
                prefix="terrabank-processes-") as tmp:
            floors = {n: measure(redis.url, n) for n in counts}
            others = [postmaster_pid(postgres), redis.proc.pid]
            games = itertools.count(1)  # every start is a new game: names are never reused
            for n in counts:
                label = "1 process" if n == 1 else f"{n} processes"

                def make(_, n=n):
                    game = next(games)
                    return Cluster(Path(tmp) / f"game{game}", f"procs{n}-{game}", postgres.url, redis.url, n)
                results += run_setup(label, make, args, redis.url, others, log)
                if n == 1 and not args.no_sqlite:
                    single = lambda _: SingleFile(Path(tmp) / f"sqlite{next(games)}")  # noqa: E731
                    results.append(run_one("1 process, SQLite", single, results[-1]["pages"], args.step,
                                           args.seconds, None, [], log, args.per_address))
    finally:
        redis.stop()
        postgres.stop()
    loads.append(loadavg())
    text = report(results, floors, sys.argv[1:], tuple(loads), args.pages, args.per_address)
    print(text)
    if args.out:
        Path(args.out).write_text(text + "\n")


if __name__ == "__main__":
    main()
