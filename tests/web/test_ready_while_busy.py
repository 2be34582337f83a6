"""A PostgreSQL game busy with other processes' bookings is ready (degraded), not "the database does not answer".

Before: /readyz's look (bank/web/health.py) takes the game's lock with its BEGIN, as every booking does;
four processes booking on a loaded CI machine kept it waiting over half a second, and /readyz said 503
"the database does not answer (database_slow)" while every command booked (the twenty-restart chaos test
failed on that answer). The hold's watcher still heard the database all along: that is the witness. Here
another process's booking is played by a second connection holding the game's lock.
"""

from __future__ import annotations

import threading
import time
import uuid
from pathlib import Path

import pytest

from bank.store.journal_pg_connect import connect
from bank.store.journal_pg_hold import hold
from bank.store.journal_pg_schema import LOCK_SPACE
from bank.store.storage_url import ENV_VAR
from bank.web import create_app
from bank.web.health import BUSY_SECONDS, LOOK_SECONDS

CONFIG = str(Path(__file__).resolve().parents[2] / "config.toml")
AWARD = {"type": "award", "team": "green", "points": 1, "reason": "busy game"}


class OtherProcessBooking:
    """A second connection in a transaction holding the game's lock, as another process's booking does."""

    def __init__(self, url: str, game_id: int):
        self.conn = connect(url)
        self.conn.execute("BEGIN")
        self.conn.execute("SELECT pg_advisory_xact_lock(%s, %s)", (LOCK_SPACE, game_id))

    def commit(self) -> None:
        self.conn.execute("COMMIT")
        self.conn.close()


@pytest.fixture
def game(postgres_server, monkeypatch):
    monkeypatch.setenv(ENV_VAR, postgres_server.url)
    name = f"busy-{uuid.uuid4().hex[:8]}"
    app = create_app({"DB": name, "CONFIG": CONFIG, "TESTING": True, "SECRET_KEY": "x"})
    bank = app.extensions["terrabank"].bank
    held = hold(postgres_server.url, name, "terrabank serve", watch=False, lease_it=False)
    try:
        bank.execute({"id": "first", **AWARD})
        yield app, held, bank._journal.game_id
    finally:
        held.close()
        bank.close()
        app.extensions["terrabank"].access.close()


def test_a_game_busy_with_another_process_booking_is_ready_and_says_it_is_busy(game, postgres_server):
    app, held, game_id = game
    client = app.test_client()
    other = OtherProcessBooking(postgres_server.url, game_id)
    try:
        answer = client.get("/readyz")  # the look waits for the game's lock, as a command would
        assert answer.status_code == 200, answer.json
        assert answer.json["checks"]["database"] is True
        assert "busy" in answer.json["degraded"], answer.json
        booked: list = []
        command = threading.Thread(target=lambda: booked.append(app.extensions["terrabank"].bank.execute(
            {"id": "behind", **AWARD})))
        command.start()
        time.sleep(LOOK_SECONDS)
    finally:
        other.commit()
    command.join(10)
    assert booked and booked[0].seq > 0  # the command waiting meanwhile booked: ready told the truth
    deadline = time.monotonic() + 5  # the look that waited ends a moment after the lock is let go
    while (after := client.get("/readyz")).json.get("degraded") and time.monotonic() < deadline:
        time.sleep(0.1)
    assert after.status_code == 200 and "degraded" not in after.json, after.json


def test_a_busy_game_with_its_hold_in_doubt_is_not_ready(game, postgres_server):
    app, held, game_id = game
    client = app.test_client()
    other = OtherProcessBooking(postgres_server.url, game_id)
    try:
        held.doubt()  # a connection failed: the database may be gone, the watcher has not answered yet
        answer = client.get("/readyz")
        assert answer.status_code == 503, answer.json
        assert answer.json["checks"]["database"] is False and "does not answer" in answer.json["reason"]
    finally:
        other.commit()


def test_a_game_kept_busy_past_a_commands_wait_is_not_ready(game, postgres_server):
    app, held, game_id = game
    client = app.test_client()
    other = OtherProcessBooking(postgres_server.url, game_id)
    try:
        first = client.get("/readyz")
        assert first.status_code == 200, first.json
        deadline = time.monotonic() + BUSY_SECONDS + 5
        while time.monotonic() < deadline:  # a command would have been refused by now (lock_timeout)
            answer = client.get("/readyz")
            if answer.status_code == 503:
                break
            time.sleep(0.2)
        assert answer.status_code == 503, answer.json
        assert answer.json["checks"]["database"] is False, answer.json
    finally:
        other.commit()
    assert client.get("/readyz").status_code == 200
