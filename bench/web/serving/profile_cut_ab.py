"""One cut of the request path measured against the code without it, in one run.

Three servers in bench_latency's fixed rotation of three: the bank served from a copy of the
repository WITHOUT the cut (`--base`), the bank served from a copy WITH it (`--new`), and the
authenticated floor (bench/auth_floor_server.py). Each copy is a whole tree (bank/, templates/, static/,
config.toml) put first on the server's sys.path, so other engineers' changes in the working tree are the
same on both sides and only the cut differs. Harvests only; `--runs` runs of `--samples`; per run the
p50 and p99 of each server and its worker tree's CPU per request (bench_latency.cpu_seconds).

Making the two copies (the cut's files from the commit before it on the base side):

    mkdir -p /tmp/ab && for s in base new; do mkdir -p /tmp/ab/$s; tar -C /work/main --exclude=./.git --exclude=./.venv -cf - . | tar -xf - -C /tmp/ab/$s; done
    git -C /work/main show HEAD~1:bank/web/serving/identity.py > /tmp/ab/base/bank/web/serving/identity.py   # ...
    .venv/bin/python bench/web/serving/profile_cut_ab.py --base /tmp/ab/base --new /tmp/ab/new [--runs 5] [--samples 300]
"""

from __future__ import annotations

import argparse
import itertools
import statistics
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # bench/: the shared modules
from bench_latency import Floor, cpu_seconds, harvest_command, sent, spread
from figures import percentile
from harness import Api, Server, machine

SIDES = ("base", "new", "auth")


class CopyServer(Server):
    """`terrabank serve` with the bank imported from a copy of the repository."""

    def __init__(self, folder: Path, tree: Path):
        super().__init__(folder, config=str(tree / "config.toml"))
        self.tree = tree

    def serve_command(self) -> list:
        boot = (f"import sys; sys.path.insert(0, {str(self.tree)!r}); from bank.cli.main import main; "
                "sys.argv[0] = 'terrabank'; sys.exit(main())")
        return [sys.executable, "-c", boot, *super().serve_command()[1:]]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--base", type=Path, required=True, help="a copy of the repository without the cut")
    parser.add_argument("--new", type=Path, required=True, help="a copy of the repository with the cut")
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--samples", type=int, default=300, help="harvests per server per run")
    parser.add_argument("--warmup", type=int, default=50)
    args = parser.parse_args()
    load = " ".join(Path("/proc/loadavg").read_text().split()[:3])
    runs = []
    with tempfile.TemporaryDirectory(prefix="terrabank-cut-ab-") as tmp:
        folder = Path(tmp)
        base = CopyServer(folder / "base", args.base.resolve()).prepare()
        new = CopyServer(folder / "new", args.new.resolve()).prepare()
        floor = None
        with base.start(), new.start():
            try:
                floor = Floor(folder, "auth_floor_server.py", 400)
                apis = {"base": Api(base.url).login(), "new": Api(new.url).login(), "auth": Api(floor.url).login()}
                pids = {"base": base.pid, "new": new.pid, "auth": floor.pid}
                for api in apis.values():
                    sent(api, "start", {"type": "start_clock"})
                ids = itertools.count()
                for i in range(args.warmup):
                    for side in SIDES:
                        sent(apis[side], f"w{next(ids)}", harvest_command(i))
                for n in range(args.runs):
                    times = {side: [] for side in SIDES}
                    before = {side: cpu_seconds(pid) for side, pid in pids.items()}
                    for i in range(args.samples):
                        order = SIDES[i % 3:] + SIDES[:i % 3]  # bench_latency's rotation
                        for side in order:
                            times[side].append(sent(apis[side], f"r{next(ids)}", harvest_command(i))[0])
                    cpu = {side: (cpu_seconds(pid) - before[side]) * 1000 / args.samples for side, pid in pids.items()}
                    runs.append((times, cpu))
                    print(f"  run {n + 1} of {args.runs} done", file=sys.stderr, flush=True)
            finally:
                if floor is not None:
                    floor.stop()
    load += " -> " + " ".join(Path("/proc/loadavg").read_text().split()[:3])
    print(f"## The cut, {args.runs} runs of {args.samples} harvests (load average {load})\n")
    print("| server | p50 ms | p99 ms | CPU ms per request |\n| --- | ---: | ---: | ---: |")
    for side in SIDES:
        print(f"| {side} | {spread([statistics.median(t[side]) for t, _ in runs], '')} | "
              f"{spread([percentile(t[side], 99) for t, _ in runs], '')} | {spread([c[side] for _, c in runs], '')} |")
    print("\n| ratio | p50 | p99 | CPU |\n| --- | ---: | ---: | ---: |")
    for a, b in (("new", "base"), ("base", "auth"), ("new", "auth")):
        p50 = [statistics.median(t[a]) / statistics.median(t[b]) for t, _ in runs]
        p99 = [percentile(t[a], 99) / percentile(t[b], 99) for t, _ in runs]
        cpu = [c[a] / c[b] for _, c in runs]
        print(f"| {a} / {b} | {spread(p50)} | {spread(p99)} | {spread(cpu)} |")
    print(f"\nbase: {args.base}, new: {args.new}\n\nMachine: {machine()}")


if __name__ == "__main__":
    main()
