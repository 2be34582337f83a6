"""The benches' modules loaded by name when a benchmark runs, rather than when its module is imported.

bench/clients.py needs aiohttp (python-socketio's asyncio client), which only the `bench` extra
installs: imported at the top of a benchmark, it made even `--help` fail with a traceback.

The benches live in rooms that mirror the code (bench/web/push, bench/system, ...), so a bench that
uses another's functions finds it by its name wherever it lives: when bench_fanout.py moved into
bench/web/push, `__import__("bench_fanout")` from bench/system stopped finding it.
"""

from __future__ import annotations

import sys
from pathlib import Path

BENCH = Path(__file__).resolve().parent

HOW = ("the benchmark's Socket.IO clients need the bench extra: install it with "
       "`.venv/bin/pip install -e '.[bench]'`, or install aiohttp into a folder of its own "
       "(`pip install --target DIR aiohttp`) and name that folder in BENCH_SITE=DIR "
       "(bench/clients.py says why the servers should not load it)")


def room_of(module: str) -> Path:
    """The folder under bench/ that holds `module`.py; its name must be unique across the rooms."""
    found = [path for path in BENCH.rglob(f"{module}.py") if "results" not in path.parts]
    if len(found) != 1:
        raise ImportError(f"bench/ holds {len(found)} files named {module}.py; a bench loads one by its name",
                          name=module)
    return found[0].parent


def load(module: str):
    """Import `module` (clients, bench_fanout, ...) from whichever room holds it, or exit with one
    sentence saying what to install."""
    folder = str(room_of(module))
    if folder not in sys.path:
        sys.path.insert(0, folder)
    try:
        return __import__(module)
    except ImportError as exc:
        missing = exc.name or "aiohttp"
        if missing in (module, "bench_extra"):
            raise
        sys.exit(f"{missing} is not installed: {HOW}.")
