"""What 200 idle pages cost a server (CPU per command at 2 a second was 1.57x the floor's).

For each server (the bank, `terrabank serve`; the floor, bench/auth_floor_server.py --fanout), in turn: it
starts, PAGES pages connect (bench/push/page_room.Room, offering permessage-deflate as browsers do), it
settles for SETTLE s, then SECONDS with no command at all (--pace R: R harvests a second booked meanwhile,
to see where a command's round goes): the served tree's CPU in that time, per second,
and each thread of the busiest process (its /proc/<pid>/task/<tid>/stat, with what py-spy says the thread
runs when --py-spy is given: `py-spy record --gil` (the thread holding the GIL: what runs Python) of that process over the SECONDS, its stacks summed by the
frames they pass through). No quota, no pressure: this is the
cost of the pages themselves, the bank against the floor in the same run.

    nice -n 10 .venv/bin/python bench/web/push/idle_cost.py --seconds 60
"""

from __future__ import annotations

import argparse
import os
import signal
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # bench/: the shared modules
from page_room import Room, book_at_pace
from pages_under_pressure import _cpu_seconds, start_bank, start_floor

import harness
import proctree

TICK = os.sysconf("SC_CLK_TCK")


def threads_cpu(pid: int) -> dict:
    out = {}
    for task in Path(f"/proc/{pid}/task").iterdir():
        try:
            fields = (task / "stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        out[int(task.name)] = (int(fields[11]) + int(fields[12])) / TICK
    return out


def summarize(raw: Path, top: int = 60) -> str:
    """py-spy's collapsed stacks ("frame;frame;... count"): the frames with the most samples passing through."""
    through, total = Counter(), 0
    for line in raw.read_text().splitlines():
        stack, _, count = line.rpartition(" ")
        if not count.isdigit():
            continue
        total += int(count)
        for frame in set(stack.split(";")):
            through[frame] += int(count)
    rows = [f"  {100 * n / max(1, total):5.1f}%  {frame[:150]}" for frame, n in through.most_common(top)]
    return f"{total} samples (not idle):\n" + "\n".join(rows)


def measure(kind: str, start, pages: int, settle: float, seconds: float, spy: bool, pace: float) -> dict:
    with tempfile.TemporaryDirectory() as tmp:
        proc, port, url, tokens, login = start(Path(tmp))
        room = None
        try:
            room = Room(port, tokens, pages)
            time.sleep(settle)
            tree = proctree.tree(proc.pid)
            busiest = tree[-1]  # the worker (Gunicorn's master first, its worker after it)
            window = {"recorder": None}

            def begin():
                """The window starts (after the tablets' log-ins, whose password hashes it must not count)."""
                window.update(before=_cpu_seconds(tree), threads=threads_cpu(busiest), messages=room.messages())
                if spy:
                    window["recorder"] = subprocess.Popen(
                        [str(Path(sys.executable).with_name("py-spy")), "record", "--nonblocking", "--gil", "-r", "50",
                         "-d", str(int(seconds)), "-f", "raw", "-o", f"{tmp}/spy.txt", "--pid", str(busiest)],
                        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            booked = []
            if pace:
                booked, _ = book_at_pace(url, pace, seconds, tag=f"p{pace:g}-", login=login, ready=begin)
            else:
                begin()
                time.sleep(seconds)
            recorder, threads = window["recorder"], window["threads"]
            spent, after = _cpu_seconds(tree) - window["before"], threads_cpu(busiest)
            messages = room.messages() - window["messages"]
            per_thread = sorted(((after[t] - threads.get(t, 0.0), t) for t in after), reverse=True)
            dump = ""
            if recorder is not None:
                try:
                    recorder.wait(timeout=30)
                except subprocess.TimeoutExpired:  # behind on a loaded machine: stop it, it writes what it has
                    recorder.send_signal(signal.SIGINT)
                    recorder.wait(timeout=30)
                dump = summarize(Path(f"{tmp}/spy.txt"))
            return {"server": kind, "connected": pages - room.dropped(), "compressed": room.compressed(),
                    "cpu_per_s": spent / seconds, "booked": len(booked),
                    "per_command": spent / max(1, len(booked)),
                    "messages": messages, "threads": len(after), "top": per_thread[:8], "dump": dump}
        finally:
            if room is not None:
                room.close()
            harness.end(proc)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pages", type=int, default=200)
    parser.add_argument("--settle", type=float, default=10.0)
    parser.add_argument("--seconds", type=float, default=60.0)
    parser.add_argument("--servers", default="bank,floor")
    parser.add_argument("--py-spy", action="store_true")
    parser.add_argument("--pace", type=float, default=0.0, help="harvests a second meanwhile (default none)")
    args = parser.parse_args()
    starts = {"bank": start_bank, "floor": start_floor}
    print(f"# Idle pages: {args.pages}, {args.seconds:g} s without a command; load average {os.getloadavg()[0]:.1f}")
    for name in args.servers.split(","):
        r = measure(name, starts[name], args.pages, args.settle, args.seconds, args.py_spy, args.pace)
        print(f"\n{name}: {r['connected']} of {args.pages} connected ({r['compressed']} compressed); tree CPU "
              f"{1000 * r['cpu_per_s']:.1f} ms a second ({r['booked']} harvests booked, "
              f"{1000 * r['per_command']:.1f} ms each; {r['messages'] / args.pages:.1f} messages a page); {r['threads']} threads in the worker, the busiest: "
              + ", ".join(f"{tid} {1000 * cpu / args.seconds:.1f} ms/s" for cpu, tid in r["top"]))
        if r["dump"]:
            print(r["dump"])
    print(f"\nload average at the end {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
