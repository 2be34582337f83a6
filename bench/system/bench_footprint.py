"""Footprint: the bank's memory with 200 live pages, and what a team phone downloads on first load.

Memory: resident set (VmRSS) and proportional set (PSS, /proc/<pid>/smaps_rollup: shared pages
split between the processes) of a real `terrabank serve`'s whole process tree (Gunicorn's master
and its worker, bench/proctree.py; each process given too) idle after start, with 200
Socket.IO clients connected (bench/clients.py), and after 20 commands fanned out
to them; beside it, the bare Flask-SocketIO floor on the same Gunicorn stack
(bench/fanout_floor.py) with the same 200 clients: what the stack alone costs.
Target (P3): the whole tree <= 100 MB with 200 pages.

Page weight: headless Chromium opens a team phone link (/t/<token>) in a fresh
context (empty cache) and waits until the page is live; every response is
counted (headers + body as transferred), the socket's frames too (as sent: each
frame's header and its payload, deflated when the browser and the server agreed on
permessage-deflate, as they do), and every request must go to 127.0.0.1. Both ways: what the
phone sends too (each request's headers and body, and the socket frames it sends, deflated). Each body
is also gzip-compressed (level 6) to show what compression would save on a weak Wi-Fi.

    .venv/bin/python bench/system/bench_footprint.py            # 200 clients
    .venv/bin/python bench/system/bench_footprint.py --quick    # 50 clients
    .venv/bin/python bench/system/bench_footprint.py --memory-only   # no browser (bench/system/pi_budget.py)
"""

from __future__ import annotations

import argparse
import base64
import contextlib
import gzip
import http.client
import json
import os
import re
import subprocess
import sys
import tempfile
import time
import zlib
from pathlib import Path
from urllib.parse import urlsplit

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # bench/: the shared modules
import bench_extra
from bank.cli.serve_lean import ALLOCATOR
from bank.web.push.deflate import MEM_LEVEL, WINDOW_BITS
from harness import Api, Server, machine
import proctree

CHROMIUM = "/usr/bin/chromium"
ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
        "--disable-sync"]
PHONE = {"width": 390, "height": 844}

# What the bench extra adds to the server's imports: python-socketio imports its
# asyncio client, hence aiohttp, when aiohttp is installed. A Pi without the extra does not.
BLOCK_AIOHTTP = """
import sys
class Block:
    def find_spec(self, name, path=None, target=None):
        if name.split('.')[0] in ('aiohttp', 'yarl', 'multidict', 'frozenlist', 'aiosignal', 'propcache'):
            raise ImportError('not installed on the Pi')
if sys.argv[1] == 'block':
    sys.meta_path.insert(0, Block())
import bank.web, bank.cli.main  # noqa
print(next(int(l.split()[1]) for l in open('/proc/self/status') if l.startswith('VmRSS')) / 1024)
"""


def import_rss(block: bool) -> float:
    out = subprocess.run([sys.executable, "-c", BLOCK_AIOHTTP, "block" if block else "keep"], capture_output=True,
                         text=True, check=True, cwd=Path(__file__).resolve().parents[2])
    return float(out.stdout.strip())


@contextlib.contextmanager
def allocator_env():
    """This process's environment, which the servers it starts inherit, with the bank's malloc settings
    (serve_lean.ALLOCATOR: 2 arenas, no per-thread cache) while a floor starts: its memory then compares."""
    saved = {k: os.environ.get(k) for k in ALLOCATOR}
    os.environ.update(ALLOCATOR)
    try:
        yield
    finally:
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v


