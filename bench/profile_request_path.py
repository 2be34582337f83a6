"""Where the bank's worker spends CPU on a facilitator's harvest that the authenticated floor does not (issue 27).

Both servers run as bench_latency runs them (their own process each, Gunicorn's guarded gthread worker,
one keep-alive client logged in), take the same harvests in turn, and py-spy samples each whole process
tree (`--subprocesses`, every thread, idle threads left out) while they do. The worker CPU each spent
(user + system, bench_latency.cpu_seconds) is shared out by the samples, so each part is in ms per
request, and the bank's parts are put beside the floor's:

- parts by where the stack goes (Bank.execute, the broadcaster's round, the session cookie, the session
  row, the body, Flask's request and reply, Gunicorn's reading and writing, the WSGI wrappers...);
- the 25 functions with the most self time, in each server.

Needs py-spy (`.venv/bin/pip install py-spy`); it samples without stopping the servers (`--nonblocking`).

    .venv/bin/python bench/profile_request_path.py [--requests 3000] [--rate 997] [--pages 0]
"""

from __future__ import annotations

import argparse
import itertools
import re
import signal
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

from bench_latency import Floor, cpu_seconds, harvest_command, sent
from harness import Api, Server, machine

PY_SPY = Path(sys.executable).with_name("py-spy")
# (part, patterns): a sample goes to the first part one of whose patterns a frame of its stack matches,
# looking from the thread's root to the leaf, so the outermost named part takes its callees.
PARTS = [
    ("Bank.execute (theirs)", [r"^Bank\._?execute "]),
    ("broadcaster thread (live round)", [r"broadcaster\.py", r"push/live\.py"]),
    ("paper writer (state on disk)", [r"paper_writer\.py", r"printables/", r"reportlab/"]),
    ("clock ticker, Trias computer", [r"^(watch_clock|_tick|tick_loop|ticker)", r"trias/computer\.py"]),
    ("imports at run time", [r"importlib"]),
    ("session row check (sessions.check)", [r"accounts/sessions\.py"]),
    ("signed cookie open/save", [r"cookie_session\.py", r"^open_session ", r"^save_session "]),
    ("admission: Identify (serving/identity.py)", [r"identity\.py"]),
    ("body parse (body.py)", [r"web/body\.py"]),
    ("command fields (game/fields.py)", [r"game/fields\.py"]),
    ("JSON reply (jsonify)", [r"^jsonify ", r"flask/json/provider\.py"]),
    ("after_request hooks (headers, gzip)", [r"^(_security_headers|_cache_and_compress|_compress) "]),
    ("floor: SQLite booking", [r"^book \(.*floor_server\.py"]),
    ("floor: session/CSRF", [r"^login_of|make_app.<locals>.login_of"]),
    ("CSRF / login / permission checks", [r"access/auth\.py", r"permissions\.py"]),
    ("route (api.py, rest)", [r"field/api\.py"]),
    ("floor: route (rest)", [r"^make_app.<locals>.command "]),
    ("Flask/Werkzeug request & reply", [r"flask/|werkzeug/"]),
    ("Engine.IO middleware", [r"engineio/"]),
    ("admission wrapper, deadlines", [r"admission\.py|deadlines\.py"]),
    ("after-reply wrapper", [r"after_reply\.py"]),
    ("Gunicorn: read request, write reply", [r"gunicorn/"]),
    ("thread pool: waiting for work (both alike)", [r"^_worker \(concurrent"]),
]
FRAME = re.compile(r"^(?P<fn>\S+) \((?P<file>[^:)]+)")


def part_of(stack: str) -> str:
    frames = [f for f in stack.split(";") if not f.startswith(("process ", "thread "))]  # py-spy's headers
    for name, patterns in PARTS:
        for pattern in patterns:
            if any(re.search(pattern, f.strip()) for f in frames):
                return name
    return "other"


def leaf(stack: str) -> str:
    frame = stack.split(";")[-1]
    match = FRAME.match(frame.strip())
    if not match:
        return frame.strip()[:80]
    file = match["file"]
    for cut in ("site-packages/", "/work/main/", "lib/python3.11/"):
        if cut in file:
            file = file.split(cut, 1)[1]
    return f"{match['fn']} ({file})"


