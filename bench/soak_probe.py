"""A diagnostic hook inside the serving worker, for the soak's memory growth.

The soak grew Gunicorn's worker by ~16 MB an hour, and an in-process tracemalloc (Flask's test
client, no pages) saw almost nothing grow: the growth is in what only a served worker with live
pages does. This module is loaded in every Python process of the server through a
`sitecustomize.py` that `bench_soak.py --probe DIR` writes (PYTHONPATH, so nothing of bank/ is
touched); it arms itself only when SOAK_PROBE=DIR is set, and starts only in a forked child
(Gunicorn's worker: the master forks it, `os.register_at_fork`). Every SOAK_PROBE_EVERY seconds
(120) the worker appends one JSON line to DIR/probe-<pid>.jsonl: /proc/self/smaps_rollup, memory by
kind of mapping (proctree.kinds_mb) and the number of anonymous mappings, glibc's mallinfo2 (what
malloc holds in use / free over all arenas: fragmentation shows as free growing), threads, gc's
object counts by type, tracemalloc's traced total (SOAK_PROBE_TRACE=0 turns tracemalloc off); and
dumps a tracemalloc snapshot to DIR/tm-<pid>-<n>.snap. tracemalloc starts at the first sample (so it
sees what is allocated after warm-up and still held).

    .venv/bin/python bench/system/bench_soak.py --minutes 10 --probe /tmp/probe
    .venv/bin/python bench/soak_probe.py /tmp/probe          # one row per sample
    .venv/bin/python bench/soak_probe.py /tmp/probe 1 4      # what grew from sample 1 to sample 4
"""

from __future__ import annotations

import ctypes
import gc
import json
import os
import sys
import threading
import time
from collections import Counter
from pathlib import Path

FRAMES = 12  # tracemalloc traceback depth: enough to see who allocated through Flask/engineio
_started = False


class _MallInfo2(ctypes.Structure):
    _fields_ = [(name, ctypes.c_size_t) for name in
                ("arena", "ordblks", "smblks", "hblks", "hblkhd", "usmblks", "fsmblks", "uordblks", "fordblks",
                 "keepcost")]


def mallinfo() -> dict:
    """glibc's mallinfo2 in MB: arena (sbrk'd + arenas' heaps), hblkhd (mmapped blocks), uordblks (in use),
    fordblks (free but kept), over all arenas; {} where glibc has none."""
    try:
        fn = ctypes.CDLL(None).mallinfo2
    except (OSError, AttributeError):
        return {}
    fn.restype = _MallInfo2
    m = fn()
    return {k: getattr(m, k) / 2**20 for k in ("arena", "hblkhd", "uordblks", "fordblks")} | {
        "ordblks": m.ordblks, "hblks": m.hblks}


def rollup() -> dict:
    """smaps_rollup's sizes, MB."""
    out = {}
    for line in Path("/proc/self/smaps_rollup").read_text().splitlines()[1:]:
        key, value = line.split(":", 1)
        out[key] = int(value.split()[0]) / 1024
    return out


def anonymous_mappings() -> dict:
    """How many anonymous mappings (no file name, not a stack) and their total size, MB."""
    n = size = 0
    for line in Path("/proc/self/maps").read_text().splitlines():
        parts = line.split()
        if len(parts) == 5:  # no path: anonymous
            low, high = (int(x, 16) for x in parts[0].split("-"))
            n, size = n + 1, size + high - low
    return {"n": n, "MB": size / 2**20}


def pymalloc_arenas() -> dict:
    """Python's own allocator (sys._debugmallocstats, which only prints to fd 2: borrowed for the call):
    its 256 KB arenas now and the bytes in used blocks, free blocks and free pools, MB. Arenas held
    by a few live blocks each are fragmentation that tracemalloc, counting live blocks, cannot see."""
    import tempfile

    wanted = {"# arenas allocated current": "arenas", "# bytes in allocated blocks": "used",
              "# bytes in available blocks": "free blocks", "# bytes lost to pool headers": "pool headers",
              "# bytes in free pools": "free pools"}
    with tempfile.TemporaryFile("w+") as tmp:
        saved = os.dup(2)
        try:
            os.dup2(tmp.fileno(), 2)
            sys._debugmallocstats()
        finally:
            os.dup2(saved, 2)
            os.close(saved)
        tmp.seek(0)
        out = {}
        for line in tmp.read().splitlines():
            key, _, value = line.partition("=")
            if key.strip() in wanted:
                number = int(value.strip().replace(",", ""))
                out[wanted[key.strip()]] = number if key.strip() == "# arenas allocated current" else number / 2**20
    return out


