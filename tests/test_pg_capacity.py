"""Processes add capacity (issue 24 item 4): no process holds the game while it decides.

Before: each command took the game's advisory lock with its BEGIN and kept it while it read
and applied the rows other processes had booked, decided, and sent its rows: one slow or
descheduled process stopped every other process of the game (8 commanders: 1 process 108
commands/s, 2 processes 74, 4 processes 49). Now a process decides on its own live state and
claims the seq after its last row; the primary key refuses the row when another process got
there first, and the command is decided again on the rows it missed (bank/store/journal_api.py
`retried`). The speed is measured in bench/bench_saturation.py; these tests hold what a player
would notice: nobody waits for a stalled process, and nothing is lost, doubled or decided on a
stale state.

Two `Bank` objects opened on one game in the throwaway PostgreSQL stand for two servers
(as tests/test_service_processes.py does).
"""

from __future__ import annotations

import dataclasses
import itertools
import threading

import pytest

from bank.errors import BankError
from bank.services.bank import Bank
from bank.services.journal_service import JournalService
from bank.store.journal_pg import OPTIMISTIC_TRIES
from bank.store.storage_url import PostgresTarget

HARVEST = {"type": "harvest", "team": "blue", "card": "harvester-1", "resource": "water"}
AWARD = {"type": "award", "team": "green", "points": 1, "reason": "capacity"}
ids = itertools.count(1)
LIVENESS = 30.0  # seconds a thread may take before it counts as blocked (not a measure of speed)


def book(bank: Bank, **command):
    return bank.execute({"id": f"cap{next(ids)}", "actor": "lead", **command})


@pytest.fixture
def pg_config(config, postgres_server):
    return dataclasses.replace(config, storage_url=postgres_server.url)


@pytest.fixture
def game(pg_config, tmp_path):
    """A started game in PostgreSQL; opens(n) gives n more processes on it, closed after the test."""
    path = tmp_path / "capacity.db"
    with Bank.create(path, pg_config) as first:
        book(first, type="start_clock")
    opened = []

    def opens(n: int) -> list[Bank]:
        banks = [Bank.open(path, pg_config) for _ in range(n)]
        opened.extend(banks)
        return banks

    yield opens
    for bank in opened:
        bank.close()


class Stall:
    """Makes one process stop just before it sends its row (a process descheduled on a busy machine,
    or a slow decision), once: `reached` when it is there, `release()` lets it go on."""

    def __init__(self, bank: Bank):
        self.reached, self._go, self._armed = threading.Event(), threading.Event(), True
        journal = bank._journal
        append = journal.append

        def stalled_append(row):
            if self._armed:
                self._armed = False
                self.reached.set()
                self._go.wait(LIVENESS * 2)
            return append(row)

        journal.append = stalled_append

    def release(self) -> None:
        self._go.set()


def in_thread(fn) -> tuple[threading.Thread, dict]:
    out: dict = {}

    def run():
        try:
            out["result"] = fn()
        except BaseException as exc:  # noqa: BLE001 - handed to the test
            out["error"] = exc

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    return thread, out


def test_a_stalled_process_stops_no_other_process_and_decides_again_on_what_they_booked(game):
    """Before: b waited for a's lock for as long as a stalled (here: for ever)."""
    a, b = game(2)
    harvest = book(a, **HARVEST)
    stall = Stall(a)
    # a decides a correction of the harvest, then stalls before its row goes out.
    a_thread, a_out = in_thread(lambda: book(a, type="reverse", seq=harvest.seq, reason="wrong card"))
    assert stall.reached.wait(LIVENESS)
    try:
        b_thread, b_out = in_thread(lambda: book(b, type="reverse", seq=harvest.seq, reason="wrong card"))
        b_thread.join(LIVENESS)
        assert not b_thread.is_alive(), "b waited for the stalled process a"
        assert "result" in b_out, b_out
    finally:
        stall.release()
    a_thread.join(LIVENESS)
    assert not a_thread.is_alive()
    # a's row lost the race for its seq; a folded b's correction and decided again: refused, no second refund.
    assert isinstance(a_out.get("error"), BankError) and a_out["error"].code == "already_reversed", a_out
    a.catch_up()
    assert a.last_seq == b.last_seq == b_out["result"].seq
    assert a.state == b.state
    assert a.verify() == [] and b.verify() == []


