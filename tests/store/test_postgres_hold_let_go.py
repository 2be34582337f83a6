"""A hold let go is free at once for the next command (bank/store/journal_pg_hold.py).

Before: closing the hold's connection only asked PostgreSQL to end the session; its backend let the lock go
a moment later, so the `init --force` that a facilitator types right after `init` was sometimes refused,
"the bank is already running", naming the very process that asked (seen once in CI)."""

from __future__ import annotations

import pytest

psycopg = pytest.importorskip("psycopg")

from bank.store.journal_pg_hold import HOLD_LOCK_SPACE, hold, lock_key


@pytest.mark.parametrize("lease_it", [False, True], ids=["init", "serve"])
def test_the_moment_a_hold_is_let_go_no_lock_of_it_is_left_in_the_database(postgres_server, lease_it):
    game = f"back-to-back-{lease_it}"
    left = []
    with psycopg.connect(postgres_server.url, autocommit=True) as observer:
        for _ in range(100):
            hold(postgres_server.url, game, "terrabank init", watch=False, lease_it=lease_it).close()
            left += observer.execute(
                "SELECT pid FROM pg_locks WHERE locktype = 'advisory' AND classid::bigint = %s "
                "AND objid::bigint = %s", (HOLD_LOCK_SPACE, lock_key(game) & 0xFFFFFFFF)).fetchall()
    assert left == []
