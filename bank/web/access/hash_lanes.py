"""Where a log-in's password is hashed: a device the account logged in on before hashes in that account's lane.

A scrypt hash costs about 0.11 s of a core (1.1 s at the tenth of a core a loaded machine leaves the
bank) and 32 MB, so the lockout hashes two at a time (lockout.HASH_SLOTS) and a log-in that finds no
slot within 3 s gets 429 "busy". Eight addresses sending complete wrong log-ins one after another held
both slots for good: the lead's own tablet, logged in there before (device cookie), waited out its 3 s
and got "busy" (5.7-12 s after it asked).

Here a trusted device (a valid device cookie for the account it logs into, device_cookie.py) hashes in
a lane of that account's, one hash at a time, that no stranger and no other account can enter. A
single lane for every trusted device was not enough: a banker looping good log-ins on their own devices
kept it full, and the lead's tablet waited behind them until "busy". An account can only fill its
own lane. Memory: the lockout's two hashes plus one per account logging in on a trusted device at that
moment, 32 MB each; lanes exist only for accounts named by a device cookie this server signed, so the
lead's accounts bound them (a stranger cannot make one). Everyone else keeps the lockout's slots,
counted as before (tests/web/access/test_security_login.py).

Evaluated and not built: strangers one hash at a time and one waiting log-in per address. It would
halve what strangers cost, but parallel guesses from one address would then be refused as "busy"
(given back) instead of counted and locked out, which the lockout's tests and its five-guesses rule
rely on; and with the lanes above, the lead no longer needs it.
"""

from __future__ import annotations

import threading
from contextlib import contextmanager

from bank.store.accounts.lockout import Busy

TRUSTED_AT_ONCE = 1  # hashes at a time in one account's lane, beside the lockout's HASH_SLOTS


class HashLanes:
    """One lane per account for its trusted devices, beside the lockout's hash slots; per process, as the slots are."""

    def __init__(self, trusted: int = TRUSTED_AT_ONCE):
        self._per_account = trusted
        self._lanes: dict[str, threading.BoundedSemaphore] = {}
        self._lock = threading.Lock()

    def _lane(self, account: str) -> threading.BoundedSemaphore:
        key = account.lower()  # usernames are matched without case (device_cookie.trusted_key)
        with self._lock:
            lane = self._lanes.get(key)
            if lane is None:
                lane = self._lanes[key] = threading.BoundedSemaphore(self._per_account)
            return lane

    @contextmanager
    def slot(self, guard, trusted: str | None):
        """Hold a place to hash in: `trusted`'s lane (the account a trusted device logs into), else one of
        `guard`'s (the lockout's) slots. Busy when none comes free within the lockout's wait."""
        if not trusted:
            with guard.hash_slot():
                yield
            return
        lane = self._lane(trusted)
        if not lane.acquire(timeout=guard.hash_wait):
            raise Busy()
        try:
            yield
        finally:
            lane.release()


_made = threading.Lock()


def hash_lanes(app) -> HashLanes:
    """The app's lanes, made on the first log-in."""
    lanes = app.extensions.get("terrabank_hash_lanes")
    if lanes is None:
        with _made:
            lanes = app.extensions.setdefault("terrabank_hash_lanes", HashLanes())
    return lanes
