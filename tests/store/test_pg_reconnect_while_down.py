"""A PostgreSQL game's writer finds the database again after a restart, however many commands
came while it was down (fencing): the first meets the dropped connection, the next find
no server, each refused with its sentence and nothing booked; the first after it is booked, once.
A connection the restart broke and that could not be replaced must never be reused as it is."""

from __future__ import annotations

import threading
import time

import pytest

psycopg = pytest.importorskip("psycopg")

from bank.store.journal_pg import PostgresJournal
from bank.store.storage import StorageError

ROW = {"fingerprint": "f", "type": "award", "actor": "x", "at": 1.0, "command": {}, "events": []}


def book(journal: PostgresJournal, command_id: str) -> int:
    with journal.transaction():
        return journal.append({**ROW, "command_id": command_id})


def refused_code(journal: PostgresJournal, command_id: str) -> str:
    with pytest.raises(StorageError) as refused:
        book(journal, command_id)
    return refused.value.code


def test_commands_sent_while_postgres_is_down_are_refused_and_the_next_one_after_it_is_booked(postgres_server):
    url = postgres_server.url
    PostgresJournal.create(url, "reconnect-down", "{}", {}).close()
    journal = PostgresJournal.open(url, "reconnect-down")
    try:
        assert book(journal, "before") == 1
        postgres_server._run("pg_ctl", "-D", str(postgres_server.data), "-m", "fast", "-w", "stop")
        try:
            # The first meets the dropped connection, replaced at once (nothing was sent but BEGIN): no
            # server to connect to; the next ones find no server at all.
            assert refused_code(journal, "down-1") == "database_unreachable"
            assert refused_code(journal, "down-2") == "database_unreachable"
            assert refused_code(journal, "down-3") == "database_unreachable"
        finally:
            postgres_server._start(postgres_server.port)
        deadline = time.monotonic() + 10
        while True:  # PostgreSQL answers a moment after pg_ctl returns
            try:
                seq = book(journal, "after")
                break
            except StorageError as exc:
                assert exc.code == "database_unreachable" and time.monotonic() < deadline, exc
                time.sleep(0.1)
        assert seq == 2
        assert [r["command_id"] for r in journal.rows()] == ["before", "after"]
    finally:
        journal.close()


def test_reads_after_a_restart_cost_no_refusal_whatever_readers_were_kept_idle(postgres_server):
    """Before: the reader connections kept idle were all dropped by the restart; a read tried one, then
    another kept one, and was refused (database_connection_lost), then the next read again: a page or a
    reply reading the game just after a restart got a 503 for each pair of dead readers."""
    url = postgres_server.url
    PostgresJournal.create(url, "reconnect-readers", "{}", {}).close()
    journal = PostgresJournal.open(url, "reconnect-readers")
    try:
        book(journal, "before")
        together = threading.Barrier(4)

        def view() -> None:  # four readers open at once, all kept idle afterwards
            with journal.read_view():
                together.wait(10)
        threads = [threading.Thread(target=view) for _ in range(4)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(10)
        postgres_server._run("pg_ctl", "-D", str(postgres_server.data), "-m", "fast", "-w", "stop")
        postgres_server._start(postgres_server.port)
        deadline = time.monotonic() + 10
        while True:  # PostgreSQL answers a moment after pg_ctl returns: a new connection says so
            try:
                with psycopg.connect(url, connect_timeout=2):
                    break
            except psycopg.OperationalError:
                assert time.monotonic() < deadline
                time.sleep(0.1)
        assert journal.last_seq() == 1
        assert journal.chain_problem() is None  # a read view, on a reader of its own
        assert [r["command_id"] for r in journal.rows()] == ["before"]
    finally:
        journal.close()
