"""Pages kept under pressure (issue 33): 200 live pages, a game day's pace and a peak, the bank against the
authenticated floor with fan-out, on a Raspberry Pi's budget and on this machine with busy-loop processes.

For each pressure (--pressure pi: the served process tree in pi_budget's cgroup, a quarter of one core;
busy: N processes spinning beside the server, no cgroup) and each server (the bank, `terrabank serve`;
the floor, bench/auth_floor_server.py --fanout: its own Gunicorn stack and pages, one padded `round` to
every page per 100 ms naming the newest entry, glibc's malloc set as the bank's), in turn:

1. the server starts (nothing timed before it answers HTTP), then is put under the pressure;
2. PAGES team pages connect from 4 loopback addresses (bench/push/page_room.py: one reader thread; pages
   answer their pings; each offers permessage-deflate, as every browser does, and the report says how many
   the server agreed it with; --plain: no compression);
3. 10 harvests to warm it up, unmeasured, the same for both servers;
4. for each pace (--paces, default 2 and 20 a second) for SECONDS: 4 tablets book harvests at that pace;
   measured: harvests booked of those asked, pages dropped, tap-to-last-page (from the request's sending to
   the moment the last page held its entry, or a newer one) p50 and p99, how long after the last booking
   every page held it, the server tree's CPU per booked harvest, messages per page, the load average.

A room in which any page dropped is void: its line says how many, and no ratio is printed for it.
Ratios bank / floor are of the same pressure and pace in the same run.

    sudo .venv/bin/python bench/push/pages_under_pressure.py                # both pressures, 60 s a pace
    sudo .venv/bin/python bench/push/pages_under_pressure.py --pressure pi --seconds 30 --pages 200
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from page_room import Room, book_at_pace

import harness
import pi_budget
from bank.cli.serve_lean import ALLOCATOR
import proctree

BENCH = Path(__file__).resolve().parent.parent


def _cpu_seconds(pids: list) -> float:
    total = 0.0
    for pid in pids:
        try:
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        total += (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    return total


def _spin(stop) -> None:
    while not stop.is_set():
        sum(i * i for i in range(10_000))


class Pressure:
    """pi: a cgroup the server tree is moved into; busy: N spinning processes beside it."""

    def __init__(self, kind: str, spinners: int, core: int = 0):
        self.kind, self.spinners, self.budget, self.jailer, self.procs = kind, spinners, None, None, []
        self.core = core

    def apply(self, server_pid: int) -> None:
        if self.kind == "pi":
            self.budget = pi_budget.Budget(self.core, 2500, 10000)
            self.budget.admit(server_pid)
            self.jailer = pi_budget.Jailer(self.budget, server_pid)
            self.jailer.start()
        else:
            ctx = multiprocessing.get_context("fork")
            self.stop = ctx.Event()
            self.procs = [ctx.Process(target=_spin, args=(self.stop,), daemon=True) for _ in range(self.spinners)]
            for proc in self.procs:
                proc.start()

    def release(self) -> None:
        if self.jailer is not None:
            self.jailer.stop.set()
            self.jailer.join()
        if self.budget is not None:
            self.budget.remove()
        for proc in self.procs:
            self.stop.set()
            proc.join(timeout=5)
        self.budget = self.jailer = None
        self.procs = []

    def describe(self) -> str:
        return (f"core {self.core} at a 25% quota (pi_budget.Budget: 2.5 ms every 10 ms)" if self.kind == "pi"
                else f"{self.spinners} busy-loop processes beside the server, no quota")


def start_bank(folder: Path):
    server = harness.Server(folder).prepare().start()
    lead = harness.Api(server.url).login()
    lead.command("start", type="start_clock")
    _, tokens = lead.request("GET", "/api/teams/links")
    lead.close()
    return server.proc, server.port, server.url, tokens, lambda api: api.login()


def start_floor(folder: Path):
    argv = [sys.executable, str(BENCH / "auth_floor_server.py"), "--db", str(folder / "floor.db"), "--fanout"]
    proc, port = harness.launch(argv, folder / "floor.log", env=ALLOCATOR)  # malloc set as the bank's (serve_lean)
    url = f"http://127.0.0.1:{port}"
    tokens = {team: f"floor-{team}" for team in ("blue", "yellow", "red", "green")}  # the floor checks none
    return proc, port, url, tokens, lambda api: api.login("floor", "floor")


def measure(kind: str, start, pressure: Pressure, pages: int, paces: list, seconds: float,
            deflate: bool = True) -> dict:
    with tempfile.TemporaryDirectory() as tmp:
        proc, port, url, tokens, login = start(Path(tmp))
        room = None
        try:
            pressure.apply(proc.pid)
            room = Room(port, tokens, pages, deflate=deflate)
            time.sleep(3)
            book_at_pace(url, 10.0, 1.0, tablets=2, tag="warm", login=login)  # the same warm-up for both
            out = {"server": kind, "pages": pages, "compressed": room.compressed(), "paces": []}
            for pace in paces:
                tree = proctree.tree(proc.pid)
                cpu, messages = _cpu_seconds(tree), room.messages()
                booked, refused = book_at_pace(url, pace, seconds, tag=f"p{pace:g}-", login=login)
                done = time.monotonic()
                cpu = _cpu_seconds(tree) - cpu
                load = os.getloadavg()[0]
                last = booked[-1][0] if booked else 0
                while time.monotonic() < done + 30 and room.behind(last):
                    time.sleep(0.05)
                caught = time.monotonic() - done if not room.behind(last) else None
                taps = []
                for seq, sent in booked:
                    at = room.last_page_at(seq)
                    if at is not None:
                        taps.append(at - sent)
                taps.sort()
                out["paces"].append({
                    "pace": pace, "asked": round(pace * seconds), "booked": len(booked), "refused": len(refused),
                    "dropped": room.dropped(), "connected": pages - room.dropped(),
                    "tap_p50": statistics.median(taps) if taps else None,
                    "tap_p99": taps[min(len(taps) - 1, int(0.99 * len(taps)))] if taps else None,
                    "caught_up": caught, "cpu_ms_per_command": 1000 * cpu / max(1, len(booked)),
                    "messages": (room.messages() - messages) / pages, "load": load})
            return out
        finally:
            if room is not None:
                room.close()
            pressure.release()
            harness.end(proc)


def refused(pace: dict) -> str:
    return f" ({pace['refused']} refused or closed)" if pace["refused"] else ""


def report(pressure: Pressure, results: list) -> None:
    print(f"\n## {pressure.describe()}\n")
    print("| server | pace asked /s | booked / asked | pages kept (compressed) | tap-to-last-page p50 / p99 | all pages "
          "hold the last entry after | CPU per booked harvest | messages a page | load average at the end |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- | --- |")
    for r in results:
        for p in r["paces"]:
            fmt = lambda x: "-" if x is None else f"{x:.2f} s"  # noqa: E731
            print(f"| {r['server']} | {p['pace']:g} | {p['booked']} / {p['asked']}{refused(p)} | {p['connected']} of {r['pages']} "
                  f"({r['compressed']}) | {fmt(p['tap_p50'])} / {fmt(p['tap_p99'])} | {fmt(p['caught_up'])} | "
                  f"{p['cpu_ms_per_command']:.1f} ms | {p['messages']:.0f} | {p['load']:.1f} |")
    bank, floor = (next((r for r in results if r["server"] == name), None) for name in ("bank", "floor"))
    if bank and floor:
        for b, f in zip(bank["paces"], floor["paces"]):
            if b["dropped"] or f["dropped"]:
                print(f"\npace {b['pace']:g}/s: VOID, pages dropped (bank {b['dropped']}, floor {f['dropped']}): no ratio")
                continue
            ratio = lambda x, y: f"{x / y:.2f}x" if x and y else "-"  # noqa: E731
            print(f"\npace {b['pace']:g}/s, bank / floor: booked {ratio(b['booked'], f['booked'])}, tap p50 "
                  f"{ratio(b['tap_p50'], f['tap_p50'])}, p99 {ratio(b['tap_p99'], f['tap_p99'])}, CPU per harvest "
                  f"{ratio(b['cpu_ms_per_command'], f['cpu_ms_per_command'])}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pressure", default="pi,busy", help="pi, busy or both (default)")
    parser.add_argument("--pages", type=int, default=200)
    parser.add_argument("--paces", default="2,20", help="harvests asked per second, comma-separated")
    parser.add_argument("--seconds", type=float, default=60.0, help="of each pace")
    parser.add_argument("--spinners", type=int, default=4, help="busy-loop processes for --pressure busy")
    parser.add_argument("--servers", default="bank,floor")
    parser.add_argument("--plain", action="store_true", help="pages without permessage-deflate")
    parser.add_argument("--core", type=int, default=0, help="the core of --pressure pi (runs side by side: 0 and 1)")
    parser.add_argument("--json", help="append each run's results to this file, a JSON line a server")
    args = parser.parse_args()
    paces = [float(x) for x in args.paces.split(",")]
    starts = {"bank": start_bank, "floor": start_floor}
    print(f"# Pages kept under pressure: {args.pages} pages, paces {args.paces} a second for {args.seconds:g} s each; "
          f"commit {subprocess.run(['git', 'rev-parse', '--short', 'HEAD'], capture_output=True, text=True).stdout.strip()}, "
          f"load average {os.getloadavg()[0]:.1f}")
    for kind in args.pressure.split(","):
        pressure = Pressure(kind, args.spinners, args.core)
        results = [measure(name, starts[name], pressure, args.pages, paces, args.seconds, not args.plain)
                   for name in args.servers.split(",")]
        if args.json:
            with open(args.json, "a") as out:
                for r in results:
                    out.write(json.dumps({"pressure": kind, **r}) + "\n")
        report(pressure, results)
    print(f"\nload average at the end {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