def read_raw(path: Path) -> tuple[Counter, Counter, int]:
    """(samples by part, samples by leaf function, total) of py-spy's raw (collapsed) output."""
    by_part, by_leaf, total = Counter(), Counter(), 0
    # An idle Gunicorn master and worker loop still show as running now and then: counted, under Gunicorn.
    for line in path.read_text().splitlines():
        stack, _, count = line.rpartition(" ")
        if not count.isdigit():
            continue
        n = int(count)
        total += n
        by_part[part_of(stack)] += n
        by_leaf[leaf(stack)] += n
    return by_part, by_leaf, total


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--requests", type=int, default=3000, help="harvests per server, measured")
    parser.add_argument("--warmup", type=int, default=200)
    parser.add_argument("--rate", type=int, default=997, help="py-spy samples per second")
    parser.add_argument("--pages", type=int, default=0, help="live pages per server (bench/clients.Fleet)")
    parser.add_argument("--top", type=int, default=25)
    parser.add_argument("--keep", type=Path, help="copy py-spy's raw stacks (bank.txt, auth.txt) to this folder")
    args = parser.parse_args()
    load = " ".join(Path("/proc/loadavg").read_text().split()[:3])
    with tempfile.TemporaryDirectory(prefix="terrabank-profile-path-") as tmp:
        folder = Path(tmp)
        bank = Server(folder / "bank").prepare()
        fleets, spies = [], []
        with bank.start() as server:
            floor = Floor(folder, "auth_floor_server.py", 400)
            try:
                apis = {"bank": Api(server.url).login(), "auth": Api(floor.url).login()}
                pids = {"bank": server.pid, "auth": floor.pid}
                for api in apis.values():
                    sent(api, "start", {"type": "start_clock"})
                if args.pages:
                    from clients import Fleet, lead_cookie_and_tokens

                    cookie, tokens = lead_cookie_and_tokens(apis["bank"])
                    fleets = [Fleet(server.url, tokens, cookie, n=args.pages).start(),
                              Fleet(floor.url, {t: t for t in tokens}, apis["auth"].cookie, n=args.pages).start()]
                ids = itertools.count()
                for i in range(args.warmup):
                    for side in ("bank", "auth"):
                        sent(apis[side], f"w{next(ids)}", harvest_command(i))
                outs = {side: folder / f"{side}.txt" for side in pids}
                for side, pid in pids.items():
                    spies.append(subprocess.Popen(
                        [str(PY_SPY), "record", "--pid", str(pid), "--subprocesses", "--nonblocking", "--format", "raw",
                         "--rate", str(args.rate), "--output", str(outs[side])],
                        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))
                time.sleep(2.0)  # py-spy attached
                before = {side: cpu_seconds(pid) for side, pid in pids.items()}
                wall = {side: 0.0 for side in pids}
                for i in range(args.requests):
                    for side in (("bank", "auth") if i % 2 else ("auth", "bank")):
                        wall[side] += sent(apis[side], f"p{next(ids)}", harvest_command(args.warmup + i))[0]
                cpu = {side: (cpu_seconds(pid) - before[side]) * 1000 / args.requests for side, pid in pids.items()}
                for spy in spies:
                    spy.send_signal(signal.SIGINT)
                for spy in spies:
                    spy.wait(timeout=60)
            finally:
                for spy in spies:
                    if spy.poll() is None:
                        spy.kill()
                for fleet in fleets:
                    fleet.stop()
                floor.stop()
        results = {side: read_raw(outs[side]) for side in outs}
        if args.keep:
            args.keep.mkdir(parents=True, exist_ok=True)
            for side, out in outs.items():
                (args.keep / out.name).write_text(out.read_text())
    load += " -> " + " ".join(Path("/proc/loadavg").read_text().split()[:3])
    print(f"## Harvest, {args.requests} per server, {args.pages} live pages (load average {load})\n")
    print(f"Worker tree CPU per request: bank {cpu['bank']:.3f} ms, authenticated floor {cpu['auth']:.3f} ms "
          f"({cpu['bank'] / cpu['auth']:.2f}x); client wall p-mean: bank {wall['bank'] / args.requests:.3f} ms, "
          f"floor {wall['auth'] / args.requests:.3f} ms.\n")
    print("| part | bank ms/request | share of bank | floor ms/request |\n| --- | ---: | ---: | ---: |")
    shares = {}
    for side, (by_part, _, total) in results.items():
        shares[side] = {p: n / total * cpu[side] for p, n in by_part.items()} if total else {}
    names = [p for p, _ in PARTS] + ["other"]
    for name in sorted(names, key=lambda p: -shares["bank"].get(p, 0)):
        b, f = shares["bank"].get(name, 0), shares["auth"].get(name, 0)
        if b or f:
            print(f"| {name} | {b:.3f} | {b / cpu['bank'] * 100:.1f}% | {f:.3f} |")
    for side, (_, by_leaf, total) in results.items():
        print(f"\n### {side}: top {args.top} functions by self samples ({total} samples)\n")
        for fn, n in by_leaf.most_common(args.top):
            print(f"- {n / total * cpu[side]:.3f} ms/request ({n / total * 100:.1f}%) {fn}")
    print(f"\nMachine: {machine()}")


if __name__ == "__main__":
    main()