def test_four_processes_booking_at_once_lose_nothing_and_book_nothing_twice(game):
    """Every command, on whichever process, is booked once; the same id sent to all four is one row;
    the rows follow each other without a gap and every process ends on the same state (R-ledger)."""
    banks = game(4)
    acknowledged: list[list] = [[] for _ in banks]
    errors: list = []
    start = threading.Barrier(len(banks))

    def commander(p: int) -> None:
        start.wait()
        for n in range(40):
            shared = n % 8 == 0  # the same command reaches every process (a phone retrying on another)
            key = f"shared-{n}" if shared else f"p{p}-{n}"
            command = {"id": key, "actor": "lead", **(AWARD if shared or n % 2 else HARVEST)}
            if not shared and command["type"] == "harvest":
                command["team"] = ("blue", "green", "red", "yellow")[p % 4]
                command["card"] = f"harvester-{n % 2 + 1}"
            try:
                acknowledged[p].append((key, banks[p].execute(command)))
            except BankError as exc:  # a rule's refusal (a card still cooling down) books nothing: fine
                if exc.code in ("journal_moved_on", "id_taken", "database_error"):
                    errors.append(exc)

    threads = [threading.Thread(target=commander, args=(p,)) for p in range(len(banks))]
    for t in threads:
        t.start()
    for t in threads:
        t.join(LIVENESS * 4)
    assert errors == []
    rows = list(banks[0].journal_rows())
    assert [r["seq"] for r in rows] == list(range(1, len(rows) + 1))
    booked = [r["command_id"] for r in rows]
    assert len(booked) == len(set(booked))
    by_key = {}
    for done in acknowledged:
        for key, result in done:
            by_key.setdefault(key, set()).add(result.seq)
            assert booked[result.seq - 1] == key  # the seq it was told is the row holding it
    assert all(len(seqs) == 1 for seqs in by_key.values())
    assert sum(len(done) for done in acknowledged) == len(by_key) + 3 * sum(1 for k in by_key if k.startswith("shared"))
    for bank in banks:
        bank.catch_up()
        assert bank.state == banks[0].state and bank.verify() == []


def test_a_trias_move_sent_to_three_processes_at_once_is_decided_on_every_row_and_booked_once(postgres_server):
    """The journal service (Trias) claims its seq the same way: three processes of one game, moves at once."""
    where = PostgresTarget(postgres_server.url, f"capacity-trias-{next(ids)}")
    rebuild = lambda rows: len(rows)  # noqa: E731 - the state: how many rows were folded

    def decide(state, command, seq):
        assert state == seq - 1, "decided on a state that misses rows"
        return [{"type": "noted", "n": command["n"]}], state + 1

    JournalService.create(where, {"seats": 2}, rebuild, first={"id": "setup", "n": 0}, decide=decide).close()
    services = [JournalService.open(where, rebuild) for _ in range(3)]
    start = threading.Barrier(3)

    def player(s: int) -> list:
        start.wait()
        return [services[s].execute({"n": i}, f"m{s}-{i}", "cli", decide).seq for i in range(30)]

    outs = [in_thread(lambda s=s: player(s)) for s in range(3)]
    for thread, _ in outs:
        thread.join(LIVENESS * 2)
    seqs = sorted(seq for _, out in outs for seq in out["result"])
    assert seqs == list(range(2, 92))
    for service in services:
        service.refresh()
        assert service.state == 91 and service.verify() == []
        service.close()


def waiting_for_the_game(url: str) -> int:
    """Backends waiting for an advisory lock (a game's write lock) now."""
    import psycopg
    with psycopg.connect(url) as conn:
        return conn.execute("SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND NOT granted").fetchone()[0]


def test_a_process_that_keeps_losing_the_race_takes_the_game_and_books(game, postgres_server):
    """A process beaten to its seq OPTIMISTIC_TRIES times in a row decides under the game's lock: it
    cannot lose again, however busy the others are (no console waits for ever on a busy game)."""
    a, b, c = game(3)
    losses, third = [], {}
    append = a._journal.append

    def losing_append(row):
        if len(losses) < OPTIMISTIC_TRIES:  # b books the seq a claims, just before a's row goes out
            thread, out = in_thread(lambda: book(b, **AWARD))
            thread.join(LIVENESS)
            assert not thread.is_alive(), "b waited for a"
            losses.append(out["result"].seq)
        elif not third:  # a holds the game now: c, booking meanwhile, waits for a's COMMIT
            third["c"] = in_thread(lambda: book(c, **AWARD))
            pause = threading.Event()
            for _ in range(int(LIVENESS * 10)):
                if waiting_for_the_game(postgres_server.url):
                    break
                pause.wait(0.1)
            third["waited"] = waiting_for_the_game(postgres_server.url)
        return append(row)

    a._journal.append = losing_append
    mine = book(a, **AWARD)
    c_thread, c_out = third["c"]
    c_thread.join(LIVENESS)
    assert third["waited"] == 1 and len(losses) == OPTIMISTIC_TRIES
    assert mine.seq == losses[-1] + 1 and c_out["result"].seq == mine.seq + 1
    for bank in (a, b, c):
        bank.catch_up()
        assert bank.state == a.state and bank.verify() == []
