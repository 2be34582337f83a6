"""A sliding-window limit per key (a device's address): at most `limit` uses in any `seconds`.

Used where one device on the game's Wi-Fi could otherwise fill the disk with a short
script (new Trias games). Kept in memory: a restart forgets the counts, which only
lets a device start again, never locks one out.
"""

from __future__ import annotations

import threading
import time
from collections import deque


class Window:
    """Counts uses per key over the last `seconds`; `take` refuses the one over `limit`."""

    # Keys not used for a whole window are dropped once there are this many, so random
    # addresses cannot grow the table without end.
    SWEEP_AT = 4096

    def __init__(self, limit: int, seconds: float, clock=time.monotonic):
        self.limit, self.seconds, self._clock = limit, seconds, clock
        self._uses: dict[str, deque] = {}
        self._lock = threading.Lock()

    def take(self, key: str) -> float:
        """Count one use of `key` and return 0, or return the seconds to wait (nothing counted)."""
        now = self._clock()
        with self._lock:
            uses = self._uses.setdefault(key, deque())
            while uses and uses[0] <= now - self.seconds:
                uses.popleft()
            if len(uses) >= self.limit:
                return max(0.001, uses[0] + self.seconds - now)
            uses.append(now)
            if len(self._uses) > self.SWEEP_AT:
                self._sweep(now)
            return 0.0

    def _sweep(self, now: float) -> None:
        for key in [k for k, uses in self._uses.items() if not uses or uses[-1] <= now - self.seconds]:
            del self._uses[key]
