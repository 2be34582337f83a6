"""Once the hold is taken back after an outage, /readyz says ready and stays ready (bank/store/journal_pg_hold.py).

Before: the first /readyz after the hold was taken back ran the command path's look, which found the
writer kept idle through the outage dropped and replaced it; that dropped connection raised a doubt
on the hold (a connection failed: maybe PostgreSQL restarted), so the next /readyz said 503 "a
connection to the database failed; the bank is asking whether it still holds the game" until the
watcher answered. A balancer saw ready, not ready, ready; the served outage test
(tests/web/test_outage_log_lines.py) failed in CI on that second answer. A connection whose session
began before the hold's own says nothing about the hold: it is replaced without a doubt.
"""

from __future__ import annotations

import uuid
from pathlib import Path

import pytest

from bank.store.journal_pg_connect import connect
from bank.store.journal_pg_hold import hold
from bank.store.storage_url import ENV_VAR
from bank.web import create_app

CONFIG = str(Path(__file__).resolve().parents[2] / "config.toml")
AWARD = {"type": "award", "team": "green", "points": 1, "reason": "after the outage"}


def end_every_session_but(url: str, keep: list) -> None:
    """What a PostgreSQL restart does to this process's idle connections: their sessions end (`keep` stay)."""
    with connect(url) as admin:
        admin.execute("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = current_database() "
                      "AND pid <> pg_backend_pid() AND NOT (pid = ANY(%s))", (keep,))


def test_the_connections_kept_through_an_outage_leave_readiness_ready_once_the_hold_is_back(
        postgres_server, monkeypatch):
    monkeypatch.setenv(ENV_VAR, postgres_server.url)
    name = f"stays-{uuid.uuid4().hex[:8]}"
    app = create_app({"DB": name, "CONFIG": CONFIG, "TESTING": True, "SECRET_KEY": "x"})
    client = app.test_client()
    bank = app.extensions["terrabank"].bank
    # The watcher's steps are taken by hand: nothing answers a doubt meanwhile, as under a loaded machine.
    held = hold(postgres_server.url, name, "terrabank serve", watch=False, lease_it=False)
    try:
        assert client.get("/readyz").status_code == 200  # the writer and a reader are open and kept idle
        bank.execute({"id": "before", **AWARD})
        # The outage: every session ends, the hold's with them; the watcher finds it and takes the hold back.
        end_every_session_but(postgres_server.url, [])
        now = held.state()
        held.conn.close()
        held._set(False, now.game_id, now.epoch)
        held._take_back(None)
        assert held.state().held and held.state().confirmed
        answers = [client.get("/readyz") for _ in range(3)]  # the first finds the kept writer and reader dropped
        assert [a.status_code for a in answers] == [200, 200, 200], [a.json for a in answers]
        assert held.state().confirmed
        assert bank.execute({"id": "after", **AWARD}).seq > 0  # and a command books
    finally:
        held.close()
        bank.close()
        app.extensions["terrabank"].access.close()