def memory(clients: int, deflate: bool = False) -> dict:
    """RSS in MB of the bank (idle, with clients, after commands) and of the floor with the same clients."""
    result = {}
    fanout = bench_extra.load("bench_fanout")  # the bench extra (aiohttp): loaded here, so --help needs none
    Fleet, lead_cookie_and_tokens = fanout.Fleet, fanout.lead_cookie_and_tokens
    FloorServer, capture, harvest, one = fanout.FloorServer, fanout.capture, fanout.harvest, fanout.one
    with tempfile.TemporaryDirectory(prefix="terrabank-footprint-") as tmp:
        folder, fleets, floor = Path(tmp), [], None
        with Server(folder / "bank").prepare().start() as server:
            try:
                time.sleep(3)
                result["bank idle after start"] = proctree.rss_mb(server.pid)
                result["bank idle after start, PSS"] = proctree.pss_mb(server.pid)
                lead = Api(server.url).login()
                lead.command("start", type="start_clock")
                cookie, tokens = lead_cookie_and_tokens(lead)
                teams = list(tokens)
                # deflate: the pages offer permessage-deflate, as browsers do; each then holds a zlib
                # compressor in the worker (160 KB a page, 32 MB for 200).
                fleet = Fleet(server.url, tokens, cookie, n=clients, deflate=deflate).start()
                if deflate:
                    result["permessage-deflate agreed (Chromium's offer)"] = agreed_deflate(server.url)
                fleets.append(fleet)
                time.sleep(5)
                result[f"bank with {clients} clients connected"] = proctree.rss_mb(server.pid)
                for i in range(20):
                    one(lead, fleet, f"c{i}", harvest(i, teams))
                time.sleep(2)
                result[f"bank with {clients} clients, after 20 commands"] = proctree.rss_mb(server.pid)
                result[f"bank with {clients} clients, after 20 commands, PSS"] = proctree.pss_mb(server.pid)
                # As a Raspberry Pi running only the bank sees it: the worker's RSS + the master's own pages.
                result[f"bank with {clients} clients, after 20 commands, own (worker RSS + master private)"] = \
                    proctree.own_mb(server.pid)
                for pid, label, rss, pss in proctree.processes(server.pid):
                    result[f"bank with {clients} clients: {label}, RSS / PSS"] = f"{rss:.1f} / {pss:.1f}"
                    kinds = proctree.kinds_mb(pid)  # where it is
                    result[f"bank with {clients} clients: {label}, PSS by kind"] = ", ".join(
                        f"{kind} {mb:.1f}" for kind, mb in kinds.items())
                with allocator_env():  # the floor's malloc set as the bank's (bank/cli/serve_lean.py)
                    floor = FloorServer(folder, capture(fleet))
                time.sleep(2)
                result["floor idle after start"] = proctree.rss_mb(floor.proc.pid)
                floor_fleet = Fleet(floor.url, {t: t for t in teams}, "session=floor", n=clients, deflate=deflate).start()
                fleets.append(floor_fleet)
                floor_api = Api(floor.url)
                for i in range(20):
                    one(floor_api, floor_fleet, f"c{i}", harvest(i, teams))
                time.sleep(2)
                result[f"floor with {clients} clients, after 20 commands"] = proctree.rss_mb(floor.proc.pid)
                result[f"floor with {clients} clients, after 20 commands, PSS"] = proctree.pss_mb(floor.proc.pid)
                result[f"floor with {clients} clients, after 20 commands, own (worker RSS + master private)"] = \
                    proctree.own_mb(floor.proc.pid)
                for _, label, rss, pss in proctree.processes(floor.proc.pid):
                    result[f"floor with {clients} clients: {label}, RSS / PSS"] = f"{rss:.1f} / {pss:.1f}"
                result[f"bank threads with {clients} clients"] = proctree.threads(server.pid)
                # Address space, not memory: what a 32-bit Raspberry Pi OS (3 GB per process) must fit;
                # the worker's (it holds every thread), the largest process of the tree.
                result[f"bank virtual size (VmSize) with {clients} clients, MB"] = proctree.largest_vmsize_mb(server.pid)
            finally:
                for f in fleets:
                    f.stop()
                if floor is not None:
                    floor.stop()
    return result


def agreed_deflate(url: str) -> str:
    """The Sec-WebSocket-Extensions the server answers Chromium's offer with (the window it keeps)."""
    host, port = urlsplit(url).hostname, urlsplit(url).port
    conn = http.client.HTTPConnection(host, port, timeout=10)
    try:
        conn.request("GET", "/socket.io/?EIO=4&transport=websocket", headers={
            "Upgrade": "websocket", "Connection": "Upgrade", "Sec-WebSocket-Version": "13",
            "Sec-WebSocket-Key": base64.b64encode(os.urandom(16)).decode(),
            "Sec-WebSocket-Extensions": "permessage-deflate; client_max_window_bits"})
        return conn.getresponse().getheader("Sec-WebSocket-Extensions") or "none"
    finally:
        conn.close()


