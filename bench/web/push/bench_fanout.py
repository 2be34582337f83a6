"""Fan-out: from a command's HTTP reply to the LAST of 200 live pages showing it.

Subject: a real `terrabank serve` (bench/harness.Server) with 200 Socket.IO clients
(bench/clients.py: mostly team phones over the 4 teams, 2 big screens, 3 consoles),
and a facilitator posting harvests to /api/commands (harness.Api). For each
command: t_ack = when its reply arrived; t_last = when the last client had every
message it is due carrying that seq (phone: public + team, screen: public,
console: public + journal; these are the parts of one `round` message per page, as
today's live.js reads them, and the floor sends the same shape). Figure: t_last - t_ack (and t_last - t_send).

Floor: bench/fanout_floor.py, a bare Flask-SocketIO server on the bank's own stack
(Gunicorn's master and guarded gthread worker, the bank's limits) that emits payloads captured
from the bank in this run (same rooms, same sizes: the bank's messages are patches, so are the
floor's) and
then replies, to a second fleet of 200 clients in this process. Both get the same
warm-up (10 harvests each, unmeasured). Floor and bank commands alternate in blocks,
so the machine's drift hits both alike. The floor emits BEFORE it replies and the
bank after, so only "send -> last client" compares like for like. `--runs` runs
(default 5) of `--commands` each on the same two servers: the report gives each
ratio's median over the runs with its range, and the figures of all runs pooled.

Memory: the whole process tree of each server (Gunicorn's master + worker, RSS and
PSS, bench/proctree.py) with the clients connected, after the runs.

Bytes: every client adds up the frames of its updates (public, team,
journal) as the server put them on the wire, and what permessage-deflate would
have made of them (bench/clients.Deflated). Reported per booked command for the
harvests above and for the soak's command mix (bench/bench_soak.pick_command,
refusals included: they send nothing).

    .venv/bin/python bench/web/push/bench_fanout.py            # 5 runs of 100 commands each, 300 of the mix
    .venv/bin/python bench/web/push/bench_fanout.py --quick    # 5 runs of 30 commands each, 100 of the mix
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # bench/: the shared modules
from mix import pick_command
from clients import Fleet, lead_cookie_and_tokens
from harness import Api, Server, end, launch, machine
from figures import percentile
import proctree

HERE = Path(__file__).resolve().parents[2]
HARVESTERS = ["harvester-1", "harvester-2"]
RESOURCES = ["water", "flora", "dioxygen", "fauna", "energy"]


def harvest(i: int, teams: list) -> dict:
    return {"type": "harvest", "team": teams[i % len(teams)], "card": HARVESTERS[i // 4 % 2],
            "resource": RESOURCES[i % 5]}


class FloorServer:
    """bench/fanout_floor.py in its own process, on a port it binds itself (harness.launch reads it)."""

    def __init__(self, folder: Path, payloads: dict):
        path = folder / "payloads.json"
        path.write_text(json.dumps(payloads))
        self.proc, self.port = launch([sys.executable, str(HERE / "fanout_floor.py"), "--payloads", str(path)],
                                      folder / "floor.log")
        self.url = f"http://127.0.0.1:{self.port}"

    def stop(self) -> None:
        end(self.proc)


def capture(fleet: Fleet) -> dict:
    """Real payloads as the bank sent them: public, each team's, the last journal message."""
    payloads = {"team": {}}
    for c in fleet.clients:
        if "public" in c.last:
            payloads["public"] = c.last["public"]
        if c.kind == "phone" and "team" in c.last:
            payloads["team"][c.team] = c.last["team"]
        if c.kind == "facilitator" and "journal" in c.last:
            payloads["journal"] = c.last["journal"]
    return payloads


def one(api: Api, fleet: Fleet, key: str, command: dict) -> tuple[float, float, float]:
    """(ms send->reply, ms reply->last client, ms send->last client) for one command."""
    sent = time.monotonic()
    status, body = api.command(key, **command)
    acked = time.monotonic()
    if status != 200 or body.get("duplicate"):
        raise RuntimeError(f"{command['type']} answered {status}: {body}")
    last = fleet.wait_for(body["seq"], timeout=30)
    if last is None:
        lagging = fleet.lagging(body["seq"])
        raise RuntimeError(f"{len(lagging)} clients never got seq {body['seq']}")
    return (acked - sent) * 1000, (last - acked) * 1000, (last - sent) * 1000


