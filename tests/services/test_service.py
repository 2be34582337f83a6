"""The bank service: exactly-once commands, refusals that change nothing, reopen, verify."""

from __future__ import annotations

import sqlite3
import threading

import pytest

from bank.game.config import parse_config
from bank.errors import BankError, CommandError, IdConflict, RuleError
from bank.store.journal import Journal, StorageError
from bank.services.bank import SNAPSHOT_EVERY, Bank, fingerprint
from conftest import CONFIG_PATH

HARVEST = {"type": "harvest", "team": "blue", "card": "harvester-1", "resource": "water"}


def _journal_ids(bank) -> list:
    return [row["command_id"] for row in bank.journal_rows()]


def _harvests(bank, count: int, prefix: str = "h") -> None:
    """`count` harvests spread over the teams, cards and resources."""
    teams, resources = list(bank.config.teams), ["water", "flora", "dioxygen", "fauna", "energy"]
    for i in range(count):
        bank.execute({"id": f"{prefix}{i}", "type": "harvest", "team": teams[i % len(teams)],
                      "card": f"harvester-{i % 2 + 1}", "resource": resources[i % 5]})


def test_create_journals_the_setup_command(bank):
    first = bank.journal_rows().__next__()
    assert (first["seq"], first["command_id"], first["type"]) == (1, "setup", "setup")
    assert bank.last_seq == 1
    assert bank.state.stock("blue") == {"water": 5}


def test_create_refuses_an_existing_game_unless_forced(bank, config, bank_path):
    with pytest.raises(StorageError) as err:
        Bank.create(bank_path, config)
    assert err.value.code == "database_exists"
    assert "--force" in err.value.message
    bank.close()
    Bank.create(bank_path, config, force=True).close()
    assert not list(bank_path.parent.glob("*.creating*"))  # no temporary file left


def test_idempotent_retry_gives_one_row(started):
    before = started.last_seq
    results = [started.execute({"id": "retry-1", **HARVEST}) for _ in range(5)]
    after_first = started.state.to_dict()
    assert [r.duplicate for r in results] == [False, True, True, True, True]
    assert {r.seq for r in results} == {before + 1}
    assert all(r.events == results[0].events for r in results)
    assert started.last_seq == before + 1
    assert _journal_ids(started).count("retry-1") == 1
    assert started.state.to_dict() == after_first
    assert started.state.stock("blue") == {"water": 6}


def test_same_id_with_other_content_is_a_conflict(started):
    started.execute({"id": "c-1", **HARVEST})
    seq, state = started.last_seq, started.state.to_dict()
    with pytest.raises(IdConflict) as err:
        started.execute({"id": "c-1", **HARVEST, "resource": "flora"})
    assert err.value.code == "id_conflict"
    assert "already used for another command" in err.value.message
    assert "new id" in err.value.message
    assert (started.last_seq, started.state.to_dict()) == (seq, state)


def test_fingerprint_ignores_the_id_and_key_order():
    a = {"id": "1", "type": "award", "team": "red", "points": 2}
    b = {"points": 2, "team": "red", "type": "award", "id": "2"}
    assert fingerprint(a) == fingerprint(b)
    assert fingerprint(a) != fingerprint({**a, "points": 3})


@pytest.mark.parametrize("command", [
    {"type": "harvest", "team": "purple", "card": "harvester-1", "resource": "water"},
    {"type": "harvest", "team": "blue", "card": "harvester-1", "resource": "joker"},
    {"type": "no_such_command"},
])
def test_refused_command_changes_nothing(started, command):
    seq, state, ids = started.last_seq, started.state.to_dict(), _journal_ids(started)
    with pytest.raises(BankError):
        started.execute({"id": "refused", **command})
    assert started.last_seq == seq
    assert started.state.to_dict() == state
    assert _journal_ids(started) == ids
    # The id stays free: the corrected command may use it.
    assert started.execute({"id": "refused", **HARVEST}).duplicate is False


def test_play_before_the_clock_starts_is_refused(bank):
    with pytest.raises(RuleError) as err:
        bank.execute({"id": "early", **HARVEST})
    assert err.value.code == "clock_not_running"
    assert bank.last_seq == 1


@pytest.mark.parametrize("bad_id", [None, "", "x" * 101, "line\nbreak", 7])
def test_command_id_is_required_and_sane(bank, bad_id):
    command = {"type": "award", "team": "blue", "points": 1, "reason": "fair play"}
    if bad_id is not None:
        command["id"] = bad_id
    with pytest.raises(CommandError) as err:
        bank.execute(command)
    assert err.value.code == "bad_command_id"


@pytest.mark.parametrize("actor", [{"name": "ana"}, "x" * 101, 3])
def test_actor_must_be_a_short_text(bank, actor):
    with pytest.raises(CommandError) as err:
        bank.execute({"id": "a", "type": "refill", "resource": "water", "amount": 1,
                      "actor": actor})
    assert err.value.code == "bad_actor"
    assert bank.last_seq == 1


@pytest.mark.parametrize("command", [
    {"id": "tick:99", "type": "award", "team": "blue", "points": 1, "reason": "x"},
    {"id": "s", "type": "setup"},
    {"id": "t", "type": "tick"},
])
def test_ids_and_commands_of_the_bank_itself_are_refused(bank, command):
    with pytest.raises(CommandError):
        bank.execute(command)
    assert bank.last_seq == 1


