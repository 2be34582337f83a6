"""The bank remembers the rows it committed and their chain heads.

Each broadcast round asked the journal again for what the bank had just written: the activity feed's new
rows, the consoles' new rows and the chain head at the picture's entry. Now they come from memory, and
must be exactly what the journal holds: the same feed and heads as a process that reads them, nothing
from a transaction that was rolled back, and the rows of another process read, not guessed.
"""

from __future__ import annotations

import itertools

import pytest

from bank.errors import RuleError
from bank.services import bank as bank_module
from bank.services.bank import TICK_PREFIX, Bank
from bank.store.journal import StorageError
from bank.web.field import payloads
from sql_statements_kit import Statements

pytestmark = pytest.mark.sqlite_file("counts the statements of the SQLite store")

HARVEST = {"type": "harvest", "team": "blue", "card": "harvester-1", "resource": "water"}
GREENHOUSE_COST = {"energy": 15, "flora": 10, "water": 10, "dioxygen": 5}  # config.toml [buildings.greenhouse]
DEADLINE = 10 * 60
ids = itertools.count(1)


def book(bank: Bank, now: float | None = None, **command):
    return bank.execute({"id": f"r{next(ids)}", "actor": "lead", **command}, now=now)


@pytest.fixture
def game(config, bank_path):
    with Bank.create(bank_path, config) as created:
        book(created, type="start_clock")
    bank = Bank.open(bank_path, config)
    yield bank
    bank.close()


@pytest.fixture
def reader(game, config, bank_path):
    """Another process on the same game: it has remembered nothing, so it reads every row and head."""
    second = Bank.open(bank_path, config)
    yield second
    second.close()


def pictures(bank: Bank, config) -> dict:
    """What a round sends: the public picture (feed + chain head) and a team's own feed."""
    return {"public": payloads.public_of(bank.last_seq, bank.state, config, 0.0, bank=bank),
            "blue": payloads.team_of(bank.last_seq, bank.state, config, "blue", 0.0, bank=bank)["team_feed"]}


def varied_play(bank: Bank) -> None:
    """Harvests, a purchase, an undo, an event closed by a tick booked with the next command."""
    for _ in range(3):
        book(bank, **HARVEST)
    book(bank, type="inventory", team="blue", counted=GREENHOUSE_COST, reason="count")
    book(bank, type="build", team="blue", building="greenhouse")
    undone = book(bank, **HARVEST)
    book(bank, type="reverse", seq=undone.seq, reason="wrong card")
    now = bank.now()
    book(bank, now=now, type="open_event", title="Flora drive", accepts=["flora"], rewards=[{"points": 5}],
         deadline_minutes=DEADLINE // 60)
    book(bank, now=now + DEADLINE + 5, **HARVEST)  # the tick closing the event is booked first


def test_rows_and_heads_from_memory_are_the_journals_and_cost_no_read(game, reader, config, monkeypatch):
    """Before: every round read the new rows and the head again (a statement each, per round)."""
    pictures(game, config)  # the first picture reads the feed's start from the journal
    monkeypatch.setattr(bank_module, "SNAPSHOT_EVERY", 5)  # a snapshot's binding is the head at its entry
    varied_play(game)
    statements = Statements.of_bank(game, monkeypatch)
    seen = statements.during(lambda: pictures(game, config))
    assert statements.seen == [], statements.seen  # the round's feed and head: no statement
    reader.catch_up()
    assert seen == pictures(reader, config)  # the same feed (undone entry marked, tick's closing) and head
    last = game.last_seq
    rows = statements.during(lambda: game.rows_upto(2, last))
    assert statements.seen == [] and rows == list(reader.journal_rows(2))
    for seq in range(1, last + 1):
        assert game.head_at(seq) == reader._journal.head_at(seq), seq
    assert [row["seq"] for row in rows if row["command_id"].startswith(TICK_PREFIX)]  # the tick's row is there too


def test_a_rolled_back_booking_leaves_nothing_remembered(game, config):
    """A tick row written, then the command refused: ROLLBACK. Nothing of it is shown or witnessed."""
    book(game, **HARVEST)
    now = game.now()
    book(game, now=now, type="open_event", title="Flora drive", accepts=["flora"], rewards=[{"points": 5}],
         deadline_minutes=DEADLINE // 60)
    before = game.last_seq
    feed_before = pictures(game, config)
    with pytest.raises(RuleError):
        book(game, now=now + DEADLINE + 5, type="build", team="blue", building="greenhouse")  # no tokens
    assert game.last_seq == before
    assert game.rows_upto(before, before + 1) == [] and game.head_at(before + 1) is None
    assert pictures(game, config) == feed_before
    booked = book(game, now=now + DEADLINE + 6, **HARVEST)  # the tick again, then the harvest: both shown
    assert [row["seq"] for row in game.rows_upto(before, booked.seq)] == [before + 1, before + 2]
    assert game.verify() == []


def test_a_booking_that_fails_to_commit_is_not_remembered(game, monkeypatch):
    """The file may not grow (as on a full disk) somewhere in the transaction: what was written is not shown."""
    book(game, **HARVEST)
    conn = game._journal._conn
    conn.execute(f"PRAGMA max_page_count={conn.execute('PRAGMA page_count').fetchone()[0]}")
    for _ in range(500):
        try:
            book(game, **HARVEST)
        except StorageError:
            break
    else:
        pytest.fail("the disk never filled")
    kept = game.last_seq
    assert game.rows_upto(kept, kept + 1) == [] and game.head_at(kept + 1) is None
    conn.execute("PRAGMA max_page_count=1073741823")
    booked = book(game, **HARVEST)
    assert [row["seq"] for row in game.rows_upto(kept - 1, booked.seq)] == [kept, kept + 1]
    assert game.verify() == []


def test_rows_another_process_booked_are_read_and_the_same(game, reader, config):
    """Rows this process did not write are read from the journal (or kept as folded), never made up."""
    book(game, **HARVEST)
    mine = pictures(game, config)
    theirs = book(reader, **HARVEST)  # `game` has not seen it yet
    assert game.rows_upto(game.last_seq, game.last_seq) == []
    game.catch_up()
    ours = book(game, **HARVEST)
    rows = game.rows_upto(theirs.seq - 2, ours.seq)
    reader.catch_up()
    assert rows == list(reader.journal_rows(theirs.seq - 2))
    assert [row["seq"] for row in rows] == [theirs.seq - 1, theirs.seq, ours.seq]
    assert game.head_at(theirs.seq) == reader._journal.head_at(theirs.seq)
    assert pictures(game, config) == pictures(reader, config) != mine
