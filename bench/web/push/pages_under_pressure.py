"""Pages kept under pressure: 200 live pages, a game day's pace and a peak, the bank against the
authenticated floor with fan-out, on a Raspberry Pi's budget and on this machine with busy-loop processes.

For each pressure (--pressure pi: the served process tree in pi_budget's cgroup, a quarter of one core;
busy: N processes spinning beside the server, no cgroup) and each server (the bank, `terrabank serve`;
the floor, bench/auth_floor_server.py --fanout: its own Gunicorn stack and pages, at most one `round` to
every page per 100 ms naming the newest entry, glibc's malloc set as the bank's), in turn:

1. the server starts (nothing timed before it answers HTTP), then is put under the pressure;
2. PAGES team pages connect from 4 loopback addresses (bench/web/push/page_room.py: one reader thread; pages
   answer their pings; each offers permessage-deflate, as every browser does, and the report says how many
   the server agreed it with; --plain: no compression);
3. 10 harvests to warm it up, unmeasured, the same for both servers;
4. for each pace (--paces, default 2 and 20 a second) for SECONDS: 4 tablets book harvests at that pace;
   measured: harvests booked of those asked, pages dropped, tap-to-last-page (from the request's sending to
   the moment the last page held its entry, or a newer one) p50 and p99, how long after the last booking
   every page held it, the server tree's CPU per booked harvest, messages per page, the load average.

A room in which any page dropped is void: its line says how many, and no ratio is printed for it.
Ratios bank / floor are of the same pressure and pace in the same run.

What cannot flatter:
- the floor sends the bank's own messages: the `round` messages the bank's pages got in this run (page_room.Room.
  samples, the last 64 of each team), each team's to its team's pages, every `seq` set to the newest entry, so
  both put the same shape and bytes through the same compressor (--shape FILE keeps them for a floor run alone);
- CPU is given per booked harvest AND per round (a round: one message to every page, covering every harvest
  booked since the last): at 20/s the floor reaches its quota, and per harvest alone is then only the booked
  ratio inverted;
- the tap percentiles are over EVERY booked harvest: one that some page never held (dropped, or still behind
  30 s after the pace) counts as never, and the line says how many;
- the room fits the admission of the config used: a page over a link's share is refused (the shipped config:
  50 + 10 a team link, 240 for 4 teams); a bigger room runs on a copy of config.toml whose phones_per_team
  lets it in, and the report names it.
    sudo .venv/bin/python bench/web/push/pages_under_pressure.py                # both pressures, 60 s a pace
    sudo .venv/bin/python bench/web/push/pages_under_pressure.py --pressure pi --seconds 30 --pages 200
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # bench/: the shared modules
sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "system"))  # pi_budget
from page_room import Room, book_at_pace

import harness
import pi_budget
from bank.cli.serve_lean import ALLOCATOR
from bank.web.serving.limits import Limits
import proctree

BENCH = Path(__file__).resolve().parents[2]
# A server starts slowly on a loaded machine (load 40-60 here): nothing is timed before it answers.
harness.launch.__defaults__ = (120.0, None)


def _cpu_seconds(pids: list) -> float:
    """CPU of the processes, with that of their children that ended (the bank draws its state sheets in a
    child process that exits: its time is the bank's)."""
    total = 0.0
    for pid in pids:
        try:
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        total += sum(int(f) for f in fields[11:15]) / os.sysconf("SC_CLK_TCK")  # utime stime cutime cstime
    return total


def _cmdline(pid: int) -> bytes:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:  # it ended meanwhile
        return b""


def settled(folder: Path, pid: int, limit: float = 120.0) -> None:
    """Wait until the bank's first state sheet is on disk and its drawing child gone (bank/web/field/
    paper_writer.py writes one seconds after the start, then at a session end or every few minutes):
    a one-off at the start, not a cost of the harvests or the pages measured after it."""
    end = time.monotonic() + limit
    while time.monotonic() < end:
        drawing = any(b"state_child" in _cmdline(p) for p in proctree.tree(pid))
        if not drawing and any(folder.rglob("game-state-*.pdf")):
            return
        time.sleep(0.2)


def _spin(stop) -> None:
    while not stop.is_set():
        sum(i * i for i in range(10_000))


class Pressure:
    """pi: a cgroup the server tree is moved into; busy: N spinning processes beside it."""

    def __init__(self, kind: str, spinners: int, core: int = 0):
        self.kind, self.spinners, self.budget, self.jailer, self.procs = kind, spinners, None, None, []
        self.core, self.phones = core, None

    def apply(self, server_pid: int) -> None:
        if self.kind == "pi":
            self.budget = pi_budget.Budget(self.core, 2500, 10000)
            self.budget.admit(server_pid)
            self.jailer = pi_budget.Jailer(self.budget, server_pid)
            self.jailer.start()
            if (os.cpu_count() or 1) > 1:  # the phones on the other core, protected as the server's share is
                self.phones = pi_budget.Phones(1 - self.core if self.core < 2 else 0)
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
        if self.phones is not None:
            self.phones.release()
        for proc in self.procs:
            self.stop.set()
            proc.join(timeout=5)
        self.budget = self.jailer = self.phones = None
        self.procs = []

    def describe(self) -> str:
        return (f"core {self.core} at a 25% quota (pi_budget.Budget: 2.5 ms every 10 ms); the phones (this process) "
                "on the other core, protected (pi_budget.Phones)" if self.kind == "pi"
                else f"{self.spinners} busy-loop processes beside the server, no quota")


TEAMS = 4  # the shipped config's teams; page_room spreads the pages over them
PER_ADDRESS = Limits().per_address  # connections from one client address (the worker's cap)


def addresses_for(pages: int) -> int:
    """Loopback addresses a room of `pages` comes from: 4 (phones behind several access points), more for a
    big room, so that no address nears the worker's cap (each page holds a connection for its life)."""
    return max(4, -(-pages // (PER_ADDRESS - 50)))


def admission(pages: int, folder: Path, addresses: int | None = None) -> tuple[str, str]:
    """(config file, what it admits) for a room of `pages` from `addresses` client addresses (addresses_for): config.toml
    when its links admit them, else a copy with phones_per_team raised (what a game of that size would set:
    `terrabank serve` then lets in every page its links and the big screen's key may hold, bank/cli/serve.py
    game_limits); a room over the cap per address is refused."""
    addresses = addresses or addresses_for(pages)
    if -(-pages // addresses) > PER_ADDRESS:
        sys.exit(f"{pages} pages from {addresses} addresses exceed the server's cap of {PER_ADDRESS} connections an "
                 "address (bank/web/serving/limits.Limits): every extra page would be refused")
    shipped = harness.CONFIG
    per_link = -(-pages // TEAMS)
    text = Path(shipped).read_text()
    if per_link <= 60:
        return shipped, f"config.toml as shipped (50 + 10 pages a team link: {pages} pages need {per_link})"
    copy = folder / "config.toml"
    copy.write_text(text.replace("phones_per_team = 50", f"phones_per_team = {per_link - 10}", 1))
    live = Limits().for_pages(per_link * (TEAMS + 1))
    return str(copy), (f"config.toml with phones_per_team = {per_link - 10} (+ 10: {per_link} pages a link; the "
                       f"server then admits {live.live_pages_at_once()} live pages on {live.max_connections} "
                       f"connections), from {addresses} addresses")


def start_bank(folder: Path, config: str = harness.CONFIG, pages: int = 0):
    server = harness.Server(folder, config=config).prepare().start()
    lead = harness.Api(server.url).login()
    lead.command("start", type="start_clock")
    _, tokens = lead.request("GET", "/api/teams/links")
    lead.close()
    return server.proc, server.port, server.url, tokens, lambda api: api.login()


def start_floor(folder: Path, config: str = harness.CONFIG, pages: int = 0):
    """The floor, letting in as many pages as the bank's config would (`pages`: the room's, all anonymous there)."""
    argv = [sys.executable, str(BENCH / "auth_floor_server.py"), "--db", str(folder / "floor.db"), "--fanout",
            "--pages", str(pages)]
    proc, port = harness.launch(argv, folder / "floor.log", env=ALLOCATOR)  # malloc set as the bank's (serve_lean)
    url = f"http://127.0.0.1:{port}"
    tokens = {team: f"floor-{team}" for team in ("blue", "yellow", "red", "green")}  # the floor checks none
    return proc, port, url, tokens, lambda api: api.login("floor", "floor")


def tap_percentiles(booked: list, held_at) -> dict:
    """p50 and p99 of tap-to-last-page over every booked harvest [(seq, sent)]; `held_at(seq)`: when the last page
    held it, None if one never did: counted as never (inf), so a percentile it reaches is None ("never")."""
    taps = sorted((at - sent) if at is not None else float("inf") for seq, sent in booked for at in [held_at(seq)])
    pick = lambda q: taps[min(len(taps) - 1, int(q * len(taps)))] if taps else None  # noqa: E731
    finite = lambda x: None if x is None or x == float("inf") else x  # noqa: E731
    return {"tap_p50": finite(pick(0.5)), "tap_p99": finite(pick(0.99)),
            "never_held": sum(t == float("inf") for t in taps)}


def measure(kind: str, start, pressure: Pressure, pages: int, paces: list, seconds: float,
            deflate: bool = True, shape: dict | None = None) -> dict:
    with tempfile.TemporaryDirectory() as tmp:
        config, admits = admission(pages, Path(tmp))
        proc, port, url, tokens, login = start(Path(tmp), config, pages)
        room = None
        try:
            if kind == "floor":
                if not shape:
                    sys.exit("the floor sends the bank's own messages: run the bank first in the same run "
                             "(--servers bank,floor) or give --shape FILE from an earlier run")
                api = harness.Api(url)
                login(api)
                status, reply = api.request("POST", "/bench/fanout", {"rounds": shape})
                api.close()
                if status != 200:
                    sys.exit(f"the floor refused the bank's messages: {status} {reply}")
            pressure.apply(proc.pid)
            room = Room(port, tokens, pages, addresses=addresses_for(pages), deflate=deflate)
            time.sleep(3)
            if kind == "bank":
                settled(Path(tmp), proc.pid)
            book_at_pace(url, 10.0, 1.0, tablets=2, tag="warm", login=login)  # the same warm-up for both
            out = {"server": kind, "pages": pages, "compressed": room.compressed(), "admission": admits, "paces": []}
            for pace in paces:
                tree = proctree.tree(proc.pid)
                mark = {}
                ready = lambda: mark.update(cpu=_cpu_seconds(tree), messages=room.messages())  # noqa: E731 (logged in)
                booked, refused = book_at_pace(url, pace, seconds, tag=f"p{pace:g}-", login=login, ready=ready)
                cpu, messages = mark["cpu"], mark["messages"]
                done = time.monotonic()
                cpu = _cpu_seconds(tree) - cpu
                load = os.getloadavg()[0]
                last = booked[-1][0] if booked else 0
                while time.monotonic() < done + 30 and room.behind(last):
                    time.sleep(0.05)
                caught = time.monotonic() - done if not room.behind(last) else None
                rounds = (room.messages() - messages) / pages  # messages a page: one a round
                out["paces"].append({
                    "pace": pace, "asked": round(pace * seconds), "booked": len(booked), "refused": len(refused),
                    "dropped": room.dropped(), "connected": pages - room.dropped(),
                    **tap_percentiles(booked, room.last_page_at),
                    "caught_up": caught, "cpu_ms_per_command": 1000 * cpu / max(1, len(booked)),
                    "cpu_ms_per_round": 1000 * cpu / max(1.0, rounds),
                    "messages": rounds, "load": load})
            if kind == "bank":
                out["shape"] = {team: list(messages) for team, messages in room.samples.items() if messages}
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
    for r in results:
        print(f"{r['server']}: {r['admission']}")
    print("\n| server | pace asked /s | booked / asked | pages kept (compressed) | tap-to-last-page p50 / p99 (never held) "
          "| all pages hold the last entry after | CPU per booked harvest | CPU per round | rounds (messages a page) "
          "| load average at the end |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |")
    for r in results:
        for p in r["paces"]:
            fmt = lambda x: "never" if x is None else f"{x:.2f} s"  # noqa: E731
            print(f"| {r['server']} | {p['pace']:g} | {p['booked']} / {p['asked']}{refused(p)} | {p['connected']} of {r['pages']} "
                  f"({r['compressed']}) | {fmt(p['tap_p50'])} / {fmt(p['tap_p99'])} ({p['never_held']}) | "
                  f"{fmt(p['caught_up'])} | {p['cpu_ms_per_command']:.1f} ms | {p['cpu_ms_per_round']:.1f} ms | "
                  f"{p['messages']:.0f} | {p['load']:.1f} |")
    bank, floor = (next((r for r in results if r["server"] == name), None) for name in ("bank", "floor"))
    if bank and floor:
        for b, f in zip(bank["paces"], floor["paces"]):
            if b["dropped"] or f["dropped"]:
                print(f"\npace {b['pace']:g}/s: VOID, pages dropped (bank {b['dropped']}, floor {f['dropped']}): no ratio")
                continue
            ratio = lambda x, y: f"{x / y:.2f}x" if x and y else "-"  # noqa: E731
            print(f"\npace {b['pace']:g}/s, bank / floor: booked {ratio(b['booked'], f['booked'])}, tap p50 "
                  f"{ratio(b['tap_p50'], f['tap_p50'])}, p99 {ratio(b['tap_p99'], f['tap_p99'])} (never held: bank "
                  f"{b['never_held']}, floor {f['never_held']}), CPU per harvest "
                  f"{ratio(b['cpu_ms_per_command'], f['cpu_ms_per_command'])}, CPU per round "
                  f"{ratio(b['cpu_ms_per_round'], f['cpu_ms_per_round'])}")


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
    parser.add_argument("--shape", help="JSON file of the bank's `round` messages {team: [...]}: read for a floor run "
                        "without the bank, written after a bank run")
    parser.add_argument("--record", action="store_true",
                        help="keep a big room's figures (--pages over 200, --pressure pi, bank and floor, paces 2 and 20) "
                             "as the last measured (bench/results/08c_pages_<N>.json) and make docs/PERFORMANCE.md's table again")
    args = parser.parse_args()
    paces = [float(x) for x in args.paces.split(",")]
    starts = {"bank": start_bank, "floor": start_floor}
    print(f"# Pages kept under pressure: {args.pages} pages, paces {args.paces} a second for {args.seconds:g} s each; "
          f"commit {subprocess.run(['git', 'rev-parse', '--short', 'HEAD'], capture_output=True, text=True).stdout.strip()}, "
          f"load average {os.getloadavg()[0]:.1f}")
    for kind in args.pressure.split(","):
        pressure = Pressure(kind, args.spinners, args.core)
        shape = json.loads(Path(args.shape).read_text()) if args.shape and Path(args.shape).exists() else None
        results = []
        for name in args.servers.split(","):
            results.append(measure(name, starts[name], pressure, args.pages, paces, args.seconds, not args.plain, shape))
            if name == "bank":
                shape = results[-1].pop("shape") or shape
                if args.shape:
                    Path(args.shape).write_text(json.dumps(shape))
        if args.json:
            with open(args.json, "a") as out:
                for r in results:
                    out.write(json.dumps({"pressure": kind, **r}) + "\n")
        report(pressure, results)
        if args.record and kind == "pi":
            keep(results, args, sys.argv[1:])
    print(f"\nload average at the end {os.getloadavg()[0]:.1f}")


def keep(results: list, args, argv: list) -> None:
    """A big room's rows of docs/PERFORMANCE.md: pages kept, and every page current within 5 s at 2 and 20 a second."""
    import record  # bench/record.py, on the path with the shared modules

    bank, floor = (next(r for r in results if r["server"] == name) for name in ("bank", "floor"))
    at = lambda r, pace: next(p for p in r["paces"] if p["pace"] == pace)  # noqa: E731
    n, few = args.pages, lambda x: "never" if x is None else f"{x:.2f} s"  # noqa: E731
    fmt = f"{n:,}"
    rows = [{"figure": f"{fmt} pages on a Pi's budget: pages kept, at 2 and 20 harvests a second (the floor kept "
                       f"{min(p['connected'] for p in floor['paces']):,})",
             "value": min(p["connected"] for p in bank["paces"]), "unit": "", "goal": "==", "limit": n}]
    for pace in (2.0, 20.0):
        b, f = at(bank, pace), at(floor, pace)
        never = f"; never held: {b['never_held']}" if b["never_held"] else ""
        rounds = (f", a round {b['cpu_ms_per_round'] / f['cpu_ms_per_round']:.2f}x: {b['messages']:.0f} rounds a page "
                  f"against {f['messages']:.0f}" if pace > 2 else "")
        rows.append({"figure": f"{fmt} pages: tap to the last page, p99, at {pace:g} harvests a second (floor "
                               f"{few(f['tap_p99'])}; CPU per harvest {b['cpu_ms_per_command'] / f['cpu_ms_per_command']:.2f}x "
                               f"the floor's{rounds}{never})",
                     "value": round(b["tap_p99"], 2) if b["tap_p99"] is not None else 999.0, "unit": "s", "goal": "<=",
                     "limit": 5})
    loads = [p["load"] for r in results for p in r["paces"]]
    command = " ".join([".venv/bin/python", record.script(__file__), *(a for a in argv if a != "--record")])
    measured = (f"{time.strftime('%Y-%m-%d')}, {bank['admission']}; {args.seconds:g} s a pace after the tablets logged in; "
                f"bank then floor in one run on a protected quarter core, the phones protected on the other core, "
                f"load {min(loads):.0f}-{max(loads):.0f}; every harvest counted in the percentiles")
    (record.RESULTS / f"08c_pages_{n}.json").unlink(missing_ok=True)
    print(record.record(f"08c_pages_{n}", rows, command=command, measured=measured))
    record.main_table()


if __name__ == "__main__":
    main()
