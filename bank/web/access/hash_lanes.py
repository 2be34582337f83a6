"""Where a log-in's password is hashed: a device the account logged in on before has a lane of its own.

Issue 34, item 4. A scrypt hash costs about 0.11 s of a core (1.1 s at the tenth of a core a loaded
machine leaves the bank) and 32 MB, so the lockout hashes two at a time (lockout.HASH_SLOTS) and a
log-in that finds no slot within 3 s gets 429 "busy". Eight addresses sending complete wrong log-ins
one after another held both slots for good: the lead's own tablet, logged in there before (device
cookie), waited out its 3 s and got "busy" (5.7-12 s after it asked).

Here a trusted device (a valid device cookie for the account, device_cookie.py) hashes in a lane that
no stranger can enter: one hash at a time, beside the lockout's two, so at most 3 x 32 MB. Everyone
else keeps the lockout's slots, counted as before (tests/test_security_login.py).

Evaluated and not built: strangers one hash at a time and one waiting log-in per address. It would
halve what strangers cost, but parallel guesses from one address would then be refused as "busy"
(given back) instead of counted and locked out, which the lockout's tests and its five-guesses rule
rely on; and with the lane above, the lead no longer needs it.
"""

from __future__ import annotations

import threading
from contextlib import contextmanager

from bank.store.accounts.lockout import Busy

TRUSTED_AT_ONCE = 1  # hashes of trusted devices at a time, beside the lockout's HASH_SLOTS


class HashLanes:
    """The trusted devices' lane beside the lockout's hash slots; per process, as the slots are."""

    def __init__(self, trusted: int = TRUSTED_AT_ONCE):
        self._trusted = threading.BoundedSemaphore(trusted)

    @contextmanager
    def slot(self, guard, trusted: bool):
        """Hold a place to hash in: the trusted lane for a trusted device, else one of `guard`'s (the
        lockout's) slots. Busy when none comes free within the lockout's wait."""
        if not trusted:
            with guard.hash_slot():
                yield
            return
        if not self._trusted.acquire(timeout=guard.hash_wait):
            raise Busy()
        try:
            yield
        finally:
            self._trusted.release()


_made = threading.Lock()


def hash_lanes(app) -> HashLanes:
    """The app's lanes, made on the first log-in."""
    lanes = app.extensions.get("terrabank_hash_lanes")
    if lanes is None:
        with _made:
            lanes = app.extensions.setdefault("terrabank_hash_lanes", HashLanes())
    return lanes