def sample(n: int, folder: Path, started: float) -> dict:
    """One line of figures; also dumps tracemalloc's snapshot."""
    import tracemalloc

    import proctree

    gc.collect()
    types = Counter(type(o).__qualname__ for o in gc.get_objects())
    line = {"n": n, "t": round(time.monotonic() - started, 1), "rollup": rollup(),
            "kinds": proctree.kinds_mb(os.getpid()), "anon": anonymous_mappings(), "malloc": mallinfo(),
            "pymalloc": pymalloc_arenas(),
            "threads": len(threading.enumerate()), "blocks": sys.getallocatedblocks(),
            "objects": sum(types.values()), "types": dict(types.most_common(300))}
    if tracemalloc.is_tracing():
        line["traced_MB"] = tracemalloc.get_traced_memory()[0] / 2**20
        tracemalloc.take_snapshot().dump(str(folder / f"tm-{os.getpid()}-{n}.snap"))
    return line


def _loop(folder: Path, every: float, trace: bool) -> None:
    started, n = time.monotonic(), 0
    out = folder / f"probe-{os.getpid()}.jsonl"
    while True:
        time.sleep(every)
        n += 1
        if trace and n == 1:
            # From the first sample on, not from the fork: under tracemalloc the worker built its app too
            # slowly for the harness's 30 s start-up (and what grows is what is allocated after warm-up).
            import tracemalloc

            tracemalloc.start(FRAMES)
        try:
            line = sample(n, folder, started)
        except Exception as exc:  # noqa: BLE001  (a probe must not take the worker down; say why in the file)
            line = {"n": n, "error": repr(exc)}
        with out.open("a") as f:
            f.write(json.dumps(line) + "\n")


def _start_in_child() -> None:
    """In the forked worker: tracemalloc from now on, and the sampling thread (once per process tree)."""
    global _started
    if _started:
        return
    _started = True
    folder = Path(os.environ["SOAK_PROBE"])
    trace = os.environ.get("SOAK_PROBE_TRACE", "1") != "0"
    every = float(os.environ.get("SOAK_PROBE_EVERY", "120"))
    threading.Thread(target=_loop, args=(folder, every, trace), name="soak-probe", daemon=True).start()


def arm() -> None:
    """Called by the sitecustomize bench_soak writes: does nothing unless SOAK_PROBE names a folder."""
    if os.environ.get("SOAK_PROBE") and hasattr(os, "register_at_fork"):
        os.register_at_fork(after_in_child=_start_in_child)


SITECUSTOMIZE = "import soak_probe\nsoak_probe.arm()\n"


def prepare(folder: Path) -> dict:
    """Write DIR/site/sitecustomize.py; the environment a server must be started with to be probed."""
    site = folder / "site"
    site.mkdir(parents=True, exist_ok=True)
    (site / "sitecustomize.py").write_text(SITECUSTOMIZE)
    here = str(Path(__file__).resolve().parent)
    return {"SOAK_PROBE": str(folder), "PYTHONPATH": os.pathsep.join([str(site), here])}


