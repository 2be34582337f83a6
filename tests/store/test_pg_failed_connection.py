"""A PostgreSQL connection that failed is never used again (bank/store/journal_pg_connect.py `settle`).

Before: a command in flight when PostgreSQL went away left its writer connection neither closed
nor broken in psycopg's eyes (a pipeline left busy, a transaction not rolled back); the journal
kept it, and every later command of the process was refused `database_connection_lost ...
cannot exit pipeline mode while busy` until the process was killed, while /readyz said ready.
"""

from __future__ import annotations

import threading

import pytest

from bank.store.journal_pg import PostgresJournal
from bank.store.journal_pg_pool import ConnectionPool
from bank.store.storage import StorageError

ROW = {"fingerprint": "f", "type": "award", "actor": "x", "at": 1.0, "command": {}, "events": []}


def kill_backend(url: str, conn) -> None:
    """PostgreSQL ends the session of `conn` (as a restart does), from another connection."""
    import psycopg

    pid = conn.info.backend_pid
    with psycopg.connect(url, autocommit=True) as admin:
        admin.execute("SELECT pg_terminate_backend(%s)", (pid,))


def book(journal, key: str) -> int:
    with journal.transaction():
        return journal.append({**ROW, "command_id": key})


@pytest.mark.parametrize("pooled", [False, True], ids=["own writer", "pooled"])
def test_a_connection_lost_in_the_commits_pipeline_is_replaced_and_the_next_command_books(postgres_server, pooled):
    url = postgres_server.url
    name = f"failed-{'pool' if pooled else 'own'}"
    pool = ConnectionPool(url, size=1) if pooled else None
    PostgresJournal.create(url, name, "{}", {}, pool=pool).close()
    journal = PostgresJournal.open(url, name, pool=pool)
    try:
        assert book(journal, "c1") == 1
        # The session ends between the command's first round trip (BEGIN, the head) and its COMMIT's pipeline.
        with pytest.raises(StorageError) as lost:
            with journal.transaction():
                journal.committed_seq()
                kill_backend(url, journal._conn)
                journal.append({**ROW, "command_id": "c2"})
        assert lost.value.code == "database_connection_lost", lost.value
        for n in range(3):  # every later command books, on a new connection
            assert book(journal, f"after-{n}") == 2 + n
        assert [r["command_id"] for r in journal.rows(0)] == ["c1", "after-0", "after-1", "after-2"]
    finally:
        journal.close()
        if pool:
            pool.close()


def test_a_writer_dropped_while_idle_books_the_next_command_at_once(postgres_server):
    """A restart drops the idle writer: the next command's BEGIN goes again on a new connection (nothing
    was written before it), instead of the first command after every restart being refused."""
    url = postgres_server.url
    PostgresJournal.create(url, "idle-dropped", "{}", {}).close()
    journal = PostgresJournal.open(url, "idle-dropped")
    try:
        assert book(journal, "c1") == 1
        kill_backend(url, journal._conn)
        assert book(journal, "c2") == 2
    finally:
        journal.close()


def test_a_pipeline_failing_in_many_threads_leaves_no_connection_stuck(postgres_server):
    """Writers in several threads (a journal each, as processes have) while sessions are ended under them
    mid-command: afterwards every writer books at once."""
    url = postgres_server.url
    PostgresJournal.create(url, "many", "{}", {}).close()
    journals = [PostgresJournal.open(url, "many") for _ in range(3)]
    stop, failures = threading.Event(), []

    def killer():
        import psycopg

        with psycopg.connect(url, autocommit=True) as admin:
            while not stop.wait(0.01):
                admin.execute("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = "
                              "'terrabank' AND pid <> pg_backend_pid() AND state <> 'idle'")

    def commander(n):
        for k in range(40):
            try:
                book(journals[n], f"t{n}-{k}")
            except StorageError as exc:
                failures.append(exc.code)

    threads = [threading.Thread(target=killer)] + [threading.Thread(target=commander, args=(n,)) for n in range(3)]
    try:
        for t in threads:
            t.start()
        for t in threads[1:]:
            t.join(60)
        stop.set()
        threads[0].join(10)
        assert "database_connection_lost" in failures  # the sessions were ended under commands
        assert set(failures) <= {"database_connection_lost", "database_unreachable", "journal_moved_on"}, failures
        for n, journal in enumerate(journals):
            for k in range(3):
                book(journal, f"settled-{n}-{k}")  # no writer kept a muddled connection
    finally:
        stop.set()
        for journal in journals:
            journal.close()