def test_tick_is_journaled_only_when_it_does_something(bank):
    t0 = 1_000_000.0
    bank.execute({"id": "go", "type": "start_clock"}, now=t0)
    assert bank.tick(now=t0 + 60) is None
    seq = bank.last_seq
    # Half of the 3 hours: the first session ends (R34), before the next command.
    result = bank.execute({"id": "a1", "type": "award", "team": "red", "points": 2,
                           "reason": "fair play"}, now=t0 + 91 * 60)
    tick_row = bank._journal.row(seq + 1)
    assert tick_row["command_id"] == f"tick:{seq + 1}"
    assert [e["type"] for e in tick_row["events"]] == ["session_ended"]
    assert result.seq == seq + 2
    assert bank.state.clock["status"] == "paused"


def test_r34_timer_tick_ends_the_session_once(bank):
    t0 = 1_000_000.0
    bank.execute({"id": "go", "type": "start_clock"}, now=t0)
    result = bank.tick(now=t0 + 90 * 60)
    assert [e["type"] for e in result.events] == ["session_ended"]
    assert bank._journal.row(result.seq)["command_id"] == f"tick:{result.seq}"
    assert bank.tick(now=t0 + 95 * 60) is None  # paused now: nothing more to do
    assert bank.last_seq == result.seq
    assert bank.verify() == []


def test_lookup_gives_a_journal_row(started):
    result = started.execute({"id": "look", **HARVEST})
    row = started._lookup(result.seq)
    assert row == {"seq": result.seq, "command": {"id": "look", **HARVEST},
                   "events": result.events}
    assert started._lookup(10_000) is None


def test_rolls_use_the_die_faces(bank, config):
    assert set(bank._roll(60)) <= set(config.dice_faces)


def test_reopen_without_snapshot_gives_the_live_state(started, config, bank_path):
    _harvests(started, 30)
    live, seq = started.state, started.last_seq
    started.close()
    with Bank.open(bank_path, config) as again:
        assert again.state == live
        assert again.last_seq == seq
        assert again._journal.latest_snapshot() is None


@pytest.mark.sqlite_file("patches the SQLite Journal class (PostgreSQL: test_postgres_journal.py)")
def test_reopen_from_a_snapshot_gives_the_live_state(started, config, bank_path, monkeypatch):
    _harvests(started, SNAPSHOT_EVERY + 20)
    live, seq = started.state, started.last_seq
    assert started._journal.latest_snapshot()[0] == SNAPSHOT_EVERY
    assert started.verify() == []
    started.close()
    read_after = []
    rows = Journal.rows
    monkeypatch.setattr(Journal, "rows", lambda self, after_seq=0: read_after.append(after_seq)
                        or rows(self, after_seq))
    with Bank.open(bank_path, config) as again:
        assert again.state == live
        assert again.last_seq == seq
    assert read_after == [SNAPSHOT_EVERY]  # only the tail was read


def test_verify_is_empty_on_a_good_game(started):
    _harvests(started, 10)
    started.execute({"id": "r", "type": "refill", "resource": "water", "amount": 10})
    assert started.verify() == []


def _tamper(path, seq: int, change) -> None:
    """Edit a journal row behind the bank's back, as an attacker with sqlite3 would."""
    raw = sqlite3.connect(path)
    raw.execute("DROP TRIGGER journal_no_update")
    events = raw.execute("SELECT events FROM journal WHERE seq=?", (seq,)).fetchone()[0]
    raw.execute("UPDATE journal SET events=? WHERE seq=?", (change(events), seq))
    raw.commit()
    raw.close()


@pytest.mark.sqlite_file("edits it with sqlite3 (PostgreSQL: test_postgres_attacks.py)")
def test_verify_reports_a_tampered_row(started, bank_path):
    result = started.execute({"id": "t1", **HARVEST})
    _tamper(bank_path, result.seq, lambda ev: ev.replace('"amount":1', '"amount":7'))
    problems = started.verify()
    assert any("live state differs" in p for p in problems), problems


@pytest.mark.sqlite_file("edits it with sqlite3 (PostgreSQL: test_postgres_attacks.py)")
def test_verify_reports_a_row_tampered_before_a_snapshot(started, config, bank_path):
    _harvests(started, SNAPSHOT_EVERY)
    started.close()
    _tamper(bank_path, 10, lambda ev: ev.replace('"amount":1', '"amount":3'))
    with Bank.open(bank_path, config) as again:
        problems = again.verify()
    assert any(f"snapshot at seq {SNAPSHOT_EVERY} differs" in p for p in problems), problems


@pytest.mark.sqlite_file("edits it with sqlite3 (PostgreSQL: test_postgres_attacks.py)")
def test_verify_reports_deleted_rows(started, config, bank_path):
    _harvests(started, 5)
    started.close()
    raw = sqlite3.connect(bank_path)
    raw.execute("DROP TRIGGER journal_no_delete")
    raw.execute("DELETE FROM journal WHERE seq IN (3, 4)")
    raw.commit()
    raw.close()
    with Bank.open(bank_path, config) as again:
        assert "seqs 3 to 4 are missing (rows deleted)" in again.verify()


def test_config_with_other_team_ids_is_refused(bank, bank_path):
    bank.close()
    text = CONFIG_PATH.read_text(encoding="utf-8").replace('id = "blue"', 'id = "navy"')
    with pytest.raises(BankError) as err:
        Bank.open(bank_path, parse_config(text, "other.toml"))
    assert err.value.code == "config_mismatch"
    assert "blue" in err.value.message and "navy" in err.value.message
    assert "Restore the config.toml" in err.value.message


def test_concurrent_commands_are_serialised(started):
    seq = started.last_seq

    def worker(team: str) -> None:
        for i in range(20):
            started.execute({"id": f"{team}-{i}", "type": "harvest", "team": team,
                             "card": "harvester-2", "resource": "energy"})

    threads = [threading.Thread(target=worker, args=(t,)) for t in started.config.teams]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert started.last_seq == seq + 20 * len(threads)
    assert started.verify() == []
