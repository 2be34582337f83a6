"""Tamper evidence: each journal row's hash is chained to the previous row's.

The attack: open terrabank.db with the sqlite3 tool, drop the append-only trigger
and change a team's tokens in a row written after the last snapshot. SQLite's
integrity check and the replay agree with the edited file; the chain does not.
"""

from __future__ import annotations

import json
import os
import sqlite3
import stat

import pytest

from bank.cli.main import main
from bank.cli.serve import check_database
from bank.store.journal import StorageError
from bank.services.bank import Bank


def _tamper(path, sql: str, params=()) -> None:
    """What somebody with the sqlite3 tool does: drop the guard, edit, leave."""
    conn = sqlite3.connect(path)
    conn.execute("DROP TRIGGER IF EXISTS journal_no_update")
    conn.execute("DROP TRIGGER IF EXISTS journal_no_delete")
    conn.execute(sql, params)
    conn.commit()
    conn.close()


def _harvests(bank, n=5):
    bank.execute({"id": "start", "type": "start_clock"})
    for i in range(n):
        bank.execute({"id": f"h{i}", "type": "harvest", "team": "blue", "card": f"harvester-{i % 2 + 1}",
                      "resource": "water"}, now=bank.now() + 400 * (i + 1))
    return bank.last_seq


@pytest.mark.sqlite_file("sqlite3 beside the bank (PostgreSQL: test_postgres_attacks.py)")
def test_an_edited_row_after_the_last_snapshot_is_named_by_verify_and_at_start(config, bank_path):
    bank = Bank.create(bank_path, config)
    last = _harvests(bank)
    bank.close()
    row = sqlite3.connect(bank_path).execute("SELECT events FROM journal WHERE seq=?", (last,)).fetchone()[0]
    events = json.loads(row)
    for event in events:
        if event["type"] == "transfer":
            event["amount"] += 8  # 416 water becomes 424
    _tamper(bank_path, "UPDATE journal SET events=? WHERE seq=?", (json.dumps(events), last))

    with Bank.open(bank_path, config) as reopened:
        problems = reopened.verify()
    assert problems and f"journal row {last} was changed" in problems[0]
    with pytest.raises(StorageError) as refused:
        check_database(bank_path)  # `terrabank serve` refuses to start on it
    assert refused.value.code == "database_corrupt" and f"journal row {last}" in refused.value.message


@pytest.mark.sqlite_file("sqlite3 beside the bank (PostgreSQL: test_postgres_attacks.py)")
def test_a_deleted_last_row_is_named(config, bank_path):
    bank = Bank.create(bank_path, config)
    last = _harvests(bank, 3)
    bank.close()
    _tamper(bank_path, "DELETE FROM journal WHERE seq=?", (last,))
    with Bank.open(bank_path, config) as reopened:
        assert any(f"journal row {last} was deleted" in p for p in reopened.verify())


def test_an_untouched_game_verifies_and_verify_prints_the_chain_head(config, bank_path, capsys):
    bank = Bank.create(bank_path, config)
    _harvests(bank, 3)
    seq, head = bank.chain_head()
    assert bank.verify() == [] and len(head) == 64
    bank.close()
    check_database(bank_path)
    assert main(["--config", str(config_path()), "--db", str(bank_path), "verify"]) == 0
    assert capsys.readouterr().out.splitlines() == ["ok", f"journal chain head: {head} (entry {seq})"]


