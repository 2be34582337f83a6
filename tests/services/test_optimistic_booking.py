"""A command booked without looking its id up first must answer exactly as one looked up.

On the SQLite store the bank books a command's first try from what it holds in memory: its last seq
and state, and the journal's tip (seq, chain head) from its last append. The row's constraints are the
check: the UNIQUE command id refuses a retried id (id_taken), the PRIMARY KEY a seq another process
booked meanwhile (journal_moved_on), and only then is the id looked up. What a facilitator must not
notice: a retry still gets its stored result, whatever the rules would say now; a tick that was due is
not left behind by a retry; another process's row is folded, never booked twice; a transaction that
fails half-way leaves nothing, not even a tip pointing at a row that was rolled back.
"""

from __future__ import annotations

import itertools
import subprocess
import sys
from pathlib import Path

import pytest

from bank.errors import IdConflict, NotAllowed, RuleError
from bank.services.bank import TICK_PREFIX, Bank
from bank.store.journal import StorageError
from conftest import CONFIG_PATH
from sql_statements_kit import Statements

TERRABANK = str(Path(sys.executable).with_name("terrabank"))
HARVEST = {"type": "harvest", "team": "blue", "card": "harvester-1", "resource": "water"}
GREENHOUSE_COST = {"energy": 15, "flora": 10, "water": 10, "dioxygen": 5}  # config.toml [buildings.greenhouse]
DEADLINE = 10 * 60  # the event's deadline: a tick is due once it has passed
ids = itertools.count(1)


def book(bank: Bank, now: float | None = None, **command):
    return bank.execute({"id": f"o{next(ids)}", "actor": "lead", **command}, now=now)


def command_ids(bank: Bank) -> list[str]:
    return [row["command_id"] for row in bank.journal_rows()]


@pytest.fixture
def game(config, bank_path):
    """A started game on the SQLite file, with a first harvest booked (the journal's tip is known)."""
    with Bank.create(bank_path, config) as created:
        book(created, type="start_clock")
    bank = Bank.open(bank_path, config)
    book(bank, **HARVEST)
    yield bank
    bank.close()


@pytest.fixture
def other(game, config, bank_path):
    """A second process on the same game file (a CLI command, a second server)."""
    second = Bank.open(bank_path, config)
    yield second
    second.close()


def cli_verify(bank_path) -> subprocess.CompletedProcess:
    return subprocess.run([TERRABANK, "--config", str(CONFIG_PATH), "--db", str(bank_path), "verify"],
                          capture_output=True, text=True)


# ---- a retried id gets its stored result, whatever the rules would say now ----

def test_a_purchase_retried_after_it_spent_the_resources_gets_its_stored_result(game):
    book(game, type="inventory", team="blue", counted=GREENHOUSE_COST, reason="count")
    first = game.execute({"id": "buy-greenhouse", "type": "build", "team": "blue", "building": "greenhouse"})
    assert game.state.stock("blue") == {}  # spent and owned: the same build decided again is refused
    again = game.execute({"id": "buy-greenhouse", "type": "build", "team": "blue", "building": "greenhouse"})
    assert again.duplicate and again.seq == first.seq and again.events == first.events
    assert command_ids(game).count("buy-greenhouse") == 1 and game.last_seq == first.seq
    with pytest.raises(RuleError) as refused:  # a new id for the same purchase is refused, as it should be
        book(game, type="build", team="blue", building="greenhouse")
    assert refused.value.code == "building_owned" and game.last_seq == first.seq


def test_a_reversal_retried_is_answered_not_refused_as_already_reversed(game):
    harvest = book(game, **HARVEST)
    undo = {"id": "undo-7", "type": "reverse", "seq": harvest.seq, "reason": "wrong card"}
    first = game.execute(undo)
    again = game.execute(undo)
    assert again.duplicate and again.seq == first.seq and game.last_seq == first.seq


def test_a_reversal_retried_after_the_sender_lost_the_right_is_answered_as_before(game):
    """The undo check (may_undo) runs after the look-up as it did: a booked reversal's retry is its result."""
    harvest = book(game, **HARVEST)
    undo = {"id": "undo-8", "type": "reverse", "seq": harvest.seq, "reason": "wrong card"}
    first = game.execute(undo, may_undo=lambda kind: True)
    again = game.execute(undo, may_undo=lambda kind: False)
    assert again.duplicate and again.seq == first.seq
    with pytest.raises(NotAllowed):  # a new reversal by the same sender is still checked
        game.execute({**undo, "id": "undo-9", "seq": book(game, **HARVEST).seq}, may_undo=lambda kind: False)


@pytest.mark.parametrize("other_content", [
    {"type": "harvest", "team": "red", "card": "harvester-1", "resource": "water"},  # the rules would book it
    {"type": "build", "team": "red", "building": "greenhouse"},  # the rules would refuse it
    {"type": "harvest", "team": "nobody", "card": "harvester-1", "resource": "water"},  # malformed
])
def test_an_id_reused_for_other_content_is_an_id_conflict_and_books_nothing(game, other_content):
    first = game.execute({"id": "phone-3", **HARVEST})
    before = (game.last_seq, game.state)
    with pytest.raises(IdConflict) as conflict:
        game.execute({"id": "phone-3", **other_content})
    assert conflict.value.code == "id_conflict" and conflict.value.params["seq"] == first.seq
    assert (game.last_seq, game.state) == before and command_ids(game).count("phone-3") == 1


# ---- a tick that was due: a retry leaves none behind, a refusal rolls it back with the tip ----

