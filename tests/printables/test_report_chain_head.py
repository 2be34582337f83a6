"""The end-of-game report prints the journal chain's head at its last entry, as the state sheet does.

The report is the paper kept after the game. Before, it carried no head: whoever held the game file could
rewrite a fight or an award afterwards, rebuild the whole chain consistently (`verify` then says nothing) and
print the report again, and no kept copy could show it. Now `terrabank verify --at <entry>` of the forged file
prints another hash than the one on the kept report.
"""

from __future__ import annotations

import json
import sqlite3

from printkit import all_text

from bank.services.bank import Bank
from bank.store import chain
from printables.report import render_report


def _forge(path, seq: int) -> None:
    """An award's amount raised by hand in entry `seq`, the guards dropped, and every hash recomputed from the rows."""
    raw = sqlite3.connect(path)
    raw.executescript("DROP TRIGGER journal_no_update; DROP TRIGGER chain_no_update;")
    events = json.loads(raw.execute("SELECT events FROM journal WHERE seq = ?", (seq,)).fetchone()[0])
    for event in events:
        if event.get("type") == "transfer":
            event["amount"] += 5
    raw.execute("UPDATE journal SET events = ? WHERE seq = ?", (json.dumps(events), seq))
    start = chain.start_of(lambda key: (raw.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone() or [None])[0])
    assert not raw.execute("SELECT 1 FROM chain_snapshot").fetchall()  # no snapshot binding to rewrite in so short a game
    links = list(chain.replay(raw.execute(f"{chain.SELECT_ROWS} ORDER BY seq").fetchall(), start=start))
    raw.executemany("UPDATE chain SET hash = ? WHERE seq = ?", [(head, s) for s, head in links])
    raw.execute("UPDATE clock_checkpoint SET seq = ?, head = ?", links[-1])
    raw.commit()
    raw.close()


def test_the_report_prints_the_chain_head_a_rebuilt_history_no_longer_matches(started, bank_path, config):
    bank = started
    bank.execute({"id": "refill", "type": "refill", "resource": "water", "amount": 2})
    refill = bank.last_seq
    bank.execute({"id": "harvest", "type": "harvest", "team": "red", "card": "harvester-1", "resource": "water"})
    seq, head = bank.chain_head()
    english = " ".join(all_text(render_report(bank, "en")).split())
    assert f"Journal chain at entry {seq}: {head}" in english  # before: no head on the report
    french = " ".join(all_text(render_report(bank, "fr")).split())
    assert f"Chaîne du journal à l'entrée n° {seq}" in french and head in french.replace(" ", "")
    assert bank.chain_at(seq) == head  # what `verify --at` recomputes from the rows: the same, character by character
    bank.close()

    _forge(bank_path, refill)
    forged = Bank.open(bank_path, config)
    try:
        assert forged.verify() == []  # a consistent rebuild: the bank alone cannot tell
        assert forged.chain_at(seq) != head  # the kept report can
        assert head not in all_text(render_report(forged, "en")).replace(" ", "")
    finally:
        forged.close()
