"""A burst of notices from the other processes of a game is folded together, not a read of the journal each.

Each notice ("seq N is booked", bank/web/push/peers.py) made every other process fold the new rows: one
read of the journal per command booked on any process, paid by each of the others (4 processes spent
1.4x the CPU per booked command of one, bench/system/bench_saturation.py). Now the first notice after a
quiet spell is folded at once and those that follow within FOLD_GAP are folded together, once the gap
has passed: a page on another process still hears of a lone command at once, and of a burst's last row
within the gap. The clock is the test's own: nothing here depends on the machine's speed.
"""

from __future__ import annotations

import json
import logging

import pytest

from bank.web.push import peers


class Clock:
    def __init__(self):
        self.t = 1000.0

    def monotonic(self):
        return self.t


@pytest.fixture
def heard(monkeypatch):
    """A Peers object of a process (its Redis never reached: notices are handed to it as its loop would)."""
    clock = Clock()
    monkeypatch.setattr(peers.time, "monotonic", clock.monotonic)
    told: list = []
    process = peers.Peers("redis://127.0.0.1:1/0", "gathered", told.append, logging.getLogger("test_peers_gathered"))
    return process, told, clock


def notice(**fields) -> dict:
    return {"type": "message", "data": json.dumps({**fields, "from": "another"})}


def test_a_lone_notice_is_folded_at_once(heard):
    process, told, _ = heard
    process._heard(notice(seq=7))
    assert told == [{"seq": 7}]


def test_the_notices_of_a_burst_are_folded_together_once_the_gap_has_passed(heard):
    process, told, clock = heard
    process._heard(notice(seq=1))
    for seq in range(2, 12):  # ten commands booked on the other processes within the gap
        clock.t += peers.FOLD_GAP / 20
        process._heard(notice(seq=seq))
    assert told == [{"seq": 1}]  # before: eleven folds, eleven reads of the journal
    clock.t += peers.FOLD_GAP
    process._fold_when_due()  # the listening loop's next turn (it waits no longer than the gap)
    assert told == [{"seq": 1}, {"seq": 11}]
    process._fold_when_due()
    assert told == [{"seq": 1}, {"seq": 11}]  # nothing new heard: nothing folded


def test_other_notices_are_told_at_once_even_within_the_gap(heard):
    """A replaced link, a Trias move, a reload: each at once, as before (only a row's fold is gathered)."""
    process, told, _ = heard
    process._heard(notice(seq=3))
    process._heard(notice(seq=4))
    process._heard(notice(links=True))
    process._heard(notice(trias="t1", after=2))
    assert told == [{"seq": 3}, {"links": True}, {"trias": "t1", "after": 2}]
