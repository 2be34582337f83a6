"""The time line's checkpoint in PostgreSQL never goes back (fencing, R34: the bank's own time line).

Several `serve` processes of one game (through a queue) share its one checkpoint row
(terrabank.clock_checkpoint: the time line and the wall clock read with it). Each moves it
with every row it books and with its heartbeat. Before: the upsert was "last writer wins", so
a process whose commit landed second wrote its earlier time line over a later one, and the
next start (timeline.start_anchor) went on from the earlier point: game time went back by
what the other process had moved it (cooldowns and deadlines longer again). Now the row keeps
the later time line, with the wall time read with it; the hold epoch still fences every write
(tests/store/test_postgres_fencing.py: a fenced-out writer moves nothing, even forwards).
"""

from __future__ import annotations

from bank.store.journal_pg import PostgresJournal
from bank.store.journal_pg_hold import hold


def test_an_earlier_time_line_written_last_does_not_replace_a_later_one(postgres_server):
    url, game = postgres_server.url, "two-writers-clock"
    PostgresJournal.create(url, game, "{}", {}).close()
    first, second = PostgresJournal.open(url, game), PostgresJournal.open(url, game)  # two processes' journals
    try:
        with hold(url, game, "terrabank serve (with a queue)", shared=True, watch=False):
            first.save_checkpoint(200.0, 1200.0)  # the first process's heartbeat
            second.save_checkpoint(150.0, 1150.0)  # the second's, read earlier, committed after
            assert first.last_checkpoint() == (200.0, 1200.0)
            assert second.last_checkpoint() == (200.0, 1200.0)
            with second.transaction():  # with a row's COMMIT, the same rule
                second.save_checkpoint(199.5, 1199.5)
            assert second.last_checkpoint() == (200.0, 1200.0)
            second.save_checkpoint(250.0, 1250.0)  # later: it moves, the wall time with it
            assert first.last_checkpoint() == (250.0, 1250.0)
            first.save_checkpoint(250.0, 1251.0)  # the same point read again: kept, with its newer wall time
            assert first.last_checkpoint() == (250.0, 1251.0)
    finally:
        first.close()
        second.close()