def measure(subjects: dict, commands: int, block: int, gap: float, teams: list, tag: str = "") -> dict:
    """{subject: [(reply, fanout, total) ms...]}, subjects alternating in blocks (a block may run past `commands`).
    `tag` makes each run's Idempotency-Keys its own (a key sent again gets the first reply: a duplicate)."""
    times = {name: [] for name in subjects}
    i = 0
    while min(len(t) for t in times.values()) < commands:
        order = list(subjects) if (i // block) % 2 == 0 else list(reversed(subjects))
        for name in order:
            api, fleet = subjects[name]
            for _ in range(block):
                i += 1
                times[name].append(one(api, fleet, f"{name}{tag}-{i}", harvest(i, teams)))
                time.sleep(gap)  # isolated commands: this measures latency, not throughput
    return times


def soak_mix(api: Api, fleet: Fleet, teams: list, commands: int, seed: int = 14) -> dict:
    """The soak's mix of commands, one at a time; the bytes the fleet received for them."""
    rng, booked, before = random.Random(seed), 0, fleet.wire_bytes()
    for i in range(commands):
        _, command, _ = pick_command(rng, teams)
        status, body = api.command(f"mix-{i}", **command)
        if status == 200:
            booked += 1
            if fleet.wait_for(body["seq"], timeout=30) is None:
                raise RuntimeError(f"{len(fleet.lagging(body['seq']))} clients never got seq {body['seq']}")
        else:
            time.sleep(0.15)  # a refusal sends nothing; a round it might have caused would show here
    plain, deflated = (after - was for after, was in zip(fleet.wire_bytes(), before))
    return {"commands": commands, "booked": booked, "plain": plain, "deflated": deflated}


def bytes_line(label: str, measured: dict, n: int) -> str:
    per = lambda key, count: measured[key] / max(1, count) / 1024  # noqa: E731
    return (f"| {label} | {measured['commands']} ({measured['booked']} booked) | "
            f"{per('plain', measured['booked']):,.1f} KB | {per('deflated', measured['booked']):,.1f} KB | "
            f"{per('plain', measured['commands']):,.1f} KB |")


def ratios(runs: list, k: int) -> dict:
    """Per run: (p50 ratio, p99 ratio) bank / floor of measure k; their medians and ranges, and the pooled figures."""
    per = []
    for times in runs:
        f, b = [t[k] for t in times["floor"]], [t[k] for t in times["bank"]]
        per.append({"f50": statistics.median(f), "b50": statistics.median(b), "f99": percentile(f, 99),
                    "b99": percentile(b, 99)})
    r50 = [x["b50"] / x["f50"] for x in per]
    r99 = [x["b99"] / x["f99"] for x in per]
    pooled = {side: [t[k] for times in runs for t in times[side]] for side in ("floor", "bank")}
    return {"per": per, "r50": r50, "r99": r99, "pooled": pooled}


def spread(values: list, fmt: str = "{:.2f}x") -> str:
    """median (min-max, n)."""
    return (f"{fmt.format(statistics.median(values))} ({fmt.format(min(values))}-{fmt.format(max(values))}, "
            f"n={len(values)})")


def memory_lines(mem: dict, n: int) -> list:
    lines = [f"Memory with {n} clients, whole process tree (Gunicorn master + worker; RSS counts shared pages in "
             "each process, PSS splits them):", "", "| server | tree PSS | tree RSS | per process (RSS / PSS) |",
             "| --- | --- | --- | --- |"]
    for name, (pss, rss, procs) in mem.items():
        each = "; ".join(f"{label} {r:.1f} / {p:.1f}" for _, label, r, p in procs)
        lines.append(f"| {name} | {pss:.1f} MB | {rss:.1f} MB | {each} |")
    return lines


def report(runs: list, n: int, mem: dict, args: list, wire: dict) -> str:
    lines = [f"Fan-out to {n} clients: {len(runs)} runs of {len(runs[0]['bank'])} harvests to each server, the "
             "bank and the Gunicorn fan-out floor alternating in blocks (ms).", "",
             "| measure | floor p50 | bank p50 | p50 ratio, median (range, n runs) | floor p99 | bank p99 | "
             "p99 ratio, median (range, n runs) | pooled p50 / p99 ratio |",
             "| --- | --- | --- | --- | --- | --- | --- | --- |"]
    for k, label in ((2, "send -> last client"), (1, "reply -> last client (floor emits first: not like for like)"),
                     (0, "send -> reply (HTTP)")):
        r = ratios(runs, k)
        med = lambda key: statistics.median(x[key] for x in r["per"])  # noqa: E731
        pf, pb = r["pooled"]["floor"], r["pooled"]["bank"]
        lines.append(f"| {label} | {med('f50'):.1f} | {med('b50'):.1f} | {spread(r['r50'])} | {med('f99'):.1f} | "
                     f"{med('b99'):.1f} | {spread(r['r99'])} | {statistics.median(pb) / statistics.median(pf):.2f}x / "
                     f"{percentile(pb, 99) / percentile(pf, 99):.2f}x |")
    lines += ["", "Per run, send -> last client (ms): " + "; ".join(
        f"run {i + 1}: floor {x['f50']:.0f} / {x['f99']:.0f}, bank {x['b50']:.0f} / {x['b99']:.0f}"
        for i, x in enumerate(ratios(runs, 2)["per"]))]
    if wire:
        lines += ["", f"Bytes of updates put on the wire to the {n} clients, per command (downlink frames only; "
                  "bench/web/push/bench_bytes.py counts both ways at the socket):", "",
                  "| commands | sent | per booked command | with permessage-deflate | per command sent |",
                  "| --- | --- | --- | --- | --- |", bytes_line("harvests (above)", wire["harvests"], n)]
        if "mix" in wire:
            lines.append(bytes_line("the soak's mix", wire["mix"], n))
    lines += ["", *memory_lines(mem, n),
              "", "Target (P2): send -> last of 200 pages p99 <= 1.2x the Gunicorn fan-out floor "
              "(median of >= 5 runs).",
              "", f"Command: `{' '.join(['.venv/bin/python', 'bench/web/push/bench_fanout.py', *args])}`",
              f"Machine: {machine()}"]
    return "\n".join(lines)


def tree_memory(pid: int) -> tuple:
    """(PSS, RSS, [(pid, label, RSS, PSS)]) of a server's whole process tree, MB."""
    return proctree.pss_mb(pid), proctree.rss_mb(pid), proctree.processes(pid)


def main() -> None:
    parser = argparse.ArgumentParser(description="fan-out latency to 200 Socket.IO clients against a Gunicorn floor")
    parser.add_argument("--quick", action="store_true", help="runs of 30 commands instead of 100")
    parser.add_argument("--runs", type=int, default=5, help="runs (the report's median and range; at least 5)")
    parser.add_argument("--commands", type=int, help="commands per subject and run (default 100, 30 with --quick)")
    parser.add_argument("--clients", type=int, default=200)
    parser.add_argument("--block", type=int, default=10, help="commands in a row to one subject before switching")
    parser.add_argument("--gap", type=float, default=0.05, help="seconds between commands")
    parser.add_argument("--mix", type=int,
                        help="commands of the soak's mix for the bytes (default 300, 100 with --quick; 0: none)")
    parser.add_argument("--json", type=Path, help="also write the figures here (bench/system/pi_budget.py reads them)")
    args = parser.parse_args()
    commands = args.commands or (30 if args.quick else 100)
    mix = 100 if args.mix is None and args.quick else 300 if args.mix is None else args.mix
    with tempfile.TemporaryDirectory(prefix="terrabank-fanout-") as tmp:
        folder = Path(tmp)
        floor, fleets = None, []
        with Server(folder / "bank").prepare().start() as server:
            try:
                bank = Api(server.url).login()
                bank.command("start", type="start_clock")
                cookie, tokens = lead_cookie_and_tokens(bank)
                teams = list(tokens)
                bank_fleet = Fleet(server.url, tokens, cookie, n=args.clients, count_bytes=True).start()
                fleets.append(bank_fleet)
                for i in range(10):  # warm-up, and real payloads to give the floor
                    one(bank, bank_fleet, f"warm-{i}", harvest(i, teams))
                captured = capture(bank_fleet)
                floor = FloorServer(folder, captured)
                floor_api = Api(floor.url)
                floor_fleet = Fleet(floor.url, {t: t for t in teams}, "session=floor", n=args.clients,
                                    count_bytes=True).start()
                fleets.append(floor_fleet)
                for i in range(10):  # the same warm-up as the bank's
                    one(floor_api, floor_fleet, f"warm-{i}", harvest(i, teams))
                started = time.monotonic()
                before = bank_fleet.wire_bytes()
                runs, harvests = [], 0
                for run in range(args.runs):
                    times = measure({"floor": (floor_api, floor_fleet), "bank": (bank, bank_fleet)},
                                    commands, args.block, args.gap, teams, tag=f"-run{run}")
                    harvests += len(times["bank"])  # every harvest sent to the bank, for its bytes
                    runs.append({name: t[:commands] for name, t in times.items()})
                    r = ratios(runs[-1:], 2)
                    print(f"run {run + 1}/{args.runs}: send -> last client p50 {r['r50'][0]:.2f}x, "
                          f"p99 {r['r99'][0]:.2f}x", file=sys.stderr, flush=True)
                plain, deflated = (a - b for a, b in zip(bank_fleet.wire_bytes(), before))
                wire = {"harvests": {"commands": harvests, "booked": harvests, "plain": plain, "deflated": deflated}}
                mem = {"bank (terrabank serve)": tree_memory(server.pid), "fan-out floor": tree_memory(floor.proc.pid)}
                if mix:
                    wire["mix"] = soak_mix(bank, bank_fleet, teams, mix)
                elapsed = time.monotonic() - started
                drops = bank_fleet.disconnects() + floor_fleet.disconnects()
            finally:
                for fleet in fleets:
                    fleet.stop()
                if floor is not None:
                    floor.stop()
    print(report(runs, args.clients, mem, sys.argv[1:], wire))
    print(f"\n(run took {elapsed:.0f} s; client disconnects during the run: {drops})")
    r = ratios(runs, 2)
    figures = {"clients": args.clients, "runs": len(runs), "commands": commands, "r50": r["r50"], "r99": r["r99"],
               "per": r["per"], "memory": {k: {"pss": v[0], "rss": v[1]} for k, v in mem.items()},
               "drops": drops, "seconds": elapsed}
    if args.json:
        args.json.write_text(json.dumps(figures, indent=1))
    json.dump(runs, open(Path(tempfile.gettempdir()) / "bench_fanout_last.json", "w"))


if __name__ == "__main__":
    main()
