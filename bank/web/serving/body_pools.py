"""The pools a request with a body draws on while it holds a pool thread: by who sends it, not by what it claims.

Every body has a deadline: one the worker's loop reads (loop_body.py) has the head's, from the
connection's accept; one read in the thread (bigger than the loop reads, or a framing Gunicorn
judges) has one from here. And every body draws on a pool:
- no secret, or a secret anyone can mint (a Trias seat link: an admission hook's name), draws on the
  strangers' `anonymous` threads, with the short deadline: minting a seat buys nothing here (were
  any secret to take its body out of every count with the long deadline, chunked bodies dripped with a
  minted seat from two addresses would hold every thread, and the phones wait for them);
- the lead's trusted device (a device cookie this server signed, naming the account) draws on its
  account's lane (`trusted` at a time), never on the strangers': anonymous log-ins from 4 addresses
  holding the 25 threads gave the lead's tablet a 503, cookie or not;
- a secret the lead issued (a team link, the big screen's key, a facilitator's session) is counted
  only for a body read in the thread, the only kind a client can hold a thread with: at most
  `per_secret` a secret and `per_address` an address, with the longer deadline. A body the loop read
  whole holds its thread only while the app works, and the live slots and the commands' own rules
  bound that.
"""

from __future__ import annotations

import threading


class BodyPools:
    """Counts of requests holding a thread with a body, by pool key; take() all of a request's keys or none."""

    def __init__(self, anonymous: int | None, per_secret: int, per_address: int, trusted: int):
        self.anonymous, self.per_secret, self.per_address, self.trusted = anonymous, per_secret, per_address, trusted
        self.lock = threading.Lock()
        self.counts: dict[tuple, int] = {}
        self.refused = 0

    def keys(self, pool: str, who: str | None, address: str, device: str | None, read_whole: bool) -> tuple:
        """The pool keys a request takes: ("anonymous",), ("trusted", account), or ("secret", who) and
        ("address", address); () for a lead's secret whose body the loop read whole. `pool`: admission.pool_of(who)."""
        if pool != "lead":
            if device:
                return (("trusted", device.lower()),)
            return (("anonymous",),) if self.anonymous is not None else ()
        if read_whole:
            return ()
        return (("secret", who), ("address", address))

    def _limit(self, key: tuple) -> int:
        kind = key[0]
        if kind == "anonymous":
            return self.anonymous
        if kind == "trusted":
            return self.trusted
        return self.per_secret if kind == "secret" else self.per_address

    def take(self, keys: tuple) -> bool:
        with self.lock:
            if any(self.counts.get(key, 0) >= self._limit(key) for key in keys):
                self.refused += 1
                return False
            for key in keys:
                self.counts[key] = self.counts.get(key, 0) + 1
            return True

    def give_back(self, keys: tuple) -> None:
        with self.lock:
            for key in keys:
                left = self.counts.get(key, 0) - 1
                if left > 0:
                    self.counts[key] = left
                else:
                    self.counts.pop(key, None)

    def held(self, kind: str) -> int:
        """How many requests hold a key of this kind now (for tests and whoever debugs)."""
        with self.lock:
            return sum(count for key, count in self.counts.items() if key[0] == kind)
