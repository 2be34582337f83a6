"""P3, "flat over a 30-minute soak": the served worker's memory stays bounded with many threads.

The soak (bench/system/bench_soak.py, 200 live pages: 810 threads in the worker) grew the worker by about
16 MB an hour. bench/soak_probe.py, inside the worker, found it in glibc's malloc: memory in use as
malloc counts it grew (+9 MB in 2 minutes of warm-up) while Python's live objects (tracemalloc) and
pymalloc did not. glibc keeps a per-thread cache of freed blocks (tcache: up to 7 blocks of each size
up to 1 KB, per thread), so each of 800 threads slowly fills its own cache with blocks no other thread
can use: up to ~200 KB a thread. With the cache off (GLIBC_TUNABLES=glibc.malloc.tcache_count=0 in
bank/cli/serve_lean.ALLOCATOR) malloc's in-use figure stayed flat in the same soak.

The test: a process started with the environment `serve` gives its served processes runs 200 threads
(a room of 50 phones' worth) that each allocate and free blocks of 500 bytes to 1 KB, the sizes
Python hands to malloc, then all wait. What malloc still counts in use while they wait must be what
was in use before, not 200 private caches.
"""

from __future__ import annotations

import ctypes
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from bank.cli.serve_lean import ALLOCATOR



def _has_mallinfo2() -> bool:
    """glibc 2.33 or later (Debian 12 has 2.36): the figure the test reads."""
    try:
        return sys.platform.startswith("linux") and hasattr(ctypes.CDLL(None), "mallinfo2")
    except OSError:
        return False


pytestmark = pytest.mark.skipif(not _has_mallinfo2(), reason="reads glibc's mallinfo2 (Linux, glibc 2.33 or later)")

THREADS = 200

# Runs in the child: malloc's in-use MB before the threads allocate, and while they all wait after freeing.
CHILD = r"""
import json, sys, threading
sys.path.insert(0, %r)
from soak_probe import mallinfo  # what the soak's probe reads inside the worker

def in_use_mb():
    return mallinfo()["uordblks"]

THREADS = %d
started, freed, leave = (threading.Barrier(THREADS + 1) for _ in range(3))

def page_thread():
    started.wait()
    for _ in range(8):  # more than the cache keeps of each size
        blocks = [bytes(size) for size in range(480, 1000, 16)]  # over 512 bytes: Python asks malloc
        del blocks
    freed.wait()
    leave.wait()

threads = [threading.Thread(target=page_thread) for _ in range(THREADS)]
for t in threads:
    t.start()
before = in_use_mb()  # every thread exists (its own state counted) and has allocated nothing yet
started.wait()
freed.wait()
after = in_use_mb()
leave.wait()
for t in threads:
    t.join()
print(json.dumps({"before": before, "after": after}))
""" % (str(Path(__file__).resolve().parents[2] / "bench"), THREADS)


def _in_use(env: dict) -> dict:
    out = subprocess.run([sys.executable, "-c", CHILD], env=env, capture_output=True, text=True, check=True,
                         timeout=120)
    return json.loads(out.stdout)


def test_issue27_p3_threads_of_the_served_worker_keep_no_private_cache_of_freed_memory():
    base = {k: v for k, v in os.environ.items() if k not in ("MALLOC_ARENA_MAX", "GLIBC_TUNABLES")}
    served = _in_use({**base, **ALLOCATOR})
    grown = served["after"] - served["before"]
    # Each thread freed everything it allocated: at most a little of the arenas' bookkeeping may stay.
    # With glibc's default per-thread cache, 200 threads kept about 33 MB here (and 810 threads of a
    # soak up to ~200 KB each, growing as each thread meets new sizes).
    assert grown < 4, (f"malloc still counts {grown:.1f} MB in use after {THREADS} threads freed all they "
                       f"allocated, with serve's environment {ALLOCATOR}: a per-thread cache is keeping it")

