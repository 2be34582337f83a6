"""The bench extra, loaded when a benchmark runs rather than when its module is imported.

bench/clients.py needs aiohttp (python-socketio's asyncio client), which only the `bench` extra
installs: imported at the top of a benchmark, it made even `--help` fail with a traceback.
"""

from __future__ import annotations

import sys

HOW = ("the benchmark's Socket.IO clients need the bench extra: install it with "
       "`.venv/bin/pip install -e '.[bench]'`, or install aiohttp into a folder of its own "
       "(`pip install --target DIR aiohttp`) and name that folder in BENCH_SITE=DIR "
       "(bench/clients.py says why the servers should not load it)")


def load(module: str):
    """Import `module` (clients, processes_fleet), or exit with one sentence saying what to install."""
    try:
        return __import__(module)
    except ImportError as exc:
        missing = exc.name or "aiohttp"
        if missing in (module, "bench_extra"):
            raise
        sys.exit(f"{missing} is not installed: {HOW}.")
