"""A device the account logged in on before hashes in its account's lane, which no stranger and no other
account can fill.

The served attack (8 addresses of wrong log-ins, the lead's tablet logging in meanwhile) is in
tests/web/serving/test_slow_senders.py; here the lanes themselves, with the lockout's real slots.
"""

from __future__ import annotations

import threading

import pytest

from bank.store.accounts.lockout import HASH_SLOTS, Busy, LoginGuard
from bank.web.access.hash_lanes import HashLanes


@pytest.fixture
def guard():
    return LoginGuard(hash_wait=0.2)


def hashing(lanes, guard, trusted: str | None):
    """A log-in hashing until released: (release, thread)."""
    started, release = threading.Event(), threading.Event()

    def run():
        with lanes.slot(guard, trusted=trusted):
            started.set()
            release.wait(10)

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    assert started.wait(10)
    return release, thread


def test_strangers_holding_every_slot_leave_a_trusted_device_its_lane(guard):
    lanes = HashLanes()
    held = [hashing(lanes, guard, trusted=None) for _ in range(HASH_SLOTS)]
    try:
        with pytest.raises(Busy):  # a stranger (or a new device) waits for the lockout's slots, then is told busy
            with lanes.slot(guard, trusted=None):
                pass
        with lanes.slot(guard, trusted="lead"):  # the lead's tablet
            pass
    finally:
        for release, thread in held:
            release.set()
            thread.join(10)


def test_an_accounts_trusted_devices_hash_one_at_a_time_and_take_no_strangers_slot(guard):
    lanes = HashLanes()
    release, thread = hashing(lanes, guard, trusted="lead")
    try:
        with pytest.raises(Busy):
            with lanes.slot(guard, trusted="lead"):
                pass
        with lanes.slot(guard, trusted=None):  # the lockout's slots are all free meanwhile
            with lanes.slot(guard, trusted=None):
                pass
    finally:
        release.set()
        thread.join(10)
    with lanes.slot(guard, trusted="lead"):  # the lane came back
        pass


def test_another_accounts_trusted_log_ins_leave_the_lead_its_lane(guard):
    """Before, one lane served every trusted device: a banker's looping good log-ins on their own device kept
    it full, and the lead's tablet got "busy" 6 times of 8."""
    lanes = HashLanes()
    release, thread = hashing(lanes, guard, trusted="banker")
    try:
        with pytest.raises(Busy):  # the banker's second log-in at once waits for the banker's lane
            with lanes.slot(guard, trusted="Banker"):
                pass
        with lanes.slot(guard, trusted="lead"):  # the lead's lane is its own
            pass
    finally:
        release.set()
        thread.join(10)
