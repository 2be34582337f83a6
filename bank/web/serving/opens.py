"""Handshakes of new live pages, counted by pool over a while: each makes a session that outlives an idle client.

A new page's handshake (admission.live_kind "open") makes an Engine.IO session, which lives about 20 s when its client
sends nothing more (its first ping, then the ping's timeout), with the handshake's whole environ kept by Socket.IO.
Handshakes alone, 800 a second from 4 addresses with no secret, held some 20,000 sessions and took the worker from
198 to 383 MB, never given back. So admission.LiveSlots counts them too, by the pools it counts pages by: at most
OPENS_PER_SLOT times a pool's live share over OPEN_SECONDS (a page's reconnects, reloads and tries again), after
which a handshake gets the 503 of a full pool (the page's Socket.IO client tries again by itself).
"""

from __future__ import annotations

import time
from collections import deque

OPEN_SECONDS = 30.0
OPENS_PER_SLOT = 4
DIRECT_LEAST = 16  # the share counted for WebSockets opened without a handshake, at least (Handshakes.spent)


class Handshakes:
    """Recent handshakes per pool key: no secret, a secret anyone can mint (all together), each secret the lead issued."""

    def __init__(self, clock=time.monotonic):
        self.clock = clock
        self.recent: dict[str, deque] = {}

    def spent(self, slots, who: str | None, pool: str, direct: bool = False) -> bool:
        """Whether the pool of `who` (LiveSlots `slots`' shares; `pool`: admission.pool_of) made its share of handshakes
        in the last OPEN_SECONDS; counts this one when not. Called with `slots.lock` held. `direct`: a WebSocket
        opened without a handshake (who.new_page), counted apart: such opens never take the handshakes of the
        pool's pages (a long-polling page's handshake is our pages' only way in)."""
        if pool == "anonymous":
            key, share = pool, slots.anonymous
        elif pool == "strangers" and slots.strangers is not None:
            key, share = pool, slots.strangers
        else:
            key, share = who, slots.per_stranger_secret if pool == "strangers" else slots.per_secret
        if direct:  # counted apart, and never fewer than DIRECT_LEAST: clients other than our pages' open them too
            key, share = f"{key} (WebSocket)", max(share, DIRECT_LEAST)
        now, recent = self.clock(), self.recent.setdefault(key, deque())
        while recent and recent[0] <= now - OPEN_SECONDS:
            recent.popleft()
        if len(recent) >= OPENS_PER_SLOT * max(1, share):
            return True
        recent.append(now)
        if len(self.recent) > 4 * slots.slots:  # secrets replaced or gone: keep those with recent handshakes only
            self.recent = {k: v for k, v in self.recent.items() if v and v[-1] > now - OPEN_SECONDS}
        return False
