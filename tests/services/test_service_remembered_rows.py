"""On both stores: the rows and chain heads the bank remembers after COMMIT are those its journal reads back.

The broadcast rounds take the feed's rows, the consoles' rows and the picture's chain head from the bank's
memory (bank/services/recent_rows.py). PostgreSQL hashes and binds its snapshots in its
own code (bank/store/journal_pg.py): the head remembered at a snapshot's entry must be its binding there too.
"""

from __future__ import annotations

from bank.services import bank as bank_module
from test_recent_rows import book, varied_play


def test_remembered_rows_and_heads_are_what_the_journal_reads(started, monkeypatch):
    monkeypatch.setattr(bank_module, "SNAPSHOT_EVERY", 4)  # a few snapshots bound into the chain
    varied_play(started)
    book(started, **{"type": "harvest", "team": "red", "card": "harvester-1", "resource": "water"})
    last = started.last_seq
    assert last >= 12
    assert started.rows_upto(last - 10, last) == list(started._journal.rows(last - 10))
    for seq in range(last - 10, last + 1):
        assert started.head_at(seq) == started._journal.head_at(seq), seq
