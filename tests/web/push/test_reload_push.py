"""A reload waiting for PostgreSQL reaches the lead's open admin page by its socket, while its look is refused.

The admin page asks GET /api/reload every 3 s; that request checks its log-in against the database, so while
PostgreSQL is away it is refused (503) and, before, a reload waiting for the database was said on no page. The
clock's loop now sends the master's word, read in memory, to the lead's pages as it changes (reload_push.py).
"""

from __future__ import annotations

import uuid

from conftest import CONFIG_PATH, WebClient
from live_kit import live_client
from pg_game_kit import wait_until
from postgres_kit import DATABASE

from bank.store.storage_url import ENV_VAR
from bank.web import create_app
from bank.web.push.reload_push import say_reload
from bank.web.serving import reload

WAITING = "Cannot connect to PostgreSQL 127.0.0.1/games: connection refused. Check that PostgreSQL runs"


def refuse(server, refused: bool) -> None:
    """PostgreSQL refuses the bank's database (its connections ended), or takes it again."""
    server.admin(f"ALTER DATABASE {DATABASE} ALLOW_CONNECTIONS {'false' if refused else 'true'}")
    if refused:
        server.admin(f"SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = '{DATABASE}'")


def reloads(socket) -> list:
    return [m["args"][0] for m in socket.get_received() if m["name"] == "reload"]


def test_a_reload_waiting_for_postgres_reaches_the_lead_page_while_its_look_is_refused(postgres_server, monkeypatch):
    monkeypatch.setenv(ENV_VAR, postgres_server.url)
    app = create_app({"DB": f"reloadpush-{uuid.uuid4().hex[:8]}", "CONFIG": str(CONFIG_PATH), "SECRET_KEY": "x",
                      "PASSWORD_HASH": "pbkdf2:sha256:1000"})
    services = app.extensions["terrabank"]
    try:
        services.access.add_user("lead", "correct horse", "lead")
        services.access.add_user("banker", "correct horse", "banker")
        lead, banker = WebClient(app.test_client()), WebClient(app.test_client())
        assert lead.login("lead").status_code == 200 and banker.login("banker").status_code == 200
        pages = {"admin": live_client(app, {}, flask_test_client=lead.client),
                 "console": live_client(app, {"after": 0}, flask_test_client=banker.client),
                 "phone": live_client(app, {"team": services.access.team_tokens()["blue"]})}
        say_reload(app)  # nothing said yet: nothing sent
        assert all(reloads(page) == [] for page in pages.values())
        refuse(postgres_server, True)
        try:
            reload.tell("waiting", why="database", problem=WAITING)
            assert wait_until(lambda: lead.client.get("/api/reload").status_code == 503, 5)  # its look is refused
            assert say_reload(app) == 1
            said = reloads(pages["admin"])
            assert [(s["state"], s["why"], s["problem"]) for s in said] == [("waiting", "database", WAITING)], said
            assert reloads(pages["console"]) == [] and reloads(pages["phone"]) == []  # the lead's pages only
            assert say_reload(app) == 0 and reloads(pages["admin"]) == []  # said once, not every second
        finally:
            refuse(postgres_server, False)
        reload.tell("reloaded", waited=True)
        assert say_reload(app) == 1 and reloads(pages["admin"])[0]["state"] == "reloaded"
    finally:
        reload._STATUS[:4] = bytes(4)
        services.bank.close()
        services.access.close()
