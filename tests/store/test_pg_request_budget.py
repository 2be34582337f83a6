"""A request's database work ends within its budget in a network cut (bank/store/journal_pg_deadline.py).

Each round trip had its own deadline (3 s) and each new connection its connect timeout (2 s): a
request making several in a cut waited their sum, and the slowest command of the partition test
took 5.4-5.6 s against the 5 s a page waits. Here the session's look-up, the command's BEGIN and a
second look-up (its kept connection gone, so a new one) run in a cut inside one request budget:
the whole request is refused within the budget (each step a StorageError), not 3 + 3 + 2 s.
"""

from __future__ import annotations

import socket
import threading
import time
import uuid

import pytest

from needs import module, needs
psycopg = module("psycopg")  # a stand-in without psycopg: pytestmark skips the test

from bank.store.accounts.access_pg_connections import GameConnections
from bank.store.journal_pg import PostgresJournal
from bank.store.journal_pg_deadline import request_budget
from bank.store.storage import StorageError

pytestmark = needs("psycopg")
BUDGET = 4.0  # bank/web/serving/budget.py REQUEST_SECONDS
ANSWER = 5.0  # a command is answered within 5 s in a cut: the budget, then the watchdog's step and a loaded machine


class Cuttable:
    """A TCP relay to PostgreSQL whose traffic can be dropped, as a network cut does: nothing is closed,
    no answer comes back, and a new connection gets no answer either."""

    def __init__(self, port: int):
        self.upstream, self.cut = port, threading.Event()
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.port = self.listener.getsockname()[1]
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        while True:
            try:
                client, _ = self.listener.accept()
            except OSError:
                return
            if self.cut.is_set():
                threading.Thread(target=self._pump, args=(client, None), daemon=True).start()
                continue
            server = socket.create_connection(("127.0.0.1", self.upstream))
            for a, b in ((client, server), (server, client)):
                threading.Thread(target=self._pump, args=(a, b), daemon=True).start()

    def _pump(self, source, sink) -> None:
        try:
            while data := source.recv(65536):
                if sink is not None and not self.cut.is_set():
                    sink.sendall(data)
        except OSError:
            pass

    def close(self) -> None:
        self.listener.close()


def test_a_request_in_a_cut_is_refused_within_its_budget(postgres_server):
    relay = Cuttable(postgres_server.port)
    url = postgres_server.url.replace(f":{postgres_server.port}/", f":{relay.port}/")
    name = f"budget-{uuid.uuid4().hex[:8]}"
    journal = PostgresJournal.create(url, name, "title = 'budget'", {"game": name})
    access = GameConnections(url, name)
    try:
        access.rows("SELECT 1")  # the kept connections a running process has: the accounts', the writer
        with journal.transaction():
            journal.committed_seq()
        relay.cut.set()
        def command() -> None:
            with journal.transaction():
                journal.committed_seq()  # the command's BEGIN, on the kept writer, into the cut

        steps, started = [], time.monotonic()
        with request_budget(BUDGET):
            for step in (lambda: access.rows("SELECT 1"),  # the session's look-up, into the cut
                         command,
                         lambda: access.rows("SELECT 1")):  # its touch: a new connection now
                try:
                    step()
                    steps.append("answered")
                except StorageError as exc:
                    steps.append(exc.code)
        took = time.monotonic() - started
        print(f"in the cut: {steps} in {took:.2f} s")
        assert "answered" not in steps, steps
        assert took < ANSWER, f"{took:.1f} s for {steps}"
    finally:
        relay.close()
        access.close()
        journal.close()


def test_a_slow_request_with_a_database_that_answers_is_never_cut_for_its_budget(postgres_server):
    """The budget binds only once the database failed the request: a request slow for another reason (a
    loaded machine, a password's hash) and past its budget still books with a database that answers."""
    name = f"slow-{uuid.uuid4().hex[:8]}"
    journal = PostgresJournal.create(postgres_server.url, name, "title = 'budget'", {"game": name})
    access = GameConnections(postgres_server.url, name)
    try:
        with request_budget(0.2):
            time.sleep(0.5)  # the budget is spent before the database is asked anything
            assert access.rows("SELECT 1") == [(1,)]
            with journal.transaction():
                journal.committed_seq()
            access.close()  # its connections gone: the next look-up opens a new one
            access = GameConnections(postgres_server.url, name)
            assert access.rows("SELECT 1") == [(1,)]
    finally:
        access.close()
        journal.close()


def test_a_failure_before_the_request_does_not_bind_its_budget():
    """A pool thread serves request after request: a failure it met outside a budget is not the next one's."""
    from bank.store import journal_pg_deadline

    journal_pg_deadline.failed()  # a page's read on this thread met a lost connection
    with request_budget(0.2):
        time.sleep(0.3)
        assert journal_pg_deadline.left() is None  # no failure in this request: nothing is cut for its budget
        journal_pg_deadline.failed()
        assert journal_pg_deadline.left() < 0
    assert journal_pg_deadline.left() is None