def compare(folder: Path, first: int, last: int, top: int = 25) -> str:
    """What grew in the worker from sample `first` to sample `last`."""
    import tracemalloc

    files = sorted(folder.glob("probe-*.jsonl"))
    if not files:
        return f"no probe-*.jsonl in {folder}: run bench_soak.py with --probe {folder}"
    lines = {}
    for f in files:
        for raw in f.read_text().splitlines():
            d = json.loads(raw)
            lines[(f.stem, d["n"])] = d
    out = []
    for f in files:
        a, b = lines.get((f.stem, first)), lines.get((f.stem, last))
        if not a or not b:
            out.append(f"{f.name}: samples {first} and {last} are not both there")
            continue
        hours = (b["t"] - a["t"]) / 3600
        out.append(f"{f.name}: sample {first} (t={a['t']} s) -> {last} (t={b['t']} s), MB and MB/hour")

        def row(label, x, y):
            out.append(f"  {label:28s} {x:9.2f} -> {y:9.2f}  {(y - x) / hours:+8.2f}/h")
        for k in ("Rss", "Pss", "Anonymous", "Private_Dirty"):
            row(k, a["rollup"][k], b["rollup"][k])
        for k in a["kinds"]:
            row("kind: " + k, a["kinds"][k], b["kinds"][k])
        row("anonymous mappings MB", a["anon"]["MB"], b["anon"]["MB"])
        out.append(f"  anonymous mappings: {a['anon']['n']} -> {b['anon']['n']}; threads {a['threads']} -> "
                   f"{b['threads']}; gc objects {a['objects']} -> {b['objects']}; blocks {a['blocks']} -> {b['blocks']}")
        for k in a["malloc"]:
            if isinstance(a["malloc"][k], float):
                row("malloc " + k, a["malloc"][k], b["malloc"][k])
            else:
                out.append(f"  malloc {k}: {a['malloc'][k]} -> {b['malloc'][k]}")
        if "traced_MB" in a:
            row("tracemalloc traced", a["traced_MB"], b["traced_MB"])
        grown = sorted(((b["types"].get(t, 0) - a["types"].get(t, 0), t) for t in set(a["types"]) | set(b["types"])),
                       reverse=True)
        out.append("  object types grown most: " + ", ".join(f"{t} {d:+d}" for d, t in grown[:top] if d))
        pid = f.stem.split("-")[1]
        snaps = [folder / f"tm-{pid}-{n}.snap" for n in (first, last)]
        if all(s.exists() for s in snaps):
            old, new = (tracemalloc.Snapshot.load(str(s)) for s in snaps)
            out.append("  tracemalloc, grown most by line:")
            for stat in new.compare_to(old, "lineno")[:top]:
                out.append(f"    {stat.size_diff / 1024:+9.1f} KB {stat.count_diff:+7d} blocks  {stat.traceback[0]}")
            out.append("  tracemalloc, the 5 tracebacks grown most:")
            for stat in new.compare_to(old, "traceback")[:5]:
                out.append(f"    {stat.size_diff / 1024:+9.1f} KB {stat.count_diff:+7d} blocks")
                out += ["      " + str(fr) for fr in stat.traceback.format()[-2 * FRAMES:]]
    return "\n".join(out)


def series(folder: Path) -> str:
    """One row per sample: the worker's PSS, anonymous memory, malloc's in use / free / free chunks, objects."""
    out = []
    for f in sorted(folder.glob("probe-*.jsonl")):
        out += [f.name, "    t s   PSS MB  anon MB  heap MB  other anon MB  malloc in use / free MB  free chunks  "
                "threads  gc objects  traced MB  pymalloc arenas / used MB"]
        for raw in f.read_text().splitlines():
            d = json.loads(raw)
            if "error" in d:
                out.append(f"  sample {d['n']}: {d['error']}")
                continue
            m, k = d["malloc"], d["kinds"]
            out.append(f"  {d['t']:6.0f} {d['rollup']['Pss']:8.1f} {d['rollup']['Anonymous']:8.1f} {k['heap']:8.1f} "
                       f"{k['other anonymous']:14.1f} {m.get('uordblks', 0):10.1f} / {m.get('fordblks', 0):5.1f} "
                       f"{m.get('ordblks', 0):12d} {d['threads']:8d} {d['objects']:11d} {d.get('traced_MB', 0):10.2f}"
                       f"  {d.get('pymalloc', {}).get('arenas', 0):5d} / {d.get('pymalloc', {}).get('used', 0):.1f}")
    return "\n".join(out) or f"no probe-*.jsonl in {folder}"


if __name__ == "__main__":
    if len(sys.argv) == 2:
        print(series(Path(sys.argv[1])))
    elif len(sys.argv) == 4:
        print(compare(Path(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3])))
    else:
        sys.exit("usage: soak_probe.py DIR [FIRST LAST]   (the series; or what grew between two sample numbers)")