@pytest.mark.sqlite_file("sqlite3 beside the bank (PostgreSQL: test_postgres_attacks.py)")
def test_a_chain_rebuilt_by_a_forger_shows_against_the_head_written_down(config, bank_path, capsys):
    """The lead wrote down entry N's hash; someone edits row 3 and recomputes the whole chain."""
    from bank.store import chain

    bank = Bank.create(bank_path, config)
    _harvests(bank, 3)
    seq, written_down = bank.chain_head()
    bank.close()
    _tamper(bank_path, "UPDATE journal SET actor='someone' WHERE seq=3")
    conn = sqlite3.connect(bank_path)
    conn.execute("DROP TRIGGER chain_no_delete")
    conn.execute("DELETE FROM chain")
    rows = conn.execute(f"{chain.SELECT_ROWS} ORDER BY seq").fetchall()
    start = chain.start_of(dict(conn.execute("SELECT key, value FROM meta").fetchall()).get)  # its seed (chain.py)
    conn.executemany("INSERT INTO chain VALUES (?, ?)", list(chain.replay(rows, start=start)))
    conn.commit()
    assert main(["--config", str(config_path()), "--db", str(bank_path), "verify", "--at", str(seq)]) == 1
    assert f"journal row {seq} is not the one the bank wrote" in capsys.readouterr().out  # the checkpoint's head
    # The forger who also rewrites the checkpoint's head passes `verify`: only the head written down tells.
    conn.execute("UPDATE clock_checkpoint SET head = (SELECT hash FROM chain ORDER BY seq DESC LIMIT 1)")
    conn.commit()
    conn.close()
    assert main(["--config", str(config_path()), "--db", str(bank_path), "verify", "--at", str(seq)]) == 0
    assert capsys.readouterr().out.splitlines()[0] != f"journal chain at entry {seq}: {written_down}"


@pytest.mark.sqlite_file("sqlite3 beside the bank (PostgreSQL: test_postgres_attacks.py)")
def test_dropping_the_chain_tables_by_hand_does_not_get_a_clean_chain(config, bank_path):
    """Edit a row, then drop the chain and the checkpoint table: the bank must not take the file
    for one made before the chain and compute a fresh, clean chain over the edited rows."""
    bank = Bank.create(bank_path, config)
    _harvests(bank, 3)
    bank.close()
    _tamper(bank_path, "UPDATE journal SET actor='someone' WHERE seq=3")
    conn = sqlite3.connect(bank_path)
    conn.execute("DROP TRIGGER chain_no_delete")
    conn.execute("DROP TABLE chain")
    conn.execute("DROP TABLE clock_checkpoint")
    conn.commit()
    conn.close()
    with Bank.open(bank_path, config) as reopened:
        assert any("journal row 1 was changed" in p for p in reopened.verify())


def _as_made_before_the_chain(path) -> None:
    """What a game file made by the Terrabank before the chain looks like."""
    conn = sqlite3.connect(path)
    for trigger in ("chain_no_delete", "chain_no_update", "meta_no_delete"):
        conn.execute(f"DROP TRIGGER {trigger}")
    conn.execute("DROP TABLE chain")
    conn.execute("DROP TABLE clock_checkpoint")
    conn.execute("DELETE FROM meta WHERE key IN ('chain', 'chain_seed')")  # nor its seed: row 1 from GENESIS
    conn.commit()
    conn.close()


@pytest.mark.sqlite_file("sqlite3 beside the bank (PostgreSQL: test_postgres_attacks.py)")
def test_a_game_from_before_the_chain_gains_it_on_open(config, bank_path):
    """A game file made by an earlier Terrabank keeps working: its chain is computed once."""
    bank = Bank.create(bank_path, config)
    _harvests(bank, 3)
    seq, seeded = bank.chain_head()
    bank.close()
    _as_made_before_the_chain(bank_path)
    with Bank.open(bank_path, config) as reopened:
        assert reopened.verify() == [] and reopened.chain_head()[0] == seq
        assert reopened.chain_head()[1] != seeded  # computed from GENESIS, as for every game made before the seed
        reopened.execute({"id": "after", "type": "harvest", "team": "red", "card": "harvester-1", "resource": "water"},
                         now=reopened.now() + 1)
        assert reopened.verify() == []


@pytest.mark.sqlite_file("the file's permissions")
def test_the_game_file_is_readable_by_its_owner_only(config, bank_path):
    """It holds the facilitators' password hashes and the team links' tokens."""
    Bank.create(bank_path, config).close()
    assert stat.S_IMODE(os.stat(bank_path).st_mode) == 0o600
    os.chmod(bank_path, 0o644)  # a game made by an earlier Terrabank
    Bank.open(bank_path, config).close()
    assert stat.S_IMODE(os.stat(bank_path).st_mode) == 0o600


def config_path():
    from conftest import CONFIG_PATH

    return CONFIG_PATH
