"""Fan-out: from a command's HTTP reply to the LAST of 200 live pages showing it.

Subject: a real `terrabank serve` (bench/harness.Server) with 200 Socket.IO clients
(bench/clients.py: mostly team phones over the 4 teams, 2 big screens, 3 consoles),
and a facilitator posting harvests to /api/commands (harness.Api). For each
command: t_ack = when its reply arrived; t_last = when the last client had every
message it is due carrying that seq (phone: public + team, screen: public,
console: public + journal). Figure: t_last - t_ack (and t_last - t_send).

Floor: bench/fanout_floor.py, a bare Flask-SocketIO server on the same stack that
emits payloads captured from the bank in this run (same rooms, same sizes: since
issue 14 the bank's messages are patches, so are the floor's) and then replies, to
a second fleet of 200 clients in this process. Floor and bank commands alternate in
blocks, so the machine's drift hits both alike. The floor emits BEFORE it replies
and the bank after, so only "send -> last client" compares like for like.

Bytes (issue 14): every client adds up the frames of its updates (public, team,
journal) as the server put them on the wire, and what permessage-deflate would
have made of them (bench/clients.Deflated). Reported per booked command for the
harvests above and for the soak's command mix (bench/bench_soak.pick_command,
refusals included: they send nothing).

    .venv/bin/python bench/bench_fanout.py            # 300 commands each, 300 of the mix
    .venv/bin/python bench/bench_fanout.py --quick    # 60 commands each, 100 of the mix
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

from bench_soak import pick_command
from clients import Fleet, lead_cookie_and_tokens
from harness import Api, Server, end, launch, machine, rss_mb

HERE = Path(__file__).resolve().parent
HARVESTERS = ["harvester-1", "harvester-2"]
RESOURCES = ["water", "flora", "dioxygen", "fauna", "energy"]


def percentile(values: list, p: float) -> float:
    """Nearest-rank percentile."""
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(p / 100 * len(ordered) + 0.5) - 1))]


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
    if status != 200:
        raise RuntimeError(f"{command['type']} answered {status}: {body}")
    last = fleet.wait_for(body["seq"], timeout=30)
    if last is None:
        lagging = fleet.lagging(body["seq"])
        raise RuntimeError(f"{len(lagging)} clients never got seq {body['seq']}")
    return (acked - sent) * 1000, (last - acked) * 1000, (last - sent) * 1000


def measure(subjects: dict, commands: int, block: int, gap: float, teams: list) -> dict:
    """{subject: [(reply, fanout, total) ms...]}, subjects alternating in blocks (a block may run past `commands`)."""
    times = {name: [] for name in subjects}
    i = 0
    while min(len(t) for t in times.values()) < commands:
        order = list(subjects) if (i // block) % 2 == 0 else list(reversed(subjects))
        for name in order:
            api, fleet = subjects[name]
            for _ in range(block):
                i += 1
                times[name].append(one(api, fleet, f"{name}-{i}", harvest(i, teams)))
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


def report(times: dict, n: int, rss: dict, args: list, wire: dict) -> str:
    col = lambda name, k: [t[k] for t in times[name]]  # noqa: E731
    lines = [f"Fan-out to {n} clients, {len(times['bank'])} harvests each (ms).", "",
             "| measure | floor p50 | bank p50 | p50 ratio | floor p99 | bank p99 | p99 ratio |",
             "| --- | --- | --- | --- | --- | --- | --- |"]
    for k, label in ((2, "send -> last client"), (1, "reply -> last client (floor emits first: not like for like)"),
                     (0, "send -> reply (HTTP)")):
        f, b = col("floor", k), col("bank", k)
        f50, b50, f99, b99 = statistics.median(f), statistics.median(b), percentile(f, 99), percentile(b, 99)
        lines.append(f"| {label} | {f50:.1f} | {b50:.1f} | {b50 / f50:.2f}x | {f99:.1f} | {b99:.1f} | {b99 / f99:.2f}x |")
    lines += ["", f"Bytes of updates put on the wire to the {n} clients, per command:", "",
              "| commands | sent | per booked command | with permessage-deflate | per command sent |",
              "| --- | --- | --- | --- | --- |",
              bytes_line("harvests (above)", wire["harvests"], n), bytes_line("the soak's mix", wire["mix"], n),
              "", f"Server RSS with {n} clients: bank {rss['bank']:.1f} MB, floor {rss['floor']:.1f} MB.",
              "", "Targets: send -> last client within 1.5x of the floor; p99 under 250 ms; "
              "at most 150 KB per command in the soak's mix.",
              "", f"Command: `{' '.join(['.venv/bin/python', 'bench/bench_fanout.py', *args])}`",
              f"Machine: {machine()}"]
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description="fan-out latency to 200 Socket.IO clients against a bare floor")
    parser.add_argument("--quick", action="store_true", help="60 commands each instead of 300")
    parser.add_argument("--commands", type=int, help="commands per subject (default 300, 60 with --quick)")
    parser.add_argument("--clients", type=int, default=200)
    parser.add_argument("--block", type=int, default=20, help="commands in a row to one subject before switching")
    parser.add_argument("--gap", type=float, default=0.05, help="seconds between commands")
    parser.add_argument("--mix", type=int,
                        help="commands of the soak's mix for the bytes (default 300, 100 with --quick)")
    args = parser.parse_args()
    commands = args.commands or (60 if args.quick else 300)
    mix = args.mix or (100 if args.quick else 300)
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
                for i in range(10):
                    one(floor_api, floor_fleet, f"warm-{i}", harvest(i, teams))
                started = time.monotonic()
                before = bank_fleet.wire_bytes()
                times = measure({"floor": (floor_api, floor_fleet), "bank": (bank, bank_fleet)},
                                commands, args.block, args.gap, teams)
                plain, deflated = (a - b for a, b in zip(bank_fleet.wire_bytes(), before))
                harvests = len(times["bank"])  # every harvest sent to the bank, for its bytes
                wire = {"harvests": {"commands": harvests, "booked": harvests, "plain": plain, "deflated": deflated}}
                times = {name: t[:commands] for name, t in times.items()}
                rss = {"bank": server.rss_mb(), "floor": rss_mb(floor.proc.pid)}
                wire["mix"] = soak_mix(bank, bank_fleet, teams, mix)
                elapsed = time.monotonic() - started
                drops = bank_fleet.disconnects() + floor_fleet.disconnects()
            finally:
                for fleet in fleets:
                    fleet.stop()
                if floor is not None:
                    floor.stop()
    print(report(times, args.clients, rss, sys.argv[1:], wire))
    print(f"\n(run took {elapsed:.0f} s; client disconnects during the run: {drops})")
    json.dump(times, open(Path(tempfile.gettempdir()) / "bench_fanout_last.json", "w"))


if __name__ == "__main__":
    main()
