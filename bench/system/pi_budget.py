"""A Raspberry Pi's budget: the fan-out, memory and latency benches with every server they start
held to one core and a CPU quota, standing in for a Pi Zero 2 W or a Pi 3.

How: a control group the servers are moved into (never the benchmark's own process: its 200 simulated
pages and its console stand for other devices). On cgroup v2 (/sys/fs/cgroup/cgroup.controllers): a
child group with `cpu.max` = "QUOTA PERIOD" and `cpuset.cpus` = the core. On cgroup v1 (this machine: the
`cpu` and `cpuset` hierarchies under /sys/fs/cgroup/cpu and /sys/fs/cgroup/cpuset): `cpu.cfs_period_us`,
`cpu.cfs_quota_us` and `cpuset.cpus`. Default: core 0, 2.5 ms of CPU every 10 ms (a quarter of one
core; the short period spreads the quota finely instead of letting a server run 25 ms then wait 75).
A thread here moves every process below the bench (Gunicorn's masters, their workers, the floors, the
`terrabank` commands that set the game up) into the group every 20 ms; a process moved takes all its
threads with it, and the workers forked later are born in it. Nothing is timed before a server answers
HTTP, by then it has been moved.

Its share protected: a quota is only a ceiling. On a machine others load, every process of theirs on
the same core weighs as much as the whole group (1024 each), so host load decided whether the "Pi" got its
quarter core, and a bench compared a bank and a floor that got different shares. The group's scheduling weight
is therefore the highest the kernel takes (cgroup v1 `cpu.shares` = 262144, v2 `cpu.weight` = 10000, 256x and
100x a process's): it gets its quota whenever it asks, and never more (the quota). What it cannot do: a
real-time task, or the kernel's own work on that core, still comes first; the calibration below says the share
the group actually got (`Budget.share`), so a run that did not get it shows.

What a quarter core stands for: a calibration loop (pure Python, as the bank is) is timed in the group
and outside it on this machine, and the report gives the slow-down against the CPU time the loop needs
(on a loaded machine the group may get less than its quota: that shows here too). A Pi 3 (Cortex-A53, 1.2 GHz) or a
Pi Zero 2 W (A53, 1 GHz) runs CPython some 4 to 8 times slower than one core of a current x86 server, so
a quarter core is in the range; the report says the factor measured, so a reader can scale. It is not
a Pi: memory bandwidth, the SD card's fsync and 32-bit builds are not modelled.

The benches, each run as it is in a child process (their own reports are printed whole):
1. bench/web/push/bench_fanout.py --runs 5 --commands 30 --mix 0: send -> last of 200 pages, bank / Gunicorn floor;
2. bench/system/bench_footprint.py --memory-only: the whole tree's memory with 200 pages;
3. bench/web/serving/bench_latency.py --quick (the other engineer's, unchanged, at the end): command latency against
   the authenticated and anonymous floors.

Needs root (or a delegated cgroup). The group is removed at the end.

    .venv/bin/python bench/system/pi_budget.py                          # quarter core, the three benches
    .venv/bin/python bench/system/pi_budget.py --quota 5000 --only fanout
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # bench/: the shared modules
import proctree

HERE = Path(__file__).resolve().parents[1]
V2 = Path("/sys/fs/cgroup")
V1_CPU, V1_CPUSET = Path("/sys/fs/cgroup/cpu"), Path("/sys/fs/cgroup/cpuset")
BENCHES = {
    "fanout": ["web/push/bench_fanout.py", "--runs", "5", "--commands", "30", "--mix", "0"],
    "memory": ["system/bench_footprint.py", "--memory-only"],
    "latency": ["web/serving/bench_latency.py", "--quick"],
}
MAX_SHARES_V1, MAX_WEIGHT_V2 = 262144, 10000  # the kernel's highest (a process weighs 1024, and 100 on v2)
CALIBRATION = "s = 0\nfor i in range(3_000_000):\n    s += i * i % 7\n"


class Budget:
    """A control group with one core and a CPU quota; `admit(pid)` moves a process (all its threads) in."""

    def __init__(self, core: int, quota_us: int, period_us: int, protect: bool = True, kind: str = "pi"):
        self.core, self.quota_us, self.period_us = core, quota_us, period_us
        name = f"terrabank-{kind}-{os.getpid()}"
        if (V2 / "cgroup.controllers").exists():
            self.kind, self.groups = "cgroup v2", [V2 / name]
            controllers = (V2 / "cgroup.controllers").read_text().split()
            missing = {"cpu", "cpuset"} - set(controllers)
            if missing:
                sys.exit(f"cgroup v2 here lacks the {', '.join(sorted(missing))} controller: enable it in "
                         "/sys/fs/cgroup/cgroup.subtree_control (as root) or run on another machine.")
            (V2 / "cgroup.subtree_control").write_text("+cpu +cpuset")
            self.groups[0].mkdir()
            (self.groups[0] / "cpu.max").write_text(f"{quota_us} {period_us}")
            (self.groups[0] / "cpuset.cpus").write_text(str(core))
        elif (V1_CPU / "cpu.cfs_quota_us").exists() and (V1_CPUSET / "cpuset.cpus").exists():
            self.kind, self.groups = "cgroup v1 (cpu, cpuset)", [V1_CPU / name, V1_CPUSET / name]
            for group in self.groups:
                group.mkdir()
            (self.groups[0] / "cpu.cfs_period_us").write_text(str(period_us))
            (self.groups[0] / "cpu.cfs_quota_us").write_text(str(quota_us))
            (self.groups[1] / "cpuset.cpus").write_text(str(core))
            (self.groups[1] / "cpuset.mems").write_text((V1_CPUSET / "cpuset.mems").read_text().strip().split("-")[0])
        else:
            sys.exit("no cgroup cpu controller found (neither /sys/fs/cgroup/cgroup.controllers nor "
                     "/sys/fs/cgroup/cpu/cpu.cfs_quota_us): run as root on Linux with cgroups mounted.")
        self.admitted: set = set()
        self.weight = self.protect() if protect else None

    def protect(self) -> str:
        """The highest scheduling weight the kernel takes (see the module's doc); returns what was set."""
        name, value = ("cpu.weight", MAX_WEIGHT_V2) if self.kind.startswith("cgroup v2") else ("cpu.shares", MAX_SHARES_V1)
        (self.groups[0] / name).write_text(str(value))
        return f"{name} = {(self.groups[0] / name).read_text().strip()}"

    def describe(self) -> str:
        share = self.quota_us / self.period_us
        weight = f", protected ({self.weight})" if self.weight else ", NOT protected (weight as any process)"
        return (f"{self.kind}: core {self.core} only, {self.quota_us / 1000:g} ms of CPU every "
                f"{self.period_us / 1000:g} ms ({share:.0%} of one core){weight}")

    def share(self, held: tuple[float, float]) -> str:
        """The share of one core the group got in a calibration run (wall, cpu) against its quota."""
        got, quota = held[1] / held[0], self.quota_us / self.period_us
        verdict = "its quota" if got >= 0.9 * quota else "LESS than its quota: the host took the rest"
        return f"the group got {got:.1%} of one core in the calibration ({got / quota:.0%} of {quota:.0%}: {verdict})"

    def admit(self, pid: int) -> None:
        for group in self.groups:
            try:
                (group / "cgroup.procs").write_text(str(pid))
            except OSError:  # it ended meanwhile
                return
        self.admitted.add(pid)

    def throttled(self) -> str:
        stat = (self.groups[0] / "cpu.stat").read_text()
        return " ".join(stat.split())

    def remove(self) -> None:
        for group in self.groups:
            for pid in (group / "cgroup.procs").read_text().split():
                # Anything still in it goes back to the root group, so the group can go.
                try:
                    (group.parent / "cgroup.procs").write_text(pid)
                except OSError:
                    pass
            for _ in range(50):
                try:
                    group.rmdir()
                    break
                except OSError:
                    time.sleep(0.1)


def groups_of(pid: int) -> list[Path]:
    """The cpu and cpuset groups `pid` is in now (cgroup v1), or its one group (v2)."""
    groups = []
    for line in Path(f"/proc/{pid}/cgroup").read_text().splitlines():
        _, controllers, path = line.split(":", 2)
        if (V2 / "cgroup.controllers").exists():
            if controllers == "":
                groups.append(V2 / path.lstrip("/"))
        elif "cpu" in controllers.split(","):
            groups.append(V1_CPU / path.lstrip("/"))
        elif "cpuset" in controllers.split(","):
            groups.append(V1_CPUSET / path.lstrip("/"))
    return groups


class Phones:
    """The bench's own process, which stands for the phones and tablets (other devices), on the other core with the
    highest weight, so that host load cannot make the phones late; back in its groups on `release()`.

    The pages a bench simulates answer the server's pings from one thread of this process. On this machine at load
    20-40 that thread got a few percent of a core and read pings more than 10 s after they were sent: the server
    closed hundreds of 1,000 pages as gone, a drop of the bench's making, not the server's."""

    def __init__(self, core: int, pid: int | None = None):
        self.pid = pid or os.getpid()
        self.before = groups_of(self.pid)
        self.budget = Budget(core, 100000, 100000, kind="phones")  # the whole core: a weight, not a quota
        self.budget.admit(self.pid)

    def describe(self) -> str:
        return f"the phones (this process) on core {self.budget.core}, protected ({self.budget.weight})"

    def release(self) -> None:
        for group in self.before:
            try:
                (group / "cgroup.procs").write_text(str(self.pid))
            except OSError:
                pass
        self.budget.remove()


class Jailer(threading.Thread):
    """Every 20 ms, move the processes below `root` (not `root` itself) into the budget."""

    def __init__(self, budget: Budget, root: int):
        super().__init__(daemon=True, name="jailer")
        self.budget, self.root, self.stop = budget, root, threading.Event()

    def run(self) -> None:
        while not self.stop.is_set():
            for pid in proctree.tree(self.root)[1:]:
                if pid not in self.budget.admitted:
                    self.budget.admit(pid)
            self.stop.wait(0.02)


def calibrate(budget: Budget | None) -> tuple[float, float]:
    """(wall seconds, CPU seconds) of the calibration loop, in the budget or not."""
    proc = subprocess.Popen([sys.executable, "-c", f"import time\nt, c = time.perf_counter(), time.process_time()\n"
                             f"{CALIBRATION}print(time.perf_counter() - t, time.process_time() - c)"],
                            stdout=subprocess.PIPE, text=True)
    if budget is not None:
        budget.admit(proc.pid)  # before it has done much: the import is not timed
    out, _ = proc.communicate()
    wall, cpu = (float(x) for x in out.split())
    return wall, cpu


def run_bench(budget: Budget, name: str, extra: list) -> tuple[int, str, float]:
    """(exit code, output, seconds) of one bench, its servers in the budget."""
    argv = [sys.executable, str(HERE / BENCHES[name][0]), *BENCHES[name][1:], *extra]
    started = time.monotonic()
    proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, cwd=HERE.parent)
    jailer = Jailer(budget, proc.pid)
    jailer.start()
    try:
        out, _ = proc.communicate()
    finally:
        jailer.stop.set()
        jailer.join()
    return proc.returncode, out, time.monotonic() - started