def frames_on_the_wire(payloads: list, deflate: bool) -> list:
    """The size of each server-to-client WebSocket frame as sent: Playwright hands over the payload
    as the page reads it (inflated), so it is deflated again the way the server does it (raw
    deflate, default level, one stream for the connection: context takeover, each message ending
    with a sync flush whose 4 trailing bytes are not sent, RFC 7692; its window and memLevel)
    plus the frame's header."""
    stream = zlib.compressobj(zlib.Z_DEFAULT_COMPRESSION, zlib.DEFLATED, -WINDOW_BITS, MEM_LEVEL) if deflate else None
    sizes = []
    for payload in payloads:
        data = payload.encode() if isinstance(payload, str) else bytes(payload)
        if stream is not None:
            data = (stream.compress(data) + stream.flush(zlib.Z_SYNC_FLUSH))[:-4]
        sizes.append(len(data) + (2 if len(data) < 126 else 4 if len(data) < 65536 else 10))
    return sizes


def page_weight() -> tuple[list, list, list, dict]:
    """([(url, status, encoding, transferred, raw, gzipped)], [socket frame sizes as sent], [foreign urls],
    {requests, frames}: the bytes the phone sent (request headers + bodies; its socket frames as sent))."""
    from playwright.sync_api import expect, sync_playwright

    rows, payloads, urls, handshakes, sent_payloads = [], [], [], [], []
    with tempfile.TemporaryDirectory(prefix="terrabank-weight-") as tmp:
        with Server(Path(tmp) / "bank").prepare().start() as server:
            lead = Api(server.url).login()
            lead.command("start", type="start_clock")
            _, tokens = bench_extra.load("clients").lead_cookie_and_tokens(lead)
            token = tokens[next(iter(tokens))]
            with sync_playwright() as p:
                browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
                try:
                    context = browser.new_context(viewport=PHONE, is_mobile=True, has_touch=True)
                    page = context.new_page()
                    # The socket's 101 reply (not among Playwright's responses): did the two agree to deflate?
                    cdp = context.new_cdp_session(page)
                    cdp.send("Network.enable")
                    cdp.on("Network.webSocketHandshakeResponseReceived", lambda e: handshakes.append(
                        {k.lower(): v for k, v in e["response"]["headers"].items()}))
                    page.on("request", lambda r: urls.append(r.url))
                    page.on("websocket", lambda ws: (urls.append(ws.url), ws.on(
                        "framereceived", lambda payload: payloads.append(payload)), ws.on(
                        "framesent", lambda payload: sent_payloads.append(payload))))
                    responses = []
                    page.on("response", lambda r: responses.append(r))
                    page.goto(f"{server.url}/t/{token}")
                    expect(page.locator("#conn-badge")).to_have_class(re.compile("badge-live"))
                    page.wait_for_load_state("networkidle")
                    page.wait_for_timeout(1000)
                    uplink = 0
                    for r in responses:
                        sizes = r.request.sizes()
                        uplink += sizes["requestHeadersSize"] + sizes["requestBodySize"]
                        body = r.body() if r.status != 101 else b""
                        encoding = r.headers.get("content-encoding", "")
                        rows.append((r.url, r.status, encoding, sizes["responseHeadersSize"] + sizes["responseBodySize"],
                                     sizes["responseHeadersSize"] + len(body),
                                     sizes["responseHeadersSize"] + (len(gzip.compress(body, 6)) if body else 0)))
                finally:
                    browser.close()
    foreign = [u for u in urls if urlsplit(u).hostname != "127.0.0.1"]
    deflate = any("permessage-deflate" in h.get("sec-websocket-extensions", "") for h in handshakes)
    # A client's frames carry a 4-byte mask beside the header (RFC 6455 5.3).
    sent_frames = [n + 4 for n in frames_on_the_wire(sent_payloads, deflate)]
    return rows, frames_on_the_wire(payloads, deflate), foreign, {"requests": uplink, "frames": sum(sent_frames),
                                                                   "count": len(sent_frames)}


