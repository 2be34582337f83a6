"""/healthz and /readyz, and one log line per outage (bank/web/health.py).

Before: no such routes (a process whose database or hold was gone still answered 200), and a
PostgreSQL outage logged two tracebacks a second per process and never a line when it came back.
"""

from __future__ import annotations

import logging
import os
import time
import uuid

from bank.store.journal_pg_hold import hold
from bank.store.storage_url import ENV_VAR
from bank.web import create_app
from pg_game_kit import wait_until

CONFIG = "config.toml"


def test_a_game_in_a_sqlite_file_is_alive_and_ready(tmp_path):
    client = create_app({"DB": str(tmp_path / "game.db"), "CONFIG": CONFIG, "TESTING": True}).test_client()
    alive = client.get("/healthz")
    assert alive.status_code == 200 and alive.json == {"ok": True, "process": os.getpid()}
    ready = client.get("/readyz")
    assert ready.status_code == 200 and ready.json["ready"] is True and ready.json["checks"]["database"] is True


def test_a_game_in_postgres_is_not_ready_while_the_server_is_down_and_ready_again_after(
        tmp_path, postgres_server, monkeypatch, caplog):
    monkeypatch.setenv(ENV_VAR, postgres_server.url)
    name = f"health-{uuid.uuid4().hex[:8]}"
    app = create_app({"DB": name, "CONFIG": CONFIG, "TESTING": True, "SECRET_KEY": "x"})
    client = app.test_client()
    with caplog.at_level(logging.WARNING), hold(postgres_server.url, name, "terrabank serve"):
        ready = client.get("/readyz")
        assert ready.status_code == 200 and ready.json["checks"] == {"database": True, "hold": True}
        server = postgres_server
        server._run("pg_ctl", "-D", str(server.data), "-m", "fast", "-w", "-t", "60", "stop")
        try:
            down = [client.get("/readyz") for _ in range(3)]
            assert client.get("/healthz").status_code == 200  # alive all the same
            for reply in down:
                assert reply.status_code == 503 and reply.json["ready"] is False
                assert "the database does not answer" in reply.json["reason"]
            time.sleep(1.5)  # the hold's watcher has looked
            assert "lost its hold on the game" in client.get("/readyz").json["reason"]
        finally:
            server._start(server.port)
        back = wait_until(lambda: client.get("/readyz").status_code == 200, 15)
        assert back, client.get("/readyz").json
        assert wait_until(lambda: any("took back the hold" in r.getMessage() for r in caplog.records), 5)
        time.sleep(3)  # the database's own watcher has looked again: a line it would say is here by now
    app.extensions["terrabank"].bank.close()
    app.extensions["terrabank"].access.close()
    lines = [r.getMessage() for r in caplog.records if r.name.startswith("terrabank")]
    # One outage, two lines: the hold went with the database, and its watcher says both ways.
    assert sum("lost the hold" in line for line in lines) == 1, lines
    assert sum("took back the hold" in line for line in lines) == 1, lines
    assert sum("lost the database" in line or "the database answers again" in line for line in lines) == 0, lines


def test_a_database_lost_without_the_hold_is_one_line_each_way(tmp_path, postgres_server, monkeypatch, caplog):
    """No hold in this process (a command's connection broke, the hold's did not): the database's own pair."""
    monkeypatch.setenv(ENV_VAR, postgres_server.url)
    name = f"health-{uuid.uuid4().hex[:8]}"
    app = create_app({"DB": name, "CONFIG": CONFIG, "TESTING": True, "SECRET_KEY": "x"})
    client = app.test_client()
    with caplog.at_level(logging.WARNING):
        server = postgres_server
        server._run("pg_ctl", "-D", str(server.data), "-m", "fast", "-w", "-t", "60", "stop")
        try:
            for _ in range(3):
                assert client.get("/readyz").status_code == 503
            assert wait_until(lambda: any("lost the database" in r.getMessage() for r in caplog.records), 10)
        finally:
            server._start(server.port)
        assert wait_until(lambda: client.get("/readyz").status_code == 200, 15), client.get("/readyz").json
        assert wait_until(lambda: any("the database answers again" in r.getMessage() for r in caplog.records), 5)
    app.extensions["terrabank"].bank.close()
    app.extensions["terrabank"].access.close()
    lines = [r.getMessage() for r in caplog.records if r.name.startswith("terrabank")]
    assert sum("lost the database" in line for line in lines) == 1, lines
    assert sum("the database answers again" in line for line in lines) == 1, lines
