"""Bytes both ways per booked command, counted at the server's sockets.

bench_fanout counts only what the pages' Socket.IO client hands over (payload + WebSocket frame
header, downlink only). Here every byte the kernel moved on the bank's TCP sockets is counted, both
ways: the facilitator's HTTP request and its reply (headers included), every WebSocket frame to and
from the pages (updates, Engine.IO pings and pongs), each with its framing. Read from the kernel's
tcp_info of each established socket of the server's port (`ss -tin`: bytes_acked, bytes_received,
segs_out, segs_in) before and after the commands; a socket that closed meanwhile is reported.

TCP/IP overhead is estimated: 52 bytes a segment (IPv4 20 + TCP 20 + timestamps 12), over the segments
the kernel counted or, when more, the segments a Wi-Fi MSS of 1448 bytes would need for those bytes
(loopback's MSS is 64 KB; an update is one segment on both when under 1448 bytes). Link-layer (802.11)
framing is not counted.

Pages: `--clients` (default 200 and 400; bench/clients.Fleet: 2 big screens, 3 consoles, the rest
team phones over the 4 teams, from several 127.x addresses as phones behind several access points).
The server runs the config a game of that size would set (pages_under_pressure.admission: config.toml
while its team links admit the room, else a copy with phones_per_team raised, said in the report).
Each size is measured twice, on a fresh server each: pages that do not offer permessage-deflate (as
python-socketio's client) and pages that offer it as a browser does (aiohttp compress=15; the bank's
simple-websocket accepts it with context takeover). Beside the measured plain figures, the downlink
frames deflated by zlib as the server would (bench/clients.Deflated) cross-check the measured ones.

The pages read one `round` message per round as today's live.js does (bench/clients.Fleet);
`--separate` makes them pages of the old script, which get the separate public/team/journal messages.

Commands: the soak's mix (bench/bench_soak.pick_command: harvests, builds, trades, fights and commands
refused), one at a time, each waited for on every page; all traffic of the window (refusals and pings
included) divided by the booked commands. Idle traffic (pings) per second is measured first, before
the commands, and given beside.

    .venv/bin/python bench/web/push/bench_bytes.py                        # 200 and 400 pages, 100 commands each
    .venv/bin/python bench/web/push/bench_bytes.py --clients 50 --commands 20
"""

from __future__ import annotations

import argparse
import json
import math
import random
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # bench/: the shared modules
from mix import pick_command
from clients import Fleet, lead_cookie_and_tokens
from harness import Api, Server, machine
from pages_under_pressure import admission

SEGMENT_HEADERS = 52   # IPv4 20 + TCP 20 + TCP timestamps 12
WIFI_MSS = 1448        # 1500 MTU - 52
FIELDS = ("bytes_acked", "bytes_received", "segs_out", "segs_in")
SOURCES = [f"127.0.{i}.{j}" for i in (1, 2) for j in (1, 2, 3, 4)]  # 8 addresses: under the per-address cap


def sockets(port: int) -> dict:
    """{peer: {bytes_acked, bytes_received, segs_out, segs_in}} of the established sockets listening side."""
    out = subprocess.run(["ss", "-tinH", "state", "established", f"( sport = :{port} )"],
                         capture_output=True, text=True, check=True).stdout
    found, peer = {}, None
    for line in out.splitlines():
        if not line.startswith((" ", "\t")):
            parts = line.split()
            peer = parts[-1] if len(parts) >= 2 else None
            continue
        if peer is None:
            continue
        found[peer] = {f: int(m.group(1)) if (m := re.search(rf"\b{f}:(\d+)", line)) else 0 for f in FIELDS}
    return found