def report(mem: dict, imports: tuple, weight: tuple, clients: int, args: list) -> str:
    rows, frames, foreign, up = weight if weight else ([], [], [], {})
    lines = ["Server memory, the whole process tree (VmRSS unless said):", "", "| state | MB |", "| --- | --- |"]
    lines += [f"| {k} | {v:.1f} |" if isinstance(v, float) else f"| {k} | {v} |" for k, v in mem.items()]
    lines += ["", f"Imports alone (`import bank.web, bank.cli`): {imports[0]:.1f} MB with the bench extra installed, "
              f"{imports[1]:.1f} MB without aiohttp (as on a Pi without the bench extra): the figures above include "
              f"{imports[0] - imports[1]:.1f} MB a production install does not load.",
              f"Target (P3): the whole tree <= 100 MB with {clients} clients.", ""]
    if not weight:
        return "\n".join(lines + [f"Command: `{' '.join(['.venv/bin/python', 'bench/system/bench_footprint.py', *args])}`",
                                   f"Machine: {machine()}"])
    lines += [
              "Team phone, first load, as transferred: target under 60 KB.", "",
              "Team phone, first load (bytes: response headers + body):", "",
              "| request | status | content-encoding | transferred | gzip level 6 would be |",
              "| --- | --- | --- | --- | --- |"]
    for url, status, enc, sent, raw, gz in rows:
        path = urlsplit(url).path + ("?" + urlsplit(url).query.split("&")[0] if urlsplit(url).query else "")
        lines.append(f"| {path[:60]} | {status} | {enc or 'none'} | {sent:,} | {gz:,} |")
    total, total_gz = sum(r[3] for r in rows), sum(r[5] for r in rows)
    lines += [f"| **all {len(rows)} responses** | | | **{total:,}** | **{total_gz:,}** |",
              f"| socket frames received ({len(frames)}), as sent (deflated) | | | {sum(frames):,} | |", "",
              f"Total as transferred: {(total + sum(frames)) / 1024:.1f} KB (target under 60 KB); "
              f"with gzip on every response: {(total_gz + sum(frames)) / 1024:.1f} KB.",
              f"Sent by the phone (uplink): request headers + bodies {up['requests']:,} bytes, socket frames "
              f"({up['count']}, as sent, mask included) {up['frames']:,} bytes: {(up['requests'] + up['frames']) / 1024:.1f} KB; "
              f"both ways {(total + sum(frames) + up['requests'] + up['frames']) / 1024:.1f} KB.",
              f"Requests to anything but 127.0.0.1: {len(foreign)}" + (f" {foreign[:5]}" if foreign else " (none)."),
              "", f"Command: `{' '.join(['.venv/bin/python', 'bench/system/bench_footprint.py', *args])}`",
              f"Machine: {machine()}"]
    return "\n".join(lines)


def keep(mem: dict, clients: int, args) -> None:
    """The P3 row of docs/PERFORMANCE.md: the bank's own memory with 200 compressed pages, the floor's beside it."""
    import record  # bench/record.py, on the path with the shared modules

    if clients != 200 or not args.deflate:
        sys.exit("--record keeps the P3 row: 200 pages offering permessage-deflate (--deflate, no --clients/--quick)")
    own = f"with {clients} clients, after 20 commands, own (worker RSS + master private)"
    bank, floor = mem[f"bank {own}"], mem[f"floor {own}"]
    rows = [{"figure": "P3: memory with 200 live pages (worker RSS + master's private pages)",
             "value": round(bank, 1), "unit": "MB", "goal": "<=", "limit": 100}]
    measured = (f"{time.strftime('%Y-%m-%d')}, 200 pages offering permessage-deflate; the fan-out floor beside it with "
                f"the bank's malloc settings {floor:.1f} MB (the bank {bank / floor:.2f}x it); load "
                f"{os.getloadavg()[0]:.0f}, {machine()}")
    command = " ".join([".venv/bin/python", record.script(__file__), "--memory-only", "--deflate"])
    print(record.record("04_footprint", rows, command=command, measured=measured))
    record.main_table()


def main() -> None:
    parser = argparse.ArgumentParser(description="server memory with 200 clients, and the team phone's page weight")
    parser.add_argument("--quick", action="store_true", help="50 clients instead of 200")
    parser.add_argument("--clients", type=int)
    parser.add_argument("--memory-only", action="store_true", help="no browser: the memory only")
    parser.add_argument("--deflate", action="store_true",
                        help="the clients offer permessage-deflate, as browsers do (the server then keeps a compressor a page)")
    parser.add_argument("--record", action="store_true",
                        help="keep the P3 row (200 compressed pages) in bench/results and make docs/PERFORMANCE.md's table again")
    parser.add_argument("--json", type=Path, help="also write the memory figures here (bench/system/pi_budget.py reads them)")
    args = parser.parse_args()
    clients = args.clients or (50 if args.quick else 200)
    imports = (import_rss(block=False), import_rss(block=True))
    mem = memory(clients, args.deflate)
    if args.json:
        args.json.write_text(json.dumps(mem, indent=1))
    weight = None if args.memory_only else page_weight()
    print(report(mem, imports, weight, clients, sys.argv[1:]))
    if args.record:
        keep(mem, clients, args)
    if weight and weight[2]:
        sys.exit("a request left 127.0.0.1")


if __name__ == "__main__":
    main()
