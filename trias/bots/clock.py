"""A decision's clock: its seconds count from the moment the bot is asked, and no cycle collection runs in them.

The search and greedy check their deadline between judged moves and between iterations, so a
decision overruns its seconds by at most one judged move or one iteration, if nothing else runs
inside it. Python's cycle collector did: it starts whenever enough objects were allocated, and a
decision allocates many (a search's nodes, the states it looks at), so collections fell inside
decisions at random, each walking every object the process holds (its boards, the trees kept for the
next action). At a Raspberry Pi's budget they took a 0.4 s easy decision to 1.0 s and a medium one of
0.5 s to 1.0-1.7 s, and they were 30 % of a search's CPU, for nothing: the engine and the bots make
no reference cycles (their states, boards and trees are freed as soon as they are dropped, checked by
tests/trias/test_bots_decision_clock.py), so not one object was ever collected by them.

So a decision holds the collector off (`gc.disable`) and lets it go when it ends. It is the
process's collector: in a server, another thread's cyclic garbage waits while any computer seat is
deciding (at most a turn's seconds, unless several games' computers decide back to back), and is
collected as usual once none is.
"""

from __future__ import annotations

import gc
import threading
from contextlib import contextmanager

_LOCK = threading.Lock()
_HOLDERS = 0
_WAS_ENABLED = False


@contextmanager
def no_cycle_collection():
    """Hold the cycle collector off while the block runs (nested and concurrent decisions share one hold)."""
    global _HOLDERS, _WAS_ENABLED
    with _LOCK:
        if _HOLDERS == 0:
            _WAS_ENABLED = gc.isenabled()
            gc.disable()
        _HOLDERS += 1
    try:
        yield
    finally:
        with _LOCK:
            _HOLDERS -= 1
            if _HOLDERS == 0 and _WAS_ENABLED:
                gc.enable()
