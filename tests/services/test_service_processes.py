"""Several bank processes on one game: each decides on every committed row.

Two `Bank` objects opened on the same game stand for two `terrabank serve` processes:
on the SQLite file (two connections, one host) and on PostgreSQL (this module's name
puts it in conftest's BOTH_STORES). Each keeps its own live state; a command first
folds, under the game's lock, the rows the other one committed. So a stale process can
never undo an entry twice, book a tick twice, or stamp a row before one already booked.
"""

from __future__ import annotations

import itertools
import threading

import pytest

from bank.errors import BankError
from bank.services.bank import Bank

HARVEST = {"type": "harvest", "team": "blue", "card": "harvester-1", "resource": "water"}
ids = itertools.count(1)


def book(bank: Bank, now: float | None = None, **command):
    return bank.execute({"id": f"p{next(ids)}", "actor": "lead", **command}, now=now)


@pytest.fixture
def two(config, bank_path):
    """Two processes on one started game: (a, b)."""
    with Bank.create(bank_path, config) as first:
        book(first, type="start_clock")
    a, b = Bank.open(bank_path, config), Bank.open(bank_path, config)
    yield a, b
    a.close()
    b.close()


def test_a_process_decides_on_what_another_booked_a_moment_before(two):
    a, b = two
    harvest = book(a, **HARVEST)
    assert b.state.stock("blue") != a.state.stock("blue")  # b has not looked yet
    book(b, type="reverse", seq=harvest.seq, reason="wrong card")  # b folds a's harvest first
    # a, stale, tries the same correction: refused, not a second refund (R-reversal).
    with pytest.raises(BankError) as err:
        book(a, type="reverse", seq=harvest.seq, reason="wrong card")
    assert err.value.code == "already_reversed"
    assert a.state == b.state and a.last_seq == b.last_seq
    assert a.verify() == [] and b.verify() == []


def test_the_same_command_id_sent_to_two_processes_is_booked_once(two):
    a, b = two
    first = a.execute({"id": "phone-42", **HARVEST})
    again = b.execute({"id": "phone-42", **HARVEST})
    assert again.duplicate and again.seq == first.seq
    assert [r["command_id"] for r in b.journal_rows(first.seq - 1)] == ["phone-42"]
    assert b.state == a.state  # the retry made b look at the row too


def test_catch_up_folds_the_new_rows_and_says_when_there_were_none(two):
    a, b = two
    assert b.catch_up() is None
    booked = [book(a, type="award", team="red", points=n, reason="help") for n in (1, 2, 3)]
    assert b.catch_up() == booked[-1].seq
    assert b.state == a.state and b.state.reputation["red"] == 6
    assert b.catch_up() is None


def test_r34_the_end_of_a_session_is_booked_once_when_both_processes_tick(two, config):
    a, b = two
    after = a.state.clock["since"] + config.duration_seconds / config.sessions + 1
    ended_a = a.tick(now=after)
    ended_b = b.tick(now=after + 0.5)  # b's live state still says "running": it decides again under the lock
    assert ended_a is not None and ended_b is None
    rows = list(a.journal_rows())
    assert sum(e["type"] == "session_ended" for r in rows for e in r["events"]) == 1
    assert b.state == a.state and b.state.clock["session_over"]


def test_a_process_never_books_a_row_before_one_already_journalled(config, bank_path):
    """One time line for all processes: b's clock runs 30 s behind a's; once b has seen a's
    row, it stamps nothing earlier, and its game clock never runs backwards (R34)."""
    with Bank.create(bank_path, config) as first:
        book(first, type="start_clock")
    a, b = Bank.open(bank_path, config), Bank.open(bank_path, config)
    try:
        ahead = book(a, now=a.now() + 30, type="award", team="red", points=1, reason="help")
        at_a = list(a.journal_rows(ahead.seq - 1))[0]["at"]
        later = book(b, type="award", team="red", points=1, reason="help")
        at_b = list(b.journal_rows(later.seq - 1))[0]["at"]
        assert at_b >= at_a
        assert b.now() >= at_a
        assert b.state.elapsed(b.now()) >= a.state.elapsed(at_a)
    finally:
        a.close()
        b.close()


def test_two_processes_booking_at_once_lose_and_repeat_nothing(two):
    a, b = two
    per_process, errors = 25, []
    points_before = a.state.reputation["green"]

    def burst(bank: Bank, name: str) -> None:
        try:
            for n in range(per_process):
                bank.execute({"id": f"{name}-{n}", "type": "award", "team": "green", "points": 1,
                              "reason": "help"})
        except Exception as exc:  # noqa: BLE001 - reported below
            errors.append(exc)

    threads = [threading.Thread(target=burst, args=(bank, name)) for bank, name in ((a, "a"), (b, "b"))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    a.catch_up()
    b.catch_up()
    rows = list(a.journal_rows())
    assert [r["seq"] for r in rows] == list(range(1, len(rows) + 1))
    booked = [r["command_id"] for r in rows if r["command_id"][:2] in ("a-", "b-")]
    assert sorted(booked) == sorted(f"{p}-{n}" for p in "ab" for n in range(per_process))
    assert a.state == b.state and a.verify() == [] and b.verify() == []
    assert a.state.reputation["green"] == points_before + 2 * per_process  # each award counted once


def test_r34_two_processes_seeing_the_same_jump_hold_the_clock_once(config, bank_path):
    """Both processes run on one machine: a jump of its clock is seen by both. The first pauses
    the game; the second, looking first, finds it paused and books nothing (ids carry the process
    anyway, so two holds decided at the same instant could not collide); neither errors."""
    clock = {"wall": 1_800_000_000.0, "mono": 100.0}
    wall, mono = (lambda: clock["wall"]), (lambda: clock["mono"])
    with Bank.create(bank_path, config, wall=wall, mono=mono) as first:
        book(first, type="start_clock")
    a = Bank.open(bank_path, config, wall=wall, mono=mono)
    b = Bank.open(bank_path, config, wall=wall, mono=mono)
    try:
        clock["wall"] += 2 * 86400  # two days forward, the monotonic clock did not move
        held_a, held_b = a.watch_clock(), b.watch_clock()
        assert held_a is not None and held_b is None
        rows = list(a.journal_rows())
        assert sum(r["type"] == "hold_clock" for r in rows) == 1  # no empty second entry on the console
        assert sum(e["type"] == "clock_paused" for r in rows for e in r["events"]) == 1
        b.catch_up()
        assert a.state == b.state and a.state.clock["status"] == "paused"
    finally:
        a.close()
        b.close()
