"""The room of bench_processes.py: simulated phones spread over N server processes.

A sticky proxy sends each phone to one process and keeps it there; here phone i goes to
process i % N (round-robin) for its whole life. The room is what bench/clients.mix makes of
it (2 big screens, 3 consoles, the rest team phones), dealt out in that order. Phones sit
behind access points of 100 each (local addresses 127.0.1.k), since the bank caps the
connections of one address (bank/web/serving/server.py Limits.per_address).

The room grows a step at a time (grow), so a benchmark can find where a process stops
holding more: a connect that fails does not stop the others, it is noted and the phone
leaves the room (clients.Fleet's own start() stops at the first failure).
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections import Counter

from clients import Client, Fleet, mix

PHONES_PER_ACCESS_POINT = 100


class ClientLog(logging.Handler):
    """What python-engineio's client says when a page's connection ends (the disconnect reason it passes
    on is only "transport error"): e.g. "Server sent close packet", the server closing it."""

    def __init__(self):
        super().__init__(logging.WARNING)
        self.seen: Counter = Counter()

    def emit(self, record) -> None:
        self.seen[record.getMessage().split(",")[0][:80]] += 1


CLIENT_LOG = ClientLog()
_engineio = logging.getLogger("engineio.client")
_engineio.setLevel(logging.WARNING)  # before any client: python-engineio sets ERROR only on a logger left unset
_engineio.addHandler(CLIENT_LOG)
_engineio.propagate = False  # counted, not printed a thousand times


def access_point(i: int, per_address: int = PHONES_PER_ACCESS_POINT) -> str:
    """The local address page i connects from: `per_address` pages share one, as behind one access point
    (or all of them, as behind one proxy that does not pass the phones' own addresses on)."""
    return f"127.0.{i // per_address // 250 + 1}.{i // per_address % 250 + 1}"


async def _leave(clients: list) -> None:
    await asyncio.gather(*(c.sio.disconnect() for c in clients if c.sio), return_exceptions=True)


class GrowingFleet(Fleet):
    """A Fleet whose clients join a few at a time; `clients` holds only those connected so far."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.waiting, self.clients = self.clients, []
        self.refused: list[tuple[Client, str]] = []
        self.last_batch: list[Client] = []
        self.lags: list[float] = []  # how late this loop ran a 0.25 s timer, s: when it is behind, so are pongs
        self.thread.start()
        self._watch = asyncio.run_coroutine_threadsafe(self._watch_lag(), self.loop)

    async def _watch_lag(self, every: float = 0.25) -> None:
        while True:
            before = time.monotonic()
            await asyncio.sleep(every)
            self.lags.append(time.monotonic() - before - every)

    def stop(self) -> None:
        self._watch.cancel()
        super().stop()

    def grow(self, count: int):
        """Start connecting the next `count` clients; a concurrent Future (wait on its result())."""
        batch, self.waiting = self.waiting[:count], self.waiting[count:]
        self.last_batch = batch
        return asyncio.run_coroutine_threadsafe(self._join(batch), self.loop)

    async def _join(self, batch: list, size: int = 25) -> None:
        for i in range(0, len(batch), size):
            part = batch[i:i + size]
            results = await asyncio.gather(*(self._connect(c) for c in part), return_exceptions=True)
            for client, result in zip(part, results):
                if isinstance(result, BaseException):
                    self.refused.append((client, f"{type(result).__name__}: {result}"))
                else:
                    self.clients.append(client)


class Room:
    """`total` clients dealt round-robin over the processes at `urls`, one GrowingFleet per process."""

    def __init__(self, urls: list, tokens: dict, cookies: list, total: int,
                 per_address: int = PHONES_PER_ACCESS_POINT):
        teams, n = list(tokens), len(urls)
        kinds = mix(total, teams)
        self.fleets: list[GrowingFleet] = []
        for p, url in enumerate(urls):
            mine = list(range(p, total, n))
            count = lambda kind: sum(1 for i in mine if kinds[i][0] == kind)  # noqa: E731
            self.fleets.append(GrowingFleet(url, tokens, cookies[p], n=len(mine), displays=count("display"),
                                            facilitators=count("facilitator"),
                                            sources=[access_point(i, per_address) for i in mine]))
        self.total, self.joined = total, 0

    def grow(self, count: int, timeout: float = 120.0) -> list:
        """Connect the next `count` clients of the room (each on its own process); the new refusals."""
        count = min(count, self.total - self.joined)
        n = len(self.fleets)
        shares = [sum(1 for i in range(self.joined, self.joined + count) if i % n == p) for p in range(n)]
        before = [len(f.refused) for f in self.fleets]
        for fleet in self.fleets:
            fleet.last_batch = []
        futures = [fleet.grow(k) for fleet, k in zip(self.fleets, shares) if k]
        deadline = time.monotonic() + timeout
        for future in futures:
            future.result(max(1.0, deadline - time.monotonic()))
        self.joined += count
        return [why for fleet, b in zip(self.fleets, before) for _, why in fleet.refused[b:]]

    def drop_last_step(self, timeout: float = 60.0) -> None:
        """Disconnect the clients of the last grow() that connected; that step leaves the room for good."""
        for fleet in self.fleets:
            joined = {id(c) for c in fleet.clients}
            leaving = [c for c in fleet.last_batch if id(c) in joined]
            gone = {id(c) for c in leaving}
            fleet.clients = [c for c in fleet.clients if id(c) not in gone]
            fleet._run(_leave(leaving), timeout)
        self.joined = self.total = sum(len(f.clients) for f in self.fleets)

    def connected(self) -> int:
        return sum(f.connected() for f in self.fleets)

    def clients(self) -> list:
        return [c for f in self.fleets for c in f.clients]

    def wait_for(self, seq: int, timeout: float) -> float | None:
        """When the last client of every process had seq; None if some did not within `timeout`."""
        deadline, last = time.monotonic() + timeout, 0.0
        for fleet in self.fleets:
            at = fleet.wait_for(seq, max(0.0, deadline - time.monotonic()))
            if at is None:
                return None
            last = max(last, at)
        return last

    def stop(self) -> None:
        for fleet in self.fleets:
            fleet.stop()
