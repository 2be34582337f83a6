"""A console owed journal rows while the database is away: one line when the rows cannot be read (what, what
to do), one when they go out again with the rounds missed, and the rows arrive by themselves, in order.

Before: each round of the outage logged a whole traceback ("reading the rows owed to a console failed"), one
every booking or clock round, so a facilitator's terminal filled with them; and once the database answered, the
rows came only with the next booking: a console opened during a quiet spell stayed behind.
"""

from __future__ import annotations

import logging

from live_kit import live_client
from pg_game_kit import wait_until

from bank.services import recent_rows
from bank.store.storage import StorageError
from bank.web.push import broadcaster as broadcaster_module, live

ROUNDS = 10  # rounds that meet the database away
AWAY = "Cannot connect to postgresql://bank@db/terrabank: connection refused. Check that PostgreSQL runs"


def _journal_seqs(client) -> list:
    return [row["seq"] for m in client.get_received() if m["name"] == "journal" for row in m["args"][0]["rows"]]


def test_a_console_owed_rows_during_an_outage_is_two_lines_and_gets_them_by_itself(app, web, monkeypatch, caplog):
    monkeypatch.setattr(live, "JOURNAL_PAGE", 2)  # the console gets 2 rows on connecting, the rest from the rounds
    monkeypatch.setattr(broadcaster_module, "JOURNAL_PAGE", 2)
    monkeypatch.setattr(recent_rows, "KEEP", 2)  # rows older than the last two are read from the journal
    monkeypatch.setattr(broadcaster_module, "RETRY", 0.1)  # 1 s served
    monkeypatch.setattr(broadcaster_module, "RETRY_MAX", 0.2)
    lead = web("lead")
    assert lead.command(type="start_clock").status_code == 200
    for team in ("blue", "red", "yellow", "green"):
        assert lead.command(type="harvest", team=team, card="harvester-1", resource="water").status_code == 200
    bank = app.extensions["terrabank"].bank
    journal, away = bank._journal, [True]
    rows = journal.rows

    def rows_or_away(after_seq=0):
        if away[0]:
            raise StorageError("database_unreachable", AWAY)
        return rows(after_seq)

    monkeypatch.setattr(journal, "rows", rows_or_away)
    away[0] = False
    console = live_client(app, auth={"after": 0}, flask_test_client=web("banker").client)
    seen = _journal_seqs(console)
    assert seen == [1, 2], seen  # connected, 2 rows; the rest is owed
    away[0] = True
    with caplog.at_level(logging.INFO):
        for team in ("blue", "red"):  # booked during the outage, from the bank's memory of them
            assert lead.command(type="harvest", team=team, card="harvester-2", resource="water").status_code == 200
        sender = live.broadcaster(app)
        for _ in range(ROUNDS):  # the clock's rounds each second meet the outage reading the rows owed
            assert sender.flush(sender.ask())
        seen += _journal_seqs(console)
        away[0] = False  # the database answers; nobody books again
        assert wait_until(lambda: seen.extend(_journal_seqs(console)) or seen[-1:] == [bank.last_seq], 5), seen
    assert seen == list(range(1, bank.last_seq + 1)), f"rows sent {seen}: a gap, twice, or out of order"
    assert [r for r in caplog.records if r.exc_info] == [], "a traceback was logged"
    down = [r for r in caplog.records if "journal rows owed to a console" in r.getMessage()]
    assert len(down) == 1, [r.getMessage() for r in down]
    # This app's round thread (an earlier test's may still be saying its own line on the app's shared logger).
    said = [r.getMessage() for r in caplog.records if r.levelno >= logging.WARNING and r.thread == down[0].thread]
    assert len(said) == 2, said
    assert "Check that PostgreSQL runs" in said[0] and "by itself" in said[0], said[0]
    assert "went out again" in said[1] and "rounds missed" in said[1], said[1]