def main() -> None:
    parser = argparse.ArgumentParser(description="the benches with their servers on one core and a CPU quota")
    parser.add_argument("--core", type=int, default=0)
    parser.add_argument("--quota", type=int, default=2500, help="microseconds of CPU per period (default 2500)")
    parser.add_argument("--period", type=int, default=10000, help="microseconds (default 10000)")
    parser.add_argument("--unprotected", action="store_true", help="leave the group's weight as any process's "
                        "(to see what host load does to an unprotected quota)")
    parser.add_argument("--only", help="comma-separated: fanout, memory, latency (default all, in that order)")
    args = parser.parse_args()
    names = args.only.split(",") if args.only else list(BENCHES)
    unknown = [n for n in names if n not in BENCHES]
    if unknown:
        sys.exit(f"unknown bench {unknown}: choose among {', '.join(BENCHES)}")
    budget = Budget(args.core, args.quota, args.period, protect=not args.unprotected)
    try:
        free = min(calibrate(None) for _ in range(3))
        held = min(calibrate(budget) for _ in range(3))
        print(f"# A Raspberry Pi's budget: {budget.describe()}\n")
        print(f"Calibration (a pure-Python loop, best of 3 each): outside the budget {free[1]:.2f} s of CPU in "
              f"{free[0]:.2f} s of wall time (this machine as loaded now); in the budget {held[1]:.2f} s of CPU in "
              f"{held[0]:.2f} s: the servers run {held[0] / free[1]:.1f}x slower than on a free core of this machine "
              f"({held[0] / held[1]:.1f}x their own CPU time); {budget.share(held)}. The machine has 2 vCPUs shared with other work (load "
              f"average {os.getloadavg()[0]:.1f}): the figures below are ratios within each bench's own run.\n",
              flush=True)
        for name in names:
            code, out, seconds = run_bench(budget, name, [])
            print(f"## {name}: `{' '.join(BENCHES[name])}` ({seconds:.0f} s, exit {code}; servers in the budget: "
                  f"{len(budget.admitted)} processes so far; {budget.throttled()})\n")
            print(out, flush=True)
    finally:
        budget.remove()


if __name__ == "__main__":
    main()
