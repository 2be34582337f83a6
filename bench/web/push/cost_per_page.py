"""What each live page costs a server: CPU per command, memory and threads, at 0, 50 and 200 pages,
the bank beside its floor in the same run.

For each server (the bank, `terrabank serve`; the floor, bench/auth_floor_server.py --fanout sending the bank's
own `round` messages of this run, as pages_under_pressure does) and each room size, in turn: the server starts,
PAGES team pages connect (page_room.Room, offering permessage-deflate as browsers do) and it settles 3 s; then
the served tree's threads (/proc/<pid>/status) and memory (PSS, /proc/<pid>/smaps_rollup) are read; then
4 tablets book harvests at PACE a second for SECONDS: the tree's CPU per booked harvest and per round (one
message to every page). Per page: (figure at N - figure with no page) / N. --pi: the served tree on
pi_budget's protected quarter core (else no quota: run it niced on a quiet machine).

    .venv/bin/python bench/web/push/cost_per_page.py                      # 0,50,200 pages, 2 a second, 20 s
    .venv/bin/python bench/web/push/cost_per_page.py --pages 0,200 --pi
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from page_room import Room, book_at_pace
from pages_under_pressure import Pressure, _cpu_seconds, addresses_for, admission, settled, start_bank, start_floor

import harness
import proctree


def _tree_figures(pid: int) -> tuple[int, float]:
    """(threads, PSS in MB) of the process tree under `pid`."""
    threads, pss = 0, 0
    for p in proctree.tree(pid):
        try:
            status = Path(f"/proc/{p}/status").read_text()
            rollup = Path(f"/proc/{p}/smaps_rollup").read_text()
        except OSError:
            continue
        threads += int(next(line.split()[1] for line in status.splitlines() if line.startswith("Threads:")))
        pss += int(next(line.split()[1] for line in rollup.splitlines() if line.startswith("Pss:")))
    return threads, pss / 1024


def measure(kind: str, start, pages: int, pace: float, seconds: float, pressure: Pressure, shape: dict | None):
    with tempfile.TemporaryDirectory() as tmp:
        config, _ = admission(max(pages, 1), Path(tmp))
        proc, port, url, tokens, login = start(Path(tmp), config, pages)
        room = None
        try:
            if kind == "floor":
                api = harness.Api(url)
                login(api)
                status, reply = api.request("POST", "/bench/fanout", {"rounds": shape})
                api.close()
                assert status == 200, reply
            pressure.apply(proc.pid)
            room = Room(port, tokens, pages, addresses=addresses_for(pages), deflate=True)
            time.sleep(3)
            if kind == "bank":
                settled(Path(tmp), proc.pid)
            book_at_pace(url, 10.0, 1.0, tablets=2, tag="warm", login=login)
            time.sleep(1)
            threads, pss = _tree_figures(proc.pid)
            tree = proctree.tree(proc.pid)
            mark = {}
            ready = lambda: mark.update(cpu=_cpu_seconds(tree), messages=room.messages())  # noqa: E731 (logged in)
            booked, _ = book_at_pace(url, pace, seconds, tag="c", login=login, ready=ready)
            cpu, messages = _cpu_seconds(tree) - mark["cpu"], mark["messages"]
            rounds = (room.messages() - messages) / pages if pages else None
            out = {"server": kind, "pages": pages, "booked": len(booked), "threads": threads, "pss_mb": pss,
                   "cpu_ms_per_command": 1000 * cpu / max(1, len(booked)), "dropped": room.dropped(),
                   "cpu_ms_per_round": 1000 * cpu / rounds if rounds else None, "rounds": rounds}
            if kind == "bank" and pages:
                out["shape"] = {team: list(m) for team, m in room.samples.items() if m}
            return out
        finally:
            if room is not None:
                room.close()
            pressure.release()
            harness.end(proc)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pages", default="0,50,200")
    parser.add_argument("--pace", type=float, default=2.0)
    parser.add_argument("--seconds", type=float, default=20.0)
    parser.add_argument("--servers", default="bank,floor")
    parser.add_argument("--pi", action="store_true", help="the served tree on pi_budget's protected quarter core")
    parser.add_argument("--record", action="store_true",
                        help="keep the figures as the last measured (bench/results/08b_cost_per_page.json), then make "
                             "docs/PERFORMANCE.md's table again with bench/record.py (needs 0 and 200 pages of both servers)")
    args = parser.parse_args()
    sizes = sorted((int(x) for x in args.pages.split(",")), reverse=True)  # the biggest first: its shape for the floor
    pressure = Pressure("pi" if args.pi else "none", 0)
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True).stdout.strip()
    print(f"# Cost per page: rooms of {args.pages} pages, {args.pace:g} harvests a second for {args.seconds:g} s; "
          f"{'protected quarter core (pi_budget)' if args.pi else 'no quota'}; commit {commit}; "
          f"PYTHONPATH={os.environ.get('PYTHONPATH', '-')}; load average {os.getloadavg()[0]:.1f}\n")
    starts, results, shape = {"bank": start_bank, "floor": start_floor}, [], None
    for kind in args.servers.split(","):
        for pages in sizes:
            r = measure(kind, starts[kind], pages, args.pace, args.seconds, pressure, shape)
            shape = r.pop("shape", None) or shape
            results.append(r)
            print(r, flush=True)
    print("\n| server | pages | booked | CPU a harvest | CPU a round | threads (tree) | PSS (tree) | per page vs no page: "
          "CPU a harvest, threads, memory |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- |")
    for r in results:
        empty = next((e for e in results if e["server"] == r["server"] and e["pages"] == 0), None)
        per = "-"
        if empty and r["pages"]:
            n = r["pages"]
            per = (f"{(r['cpu_ms_per_command'] - empty['cpu_ms_per_command']) / n:.3f} ms, "
                   f"{(r['threads'] - empty['threads']) / n:.2f}, {1024 * (r['pss_mb'] - empty['pss_mb']) / n:.0f} KB")
        rnd = "-" if r["cpu_ms_per_round"] is None else f"{r['cpu_ms_per_round']:.1f} ms"
        print(f"| {r['server']} | {r['pages']}{' (' + str(r['dropped']) + ' dropped)' if r['dropped'] else ''} | "
              f"{r['booked']} | {r['cpu_ms_per_command']:.1f} ms | {rnd} | {r['threads']} | {r['pss_mb']:.1f} MB | {per} |")
    if args.record:
        keep(results, sys.argv[1:], args)


def keep(results: list, argv: list, args) -> None:
    """The live pages' rows of docs/PERFORMANCE.md: the bank at 200 pages against its empty room and the floor."""
    import record  # bench/record.py, on the path with the shared modules

    at = {(r["server"], r["pages"]): r for r in results}
    bank, empty, floor, bare = at[("bank", 200)], at[("bank", 0)], at[("floor", 200)], at[("floor", 0)]
    where = "on a protected quarter core" if args.pi else "without a quota"
    rows = [
        # With the same ratio of the floor, which only fans out: what 200 pages cost any server on this transport
        # (an empty room makes no picture and sends nothing).
        {"figure": f"Live pages, {args.pace:g} harvests/s {where}: CPU per harvest at 200 pages, x no page "
                   f"({bank['cpu_ms_per_command']:.1f} / {empty['cpu_ms_per_command']:.1f} ms; the floor's own "
                   f"{floor['cpu_ms_per_command'] / bare['cpu_ms_per_command']:.2f}x)",
         "value": round(bank["cpu_ms_per_command"] / empty["cpu_ms_per_command"], 2), "unit": "x", "goal": "<=", "limit": 2},
        {"figure": "Live pages: threads started per page",
         "value": round((bank["threads"] - empty["threads"]) / 200, 2), "unit": "", "goal": "<=", "limit": 0.1},
        {"figure": "Live pages: memory per compressed page, PSS",
         "value": round(1024 * (bank["pss_mb"] - empty["pss_mb"]) / 200), "unit": "KB", "goal": "<=", "limit": 40},
        {"figure": f"Live pages: the served tree's PSS with 200 compressed pages ({empty['pss_mb']:.1f} MB with none)",
         "value": round(bank["pss_mb"], 1), "unit": "MB", "goal": "<=", "limit": 60},
        {"figure": f"Live pages: CPU per harvest at 200 pages, x the floor with fan-out on the same transport "
                   f"({bank['cpu_ms_per_command']:.1f} / {floor['cpu_ms_per_command']:.1f} ms)",
         "value": round(bank["cpu_ms_per_command"] / floor["cpu_ms_per_command"], 2), "unit": "x", "goal": "<=",
         "limit": 1.2},
    ]
    command = " ".join([".venv/bin/python", record.script(__file__), *(a for a in argv if a != "--record")])
    measured = (f"{time.strftime('%Y-%m-%d')}, 0 and 200 team pages offering permessage-deflate, {args.seconds:g} s at "
                f"{args.pace:g} harvests a second after the tablets logged in, one run, load {os.getloadavg()[0]:.0f}, "
                f"{harness.machine()}")
    (record.RESULTS / "08b_cost_per_page.json").unlink(missing_ok=True)  # every row is this bench's: all made again
    print(record.record("08b_cost_per_page", rows, command=command, measured=measured))
    record.main_table()


if __name__ == "__main__":
    main()
