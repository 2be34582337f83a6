"""Memory and threads of a server's whole process tree (read from /proc, Linux only).

`terrabank serve` is Gunicorn's master plus one worker that holds the game, the phones and
every thread: measuring the master's pid alone reads an idle ~58 MB and 1 thread for hours.
"""

from __future__ import annotations

import os
from pathlib import Path


def children(pid: int) -> list:
    """The direct children of `pid` (none once it has gone)."""
    try:
        return [int(p) for p in Path(f"/proc/{pid}/task/{pid}/children").read_text().split()]
    except OSError:
        return []


def _status_field(pid: int, name: str) -> int:
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith(name + ":"):
                return int(line.split()[1])
    except OSError:
        pass
    return 0


def tree(pid: int) -> list:
    """`pid` and every process below it."""
    out, todo = [], [pid]
    while todo:
        p = todo.pop()
        out.append(p)
        todo.extend(children(p))
    return out


def rss_mb(pid: int) -> float:
    """Resident memory of the whole tree, MB (shared pages counted in each process)."""
    return sum(_status_field(p, "VmRSS") for p in tree(pid)) / 1024


def pss_mb(pid: int) -> float:
    """Proportional set size of the whole tree, MB: shared pages split between the processes."""
    return sum(_pss_kb(p) for p in tree(pid)) / 1024


def _pss_kb(pid: int) -> int:
    try:
        for line in Path(f"/proc/{pid}/smaps_rollup").read_text().splitlines():
            if line.startswith("Pss:"):
                return int(line.split()[1])
    except OSError:
        pass
    return 0


def _private_kb(pid: int) -> int:
    """Pages of this process no other process maps (Private_Clean + Private_Dirty)."""
    total = 0
    try:
        for line in Path(f"/proc/{pid}/smaps_rollup").read_text().splitlines():
            if line.startswith(("Private_Clean:", "Private_Dirty:")):
                total += int(line.split()[1])
    except OSError:
        pass
    return total


def own_mb(pid: int) -> float:
    """The whole tree's memory as a Raspberry Pi running only it would see it used, MB: the resident
    memory of its largest process (the worker: every page it maps, shared with the master or not) plus what each
    other process holds alone (the master's private pages). Every page counted once, and none left out because
    another program on this machine happens to map it too (PSS splits those; the Pi has no other server)."""
    sizes = [(_status_field(p, "VmRSS"), p) for p in tree(pid)]
    if not sizes:
        return 0.0
    largest = max(sizes)[1]
    return (max(sizes)[0] + sum(_private_kb(p) for _, p in sizes if p != largest)) / 1024


def processes(pid: int) -> list:
    """[(pid, name, RSS MB, PSS MB)] of each process of the tree, `pid` (Gunicorn's master) first:
    the per-process lines beside the tree's totals (the master alone was once read as "the bank")."""
    out = []
    for p in tree(pid):
        try:
            name = Path(f"/proc/{p}/comm").read_text().strip()
        except OSError:
            continue
        out.append((p, "master" if p == pid else f"worker ({name})" if p in children(pid) else name,
                    _status_field(p, "VmRSS") / 1024, _pss_kb(p) / 1024))
    return out


def largest_vmsize_mb(pid: int) -> float:
    """Address space (VmSize) of the tree's largest process, MB: what a 32-bit system must fit in one process."""
    return max((_status_field(p, "VmSize") for p in tree(pid)), default=0) / 1024


def threads(pid: int) -> int:
    """Threads in the whole tree."""
    return sum(_status_field(p, "Threads") for p in tree(pid))


def cpu_seconds(pids: list) -> float:
    """User + system CPU time of the process trees of `pids` so far (from /proc, Linux), with that of their
    children that ended (the bank draws its state sheets in a child process that exits: its time is the bank's)."""
    total = 0
    for pid in pids:
        for p in tree(pid):
            try:
                fields = Path(f"/proc/{p}/stat").read_text().rsplit(")", 1)[1].split()
                total += sum(int(f) for f in fields[11:15])  # utime, stime, cutime, cstime (fields 14-17)
            except (OSError, IndexError, ValueError):
                pass
    return total / os.sysconf("SC_CLK_TCK")


def machine_ticks() -> tuple[int, int]:
    """(busy, all) CPU ticks of the whole machine so far, every program included (/proc/stat)."""
    values = [int(x) for x in Path("/proc/stat").read_text().splitlines()[0].split()[1:8]]
    idle = values[3] + values[4]  # idle + iowait
    return sum(values) - idle, sum(values)


def kinds_mb(pid: int) -> dict:
    """Where one process's resident memory is, MB of PSS by kind of mapping, from /proc/<pid>/smaps:
    thread stacks (the 512 KB stacks `serve` sets, bank/web/serving/limits.py), the main heap, other anonymous
    memory (malloc's thread arenas, Python's object arenas and its 16 KB frame stacks, one per thread), and
    files (the interpreter, shared libraries: mostly shared with the other processes)."""
    out = {"thread stacks": 0, "heap": 0, "other anonymous": 0, "files": 0}
    kind = None
    try:
        lines = Path(f"/proc/{pid}/smaps").read_text().splitlines()
    except OSError:
        return out
    for line in lines:
        head = line.split(maxsplit=5)
        if len(head) >= 5 and "-" in head[0] and ":" not in head[0]:
            low, high = (int(x, 16) for x in head[0].split("-"))
            name = head[5] if len(head) > 5 else ""
            if name == "[heap]":
                kind = "heap"
            elif name.startswith("/"):
                kind = "files"
            elif not name and 500 * 1024 <= high - low <= 530 * 1024:
                kind = "thread stacks"
            else:
                kind = "other anonymous"
        elif line.startswith("Pss:") and kind:
            out[kind] += int(line.split()[1])
    return {k: v / 1024 for k, v in out.items()}
