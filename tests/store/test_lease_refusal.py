"""A lease's refusal says how long to wait when its holder is gone.

Before: "the bank is already running on game 'x' (terrabank serve on pi-2, process 812, whose lease on the
game runs 42 s more ...): stop it first". A server killed while PostgreSQL restarted leaves such a lease
(journal_pg_lease.py): the operator went looking for process 812, which no longer existed, with nothing
saying that waiting out the lease was the way in.
"""

from __future__ import annotations

import re

import pytest

from needs import module, needs
psycopg = module("psycopg")  # a stand-in without psycopg: pytestmark skips the test

from bank.errors import BankError
from bank.store.journal_pg import PostgresJournal
from bank.store.journal_pg_hold import hold
from bank.store import journal_pg_lease

pytestmark = needs("psycopg")


def test_a_lease_left_by_a_gone_server_refuses_init_and_says_how_long_to_wait(postgres_server):
    url, game = postgres_server.url, "leased-by-the-gone"
    PostgresJournal.create(url, game, "{}", {}).close()
    with psycopg.connect(url, autocommit=True) as conn:
        journal_pg_lease.ensure(conn)
        # As a server killed while PostgreSQL restarted leaves it: written before this start of the database,
        # by a session that is gone, 40 s still to run.
        conn.execute("INSERT INTO terrabank.hold_leases(game, holder, who, shared, backend, postmaster, until) "
                     "VALUES (%s, 'gone', 'terrabank serve on pi-2, process 812', false, 1, "
                     "pg_postmaster_start_time() - interval '1 hour', clock_timestamp() + interval '40 seconds')",
                     (game,))
    with pytest.raises(BankError) as refused:
        hold(url, game, "terrabank init", watch=False, lease_it=False)
    message = refused.value.message
    assert "process 812" in message and refused.value.code == "bank_running", message
    waited = re.search(r"if that process is gone, wait (\d+) s", message)
    assert waited and 35 <= int(waited.group(1)) <= 40, message
    # The units of several processes are terrabank@PORT (docs/DEPLOY.md): `systemctl stop terrabank` alone
    # names a unit such a machine does not have.
    assert "systemctl stop 'terrabank@*'" in message, message