def delta(before: dict, after: dict) -> dict:
    """What moved on the sockets between two snapshots: down (server sent), up (received), segments, closed."""
    total = {"down": 0, "up": 0, "segs_down": 0, "segs_up": 0, "tcpip_down": 0, "tcpip_up": 0, "closed": 0,
             "sockets": len(after)}
    for peer, now in after.items():
        was = before.get(peer, dict.fromkeys(FIELDS, 0))
        down, up = now["bytes_acked"] - was["bytes_acked"], now["bytes_received"] - was["bytes_received"]
        segs_down, segs_up = now["segs_out"] - was["segs_out"], now["segs_in"] - was["segs_in"]
        total["down"] += down
        total["up"] += up
        total["segs_down"] += segs_down
        total["segs_up"] += segs_up
        total["tcpip_down"] += SEGMENT_HEADERS * max(segs_down, math.ceil(down / WIFI_MSS))
        total["tcpip_up"] += SEGMENT_HEADERS * max(segs_up, math.ceil(up / WIFI_MSS))
    total["closed"] = sum(1 for peer in before if peer not in after)
    return total


def delivered(fleet: Fleet, seq: int, timeout: float) -> bool:
    """Every page still connected has `seq` (a page the server dropped, on an overloaded machine, is counted in
    the report, not waited for: its bytes are no longer sent)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if all(c.got_at(seq) is not None for c in fleet.clients if c.sio and c.sio.connected):
            return True
        time.sleep(0.005)
    return False


def measure(clients: int, commands: int, deflate: bool, idle_seconds: float, seed: int, rounds: bool = True) -> dict:
    with tempfile.TemporaryDirectory(prefix="terrabank-bytes-") as tmp:
        config, admits = admission(clients, Path(tmp), addresses=len(SOURCES))
        with Server(Path(tmp) / "bank", config=config).prepare().start() as server:
            lead = Api(server.url).login()
            lead.command("start", type="start_clock")
            cookie, tokens = lead_cookie_and_tokens(lead)
            teams = list(tokens)
            fleet = Fleet(server.url, tokens, cookie, n=clients, count_bytes=True, sources=SOURCES,
                          deflate=deflate, rounds=rounds).start(timeout=600)
            try:
                time.sleep(2)
                quiet = sockets(server.port)
                time.sleep(idle_seconds)
                idle = delta(quiet, sockets(server.port))
                rng, booked = random.Random(seed), 0
                before, frames, messages = sockets(server.port), fleet.wire_bytes(), fleet.messages()
                started = time.monotonic()
                for i in range(commands):
                    _, command, _ = pick_command(rng, teams)
                    status, body = lead.command(f"bytes-{i}", **command)
                    if status == 200:
                        booked += 1
                        if not delivered(fleet, body["seq"], timeout=60):
                            raise RuntimeError(f"{len(fleet.lagging(body['seq']))} pages never got {body['seq']}")
                    else:
                        time.sleep(0.15)  # a refusal sends nothing; a round it might have caused would show here
                time.sleep(0.5)  # the last ACKs
                window = delta(before, sockets(server.port))
                seconds = time.monotonic() - started
                plain_frames, deflated_frames = (a - b for a, b in zip(fleet.wire_bytes(), frames))
                connected, drops = fleet.connected(), fleet.disconnects()
                messages = fleet.messages() - messages
            finally:
                fleet.stop()
    return {"clients": clients, "deflate": deflate, "commands": commands, "booked": booked, "seconds": seconds,
            "idle": idle, "idle_seconds": idle_seconds, "window": window, "frames_plain": plain_frames,
            "frames_deflated": deflated_frames, "connected": connected, "drops": drops, "messages": messages,
            "admission": admits}


def kb(n: float) -> str:
    return f"{n / 1024:,.1f}"


def row(r: dict) -> str:
    w, b = r["window"], max(1, r["booked"])
    total = w["down"] + w["up"] + w["tcpip_down"] + w["tcpip_up"]
    idle = r["idle"]
    idle_rate = (idle["down"] + idle["up"] + idle["tcpip_down"] + idle["tcpip_up"]) / r["idle_seconds"]
    return (f"| {r['clients']} | {'offered (as a browser)' if r['deflate'] else 'not offered'} | "
            f"{r['commands']} ({r['booked']} booked, {r['seconds']:.0f} s) | {kb(w['down'] / b)} | {kb(w['up'] / b)} | "
            f"{kb(w['tcpip_down'] / b)} / {kb(w['tcpip_up'] / b)} | **{kb(total / b)}** | "
            f"{kb(r['frames_plain'] / b)} ({kb(r['frames_deflated'] / b)} deflated by zlib) | "
            f"{r['messages'] / b / r['clients']:.2f} | "
            f"{kb(idle_rate)} KB/s ({kb(idle_rate * r['seconds'] / b)}) | {w['closed']} closed, {r['drops']} dropped |")


def report(results: list, args: list) -> str:
    lines = ["Bytes per booked command at the bank's sockets, both ways, the soak's mix (KB = 1,024 bytes).", "",
             "| pages | permessage-deflate | commands | down: payload + HTTP/WebSocket framing | up: same | "
             "TCP/IP headers down / up (estimate) | **total both ways** | of it, update frames to the pages "
             "(as the pages read them) | update messages per page per booked command | idle traffic (pings) per second (its share per booked command) | "
             "sockets closed during the window; pages dropped |",
             "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |"]
    lines += [row(r) for r in results]
    lines += ["", "Target (P9): <= 150 KB per booked command at 400 pages, both ways.",
              "Measured at the socket: tcp_info of every established socket of the server's port (ss -tin), "
              "bytes_acked (down) and bytes_received (up); TCP/IP headers: 52 bytes a segment, the kernel's "
              f"count or the segments a {WIFI_MSS}-byte MSS needs, whichever is more; no 802.11 framing.",
              "Admission: " + "; ".join(sorted({f"{r['clients']} pages: {r['admission']}" for r in results})) + ".",
              "", f"Command: `{' '.join(['.venv/bin/python', 'bench/web/push/bench_bytes.py', *args])}`", f"Machine: {machine()}"]
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description="bytes both ways per booked command, at the server's sockets")
    parser.add_argument("--clients", default="200,400", help="page counts, e.g. 200,400")
    parser.add_argument("--commands", type=int, default=100, help="commands of the soak's mix per measurement")
    parser.add_argument("--idle", type=float, default=20.0, help="seconds of idle traffic measured first")
    parser.add_argument("--seed", type=int, default=27)
    parser.add_argument("--json", type=Path, help="also write the figures here")
    parser.add_argument("--separate", action="store_true",
                        help="pages of an older live.js: separate public/team/journal messages")
    parser.add_argument("--record", action="store_true",
                        help="keep the largest compressed room's figure as the last measured (bench/results/06_bytes.json), "
                             "then make docs/PERFORMANCE.md's table again with bench/record.py")
    args = parser.parse_args()
    results = []
    for n in (int(x) for x in args.clients.split(",")):
        for deflate in (False, True):
            results.append(measure(n, args.commands, deflate, args.idle, args.seed, not args.separate))
            print(row(results[-1]), file=sys.stderr, flush=True)
    print(report(results, sys.argv[1:]))
    if args.json:
        args.json.write_text(json.dumps(results, indent=1))
    if args.record:
        keep(results, sys.argv[1:])


def keep(results: list, args: list) -> None:
    """P9's row of docs/PERFORMANCE.md: the largest room of pages offering compression, as browsers do."""
    import record  # bench/record.py, on the path with the shared modules
    big = max((r for r in results if r["deflate"]), key=lambda r: r["clients"])
    w = big["window"]
    total = (w["down"] + w["up"] + w["tcpip_down"] + w["tcpip_up"]) / max(1, big["booked"])
    row = {"figure": f"P9: bytes per booked command, both ways, {big['clients']} pages", "value": round(total / 1024, 1),
           "unit": "KB", "goal": "<=", "limit": 150}
    kept = [a for i, a in enumerate(args) if a != "--record" and a != "--json" and (i == 0 or args[i - 1] != "--json")]
    command = " ".join([".venv/bin/python", record.script(__file__), *kept])
    print(record.record("06_bytes", [row], command=command, measured=f"{time.strftime('%Y-%m-%d')}, {machine()}"))
    record.main_table()


if __name__ == "__main__":
    main()