def opened_event(bank: Bank) -> float:
    """An event closing after DEADLINE; returns the bank's time when it was opened."""
    now = bank.now()
    book(bank, now=now, type="open_event", title="Flora drive", accepts=["flora"], rewards=[{"points": 5}],
         deadline_minutes=DEADLINE // 60)
    return now


def test_a_retry_while_a_tick_is_due_books_no_tick_row(game):
    opened = opened_event(game)
    first = game.execute({"id": "late-phone", **HARVEST}, now=opened + 1)
    rows = command_ids(game)
    again = game.execute({"id": "late-phone", **HARVEST}, now=opened + DEADLINE + 5)  # the deadline passed
    assert again.duplicate and again.seq == first.seq
    assert command_ids(game) == rows  # no tick row: the look-up first never wrote one either
    assert game.state.open_event_ids  # still open: its closing is booked by the next new command
    booked = book(game, now=opened + DEADLINE + 6, **HARVEST)  # the next new command books the tick first
    assert command_ids(game)[-2:] == [f"{TICK_PREFIX}{first.seq + 1}", command_ids(game)[-1]]
    assert booked.seq == first.seq + 2 and game.verify() == []


def test_a_command_refused_after_a_due_tick_leaves_the_tip_as_it_was(game, monkeypatch, bank_path):
    """The tick's row moved the journal's tip, then the rules refused the command: ROLLBACK. The next
    booking must link to the row really last, from memory (no read), and the chain verify."""
    opened = opened_event(game)
    before = game.last_seq
    late = opened + DEADLINE + 5
    with pytest.raises(RuleError):
        book(game, now=late, type="build", team="blue", building="greenhouse")  # no tokens for it
    assert game.last_seq == before and game._journal.last_seq() == before
    statements = Statements.of_bank(game, monkeypatch)
    booked = statements.during(lambda: book(game, now=late + 1, **HARVEST))
    assert booked.seq == before + 2 and command_ids(game)[-2] == f"{TICK_PREFIX}{before + 1}"
    assert statements.reads == [], statements.seen  # booked from the tip in memory (not a look-up first)
    assert game.verify() == [] and game._journal.chain_problem() is None
    assert cli_verify(bank_path).returncode == 0


def test_a_full_disk_mid_booking_leaves_the_tip_as_it_was(game, monkeypatch):
    """Rows go in until the file may not grow (SQLITE_FULL, as on a full disk), wherever in the transaction
    that happens; once there is room, the next command links to the last row that was kept."""
    conn = game._journal._conn
    conn.execute(f"PRAGMA max_page_count={conn.execute('PRAGMA page_count').fetchone()[0]}")
    refused = None
    for _ in range(500):
        try:
            book(game, **HARVEST)
        except StorageError as exc:
            refused = exc
            break
    assert refused is not None and refused.code == "disk_full"
    kept = game.last_seq
    assert game._journal.last_seq() == kept
    conn.execute("PRAGMA max_page_count=1073741823")
    statements = Statements.of_bank(game, monkeypatch)
    booked = statements.during(lambda: book(game, **HARVEST))
    assert booked.seq == kept + 1 and statements.reads == [], statements.seen
    assert game.verify() == []


# ---- another process booked: folded, decided again, nothing twice ----

def test_a_row_another_process_booked_is_folded_and_the_next_command_follows_it(game, other, bank_path):
    theirs = book(other, **HARVEST)  # `game` holds its tip from its own last booking: now stale
    mine = game.execute({"id": "mine", **HARVEST})
    assert mine.seq == theirs.seq + 1 and not mine.duplicate
    assert command_ids(game).count("mine") == 1 and len(command_ids(game)) == mine.seq
    other.catch_up()
    assert game.state == other.state  # both harvests are in the live state of each process
    assert game.verify() == [] and cli_verify(bank_path).returncode == 0


def test_a_retry_of_an_id_another_process_booked_is_its_stored_result(game, other):
    theirs = other.execute({"id": "phone-9", **HARVEST})
    again = game.execute({"id": "phone-9", **HARVEST})  # stale: its seq and its id are both taken
    assert again.duplicate and again.seq == theirs.seq
    assert command_ids(game).count("phone-9") == 1
    assert game.state == other.state  # the answer folded the row it missed, as the look-up first did


def test_a_tick_another_process_booked_is_not_booked_again(game, other):
    opened = opened_event(game)
    other.catch_up()
    booked = other.tick(opened + DEADLINE + 5)
    assert booked is not None
    assert game.tick(opened + DEADLINE + 6) is None  # decided again on other's row: nothing left to do
    assert [i for i in command_ids(game) if i.startswith(TICK_PREFIX)] == [f"{TICK_PREFIX}{booked.seq}"]
    assert game.state == other.state and game.verify() == []


def test_the_refusals_of_the_rows_constraints_are_those_retried_decides_again_on(game):
    """The SQLite store says what PostgreSQL says (bank/store/journal_api.RETRIED), so `retried` decides again."""
    journal, seq = game._journal, game.last_seq
    row = {"fingerprint": "f", "type": "harvest", "actor": None, "at": 1.0, "command": {}, "events": []}
    for code, values in [("journal_moved_on", {"seq": seq, "command_id": "new-id"}),
                         ("id_taken", {"seq": seq + 1, "command_id": command_ids(game)[-1]})]:
        with pytest.raises(StorageError) as refused, journal.transaction():
            journal.append({**row, **values})
        assert refused.value.code == code and "send the command again" in str(refused.value)
    assert journal.last_seq() == seq and game.verify() == []
