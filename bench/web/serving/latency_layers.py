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

Every subject runs with the same malloc settings: the bank's own (`--malloc bank`, the default:
bank/cli/serve_lean.ALLOCATOR, two arenas and no per-thread cache, which `terrabank serve` sets for
itself) or glibc's defaults for all (`--malloc glibc`); a floor on glibc's defaults against a bank
on its own settings would count the allocator as the bank's web layer.

    .venv/bin/python bench/web/serving/latency_layers.py [--samples 1000] [--malloc bank|glibc]
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # bench/: the shared modules
from bench_latency import Without, harvest_command
from figures import percentile
from harness import CONFIG, Api, Server, end, launch, machine
from proctree import cpu_seconds

HERE = Path(__file__).resolve().parents[2]
# glibc's own defaults, named so that serve_lean (which sets its settings only where none are set) keeps them.
GLIBC_DEFAULTS = {"MALLOC_ARENA_MAX": str(8 * (os.cpu_count() or 1)), "GLIBC_TUNABLES": "glibc.malloc.tcache_count=7"}
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


def measure(sides: dict, samples: int, pids: dict, warmup: int = 100) -> tuple[dict, dict]:
    """({side: [ms...]}, {side: CPU ms per harvest}): one harvest to each side per round, the order rotating.
    CPU is each server's whole process tree over the measured rounds (user + system)."""
    times = {side: [] for side in sides}
    names = list(sides)
    cpu = {}
    for i in range(warmup + samples):
        if i == warmup:
            cpu = {side: cpu_seconds([pids[side]]) for side in names}
        k = i % len(names)
        for side in names[k:] + names[:k]:
            started = time.perf_counter()
            status, body = sides[side].command(f"h{i}", **harvest_command(i))
            ms = (time.perf_counter() - started) * 1000
            if status != 200:
                raise RuntimeError(f"{side}: harvest refused: {status} {body}")
            if i >= warmup:
                times[side].append(ms)
    return times, {side: (cpu_seconds([pids[side]]) - cpu[side]) * 1000 / samples for side in names}


def report(times: dict, cpu: dict, labels: dict, samples: int, load: str) -> str:
    floor = statistics.median(times["floor"])
    lines = [f"Harvests, {samples} per subject, interleaved, malloc {os.environ.get('GLIBC_TUNABLES')} "
             f"arenas {os.environ.get('MALLOC_ARENA_MAX')} (load average before: {load}):", "",
             "| subject | p50 ms | p50 / floor | over the floor, ms | this step, ms | p99 ms | CPU ms | CPU / floor "
             "| this step, CPU ms |",
             "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"]
    previous = previous_cpu = None
    for side, ms in times.items():
        p50 = statistics.median(ms)
        first = previous is None or side in ("floor", "core", "bank")
        step = "" if first else f"{p50 - previous:+.3f}"
        cpu_step = "" if first else f"{cpu[side] - previous_cpu:+.3f}"
        lines.append(f"| {labels[side]} | {p50:.3f} | {p50 / floor:.2f}x | {p50 - floor:+.3f} | {step} | "
                     f"{percentile(ms, 99):.2f} | {cpu[side]:.3f} | {cpu[side] / cpu['floor']:.2f}x | {cpu_step} |")
        if side not in ("floor", "core"):
            previous, previous_cpu = p50, cpu[side]
    lines += ["", "Command: `.venv/bin/python bench/web/serving/latency_layers.py " + " ".join(sys.argv[1:]) + "`",
              f"Machine: {machine()}"]
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--samples", type=int, default=1000)
    parser.add_argument("--malloc", choices=("bank", "glibc"), default="bank",
                        help="every subject's malloc settings: the bank's (serve_lean.ALLOCATOR) or glibc's defaults")
    args = parser.parse_args()
    from bank.cli.serve_lean import ALLOCATOR

    os.environ.update(ALLOCATOR if args.malloc == "bank" else GLIBC_DEFAULTS)  # every subject inherits it
    load = " ".join(Path("/proc/loadavg").read_text().split()[:3])
    labels = {"floor": "floor: bare Flask + 1 durable insert", "core": "core: bare Flask + Bank.execute",
              "bank": "**terrabank serve**"}
    labels.update({off: f"serve without {what}" for off, what in STEPS})
    procs, servers, sides, pids = [], [], {}, {}
    with tempfile.TemporaryDirectory(prefix="terrabank-layers-") as tmp:
        folder = Path(tmp)
        try:
            for name, extra in (("floor", ["--row-bytes", "400"]), ("core", ["--bank-core", CONFIG])):
                proc, sides[name] = bare(folder, name, *extra)
                procs.append(proc)
                pids[name] = proc.pid
            for name, server in [("bank", Server(folder / "bank"))] + [
                    (off, Without(folder / f"without-{i}", off)) for i, (off, _) in enumerate(STEPS)]:
                servers.append(server.prepare().start())
                sides[name] = Api(server.url).login()
                pids[name] = server.pid
            for name, api in sides.items():
                if name not in ("floor", "core"):
                    status, body = api.command("start", type="start_clock")
                    assert status == 200, body
            sides["core"].command("start", type="start_clock")
            times, cpu = measure(sides, args.samples, pids)
        finally:
            for api in sides.values():
                api.close()
            for proc in procs:
                end(proc)
            for server in servers:
                server.stop()
    print(report(times, cpu, labels, args.samples, load))


if __name__ == "__main__":
    main()
