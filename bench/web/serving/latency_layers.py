"""Where a harvest's time over the latency floor goes in the real server, layer by layer.

bench_latency.py compares `terrabank serve` with a bare Flask endpoint doing one durable
insert (bench/floor_server.py). This splits the difference where it is paid: each
subject is its own server process on Gunicorn's guarded gthread worker (bank/web/serving/server.py),
called in turn over keep-alive HTTP, so each request starts after the others have had the
CPU, as in bench_latency. Subjects, harvests only, the order rotating every round:

- floor: one BEGIN IMMEDIATE / INSERT / COMMIT behind a bare Flask route;
- core: the same bare route calling `Bank.execute` (rules, journal row, hash chain,
  idempotency, time line) on its own game: the bank without its web layer
  (`floor_server.py --bank-core`);
- terrabank serve, whole;
- then the same server with parts of its request path switched off one after the other
  (bench/serve_without.py): the live broadcast; the security headers and the body's
  checks; the session row's and the CSRF token's checks; the signed session cookie.

Each step's difference with the one before is that part's cost; the last step against
`core` is what remains of the web layer (Flask's request and response, the route).

    .venv/bin/python bench/web/serving/latency_layers.py [--samples 1000]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # bench/: the shared modules
from bench_latency import Without, harvest_command
from figures import percentile
from harness import CONFIG, Api, Server, end, launch, machine

HERE = Path(__file__).resolve().parents[2]
# Cumulative: each step switches off one more part (serve_without.PARTS).
STEPS = [("broadcast", "the live broadcast"), ("broadcast,hooks,body", "+ security headers, body checks"),
         ("broadcast,hooks,body,login,csrf", "+ session row, CSRF token"),
         ("broadcast,hooks,body,login,csrf,cookie", "+ signed session cookie")]


def bare(folder: Path, name: str, *args: str):
    """floor_server.py (one insert, or --bank-core) in its own process: (process, Api)."""
    folder.mkdir(parents=True, exist_ok=True)
    proc, port = launch([sys.executable, str(HERE / "floor_server.py"), "--db", str(folder / f"{name}.db"), *args],
                        folder / f"{name}.log")
    return proc, Api(f"http://127.0.0.1:{port}").login()


def measure(sides: dict, samples: int, warmup: int = 100) -> dict:
    """{side: [ms...]}: one harvest to each side per round, the order rotating."""
    times = {side: [] for side in sides}
    names = list(sides)
    for i in range(warmup + samples):
        k = i % len(names)
        for side in names[k:] + names[:k]:
            started = time.perf_counter()
            status, body = sides[side].command(f"h{i}", **harvest_command(i))
            ms = (time.perf_counter() - started) * 1000
            if status != 200:
                raise RuntimeError(f"{side}: harvest refused: {status} {body}")
            if i >= warmup:
                times[side].append(ms)
    return times


def report(times: dict, labels: dict, samples: int, load: str) -> str:
    floor = statistics.median(times["floor"])
    lines = [f"Harvests, {samples} per subject, interleaved (load average before: {load}):", "",
             "| subject | p50 ms | p50 / floor | over the floor, ms | this step, ms | p99 ms |",
             "| --- | ---: | ---: | ---: | ---: | ---: |"]
    previous = None
    for side, ms in times.items():
        p50 = statistics.median(ms)
        step = "" if previous is None or side in ("floor", "core", "bank") else f"{p50 - previous:+.3f}"
        lines.append(f"| {labels[side]} | {p50:.3f} | {p50 / floor:.2f}x | {p50 - floor:+.3f} | {step} | "
                     f"{percentile(ms, 99):.2f} |")
        if side not in ("floor", "core"):
            previous = p50
    lines += ["", "Command: `.venv/bin/python bench/web/serving/latency_layers.py " + " ".join(sys.argv[1:]) + "`",
              f"Machine: {machine()}"]
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--samples", type=int, default=1000)
    args = parser.parse_args()
    load = " ".join(Path("/proc/loadavg").read_text().split()[:3])
    labels = {"floor": "floor: bare Flask + 1 durable insert", "core": "core: bare Flask + Bank.execute",
              "bank": "**terrabank serve**"}
    labels.update({off: f"serve without {what}" for off, what in STEPS})
    procs, servers, sides = [], [], {}
    with tempfile.TemporaryDirectory(prefix="terrabank-layers-") as tmp:
        folder = Path(tmp)
        try:
            for name, extra in (("floor", ["--row-bytes", "400"]), ("core", ["--bank-core", CONFIG])):
                proc, sides[name] = bare(folder, name, *extra)
                procs.append(proc)
            for name, server in [("bank", Server(folder / "bank"))] + [
                    (off, Without(folder / f"without-{i}", off)) for i, (off, _) in enumerate(STEPS)]:
                servers.append(server.prepare().start())
                sides[name] = Api(server.url).login()
            for name, api in sides.items():
                if name not in ("floor", "core"):
                    status, body = api.command("start", type="start_clock")
                    assert status == 200, body
            sides["core"].command("start", type="start_clock")
            times = measure(sides, args.samples)
        finally:
            for api in sides.values():
                api.close()
            for proc in procs:
                end(proc)
            for server in servers:
                server.stop()
    print(report(times, labels, args.samples, load))


if __name__ == "__main__":
    main()
