"""A journal export reads each entry's chain head with the rows, not one query per row (bank/services/export.py).

Before: the head of every exported row was one more query (Bank.head_at), one round trip per row on
PostgreSQL: 3,000 entries took 2.3 s to export there, 0.1 s now (bench/services/bench_export_heads.py). The heads
are the ones the game holds at each entry; `terrabank verify --witness` reads them back the same way.
"""

from __future__ import annotations

import dataclasses
import io
import json
import uuid

import pytest

from bank.services import export, export_witness
from bank.services.bank import Bank
from bank.store.journal_pg_reads import PAGE
from bank.store.storage_url import ENV_VAR
from sql_statements_kit import Statements

ROWS = 120


def _game(config, db) -> None:
    with Bank.create(db, config) as bank:
        bank.execute({"id": "start", "type": "start_clock"})
        while bank.last_seq < ROWS:
            bank.execute({"id": f"r{bank.last_seq}", "type": "refill", "resource": "water", "amount": 1})


def _exported(bank) -> list[dict]:
    out = io.StringIO()
    export.write_journal(bank, out, "json")
    return json.loads(out.getvalue())


@pytest.mark.sqlite_file("counts the statements of the SQLite store")
def test_an_sqlite_export_reads_its_rows_and_heads_in_one_statement(config, tmp_path, monkeypatch):
    db = tmp_path / "game.db"
    _game(config, db)
    with Bank.open(db, config) as bank:  # a bank that remembers none of the heads (a CLI export, a restart)
        statements = Statements.of_bank(bank, monkeypatch)
        rows = statements.during(lambda: _exported(bank))
        assert len(rows) == ROWS
        assert len(statements.seen) <= 2, statements.seen  # before: one more a row (121)
        assert [row["chain"] for row in rows] == [bank.stored_head_at(seq) for seq in range(1, ROWS + 1)]
        heads = {row["seq"]: row["chain"] for row in rows}
        assert statements.during(lambda: export_witness.witness_problems(bank, heads)) == []
        assert len(statements.seen) <= 6, statements.seen  # `verify --witness`: its last entry, then one read (125 before)


def test_a_postgresql_export_reads_its_heads_a_page_at_a_time(config, postgres_server, monkeypatch):
    monkeypatch.setenv(ENV_VAR, postgres_server.url)
    config = dataclasses.replace(config, storage_url=postgres_server.url)
    name = f"export-{uuid.uuid4().hex[:8]}"
    _game(config, name)
    with Bank.open(name, config) as bank:
        journal, trips = bank._journal, []
        fetch = journal._fetch
        monkeypatch.setattr(journal, "_fetch", lambda *a, **k: trips.append(a[0][:40]) or fetch(*a, **k))
        rows = _exported(bank)
        assert len(rows) == ROWS
        assert len(trips) <= ROWS // PAGE + 1, trips  # before: one more a row (121)
        trips.clear()
        assert export_witness.witness_problems(bank, {row["seq"]: row["chain"] for row in rows}) == []
        assert len(trips) <= ROWS // PAGE + 3, trips  # `verify --witness`: before, one more an entry
        monkeypatch.undo()
        assert [row["chain"] for row in rows] == [bank.stored_head_at(seq) for seq in range(1, ROWS + 1)]
