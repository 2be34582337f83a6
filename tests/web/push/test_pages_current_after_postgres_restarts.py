"""PostgreSQL restarted 10 times under a booking burst with pages open: every command acknowledged is in the journal
once, every page (four phones, the big screen, a console) ends on the last entry, the console's rows once each and
in order, and the rounds' loop still runs (a booking after reaches every page). The clock's loop is left out: it
never ends, and would go on ticking on the closed bank for the tests after.

Each restart is PostgreSQL's own fast stop and start (1-1.5 s), or every other one the postmaster and its backends
killed (SIGKILL: no goodbye to any client) then started, half a second of bookings between: about 20 s.
Held the first time it ran (and with immediate stops, 2 runs; with the kills, 1 run as added); kept because no test
had the pages, a burst and real restarts together (the rounds' outage test refuses connections, the chaos test
watches bookings only)."""

from __future__ import annotations

import collections
import os
import signal
import subprocess
import threading
import time
import uuid

from conftest import CONFIG_PATH, WebClient
from delta_page import Page
from live_kit import live_client
from pg_game_kit import wait_until

from bank.store.storage_url import ENV_VAR
from bank.web import create_app
from bank.web.push import broadcaster as broadcaster_module

RESTARTS = 10
TEAMS = ("blue", "red", "yellow", "green")


def restart(server, n: int) -> None:
    """PostgreSQL's fast stop and start; every other time killed instead (SIGKILL to the postmaster and every
    backend: no goodbye to any client, as the out-of-memory killer or a power cut leaves it), then started."""
    if n % 2 == 0:
        server._run("pg_ctl", "-D", str(server.data), "-m", "fast", "-w", "-t", "60", "stop")
    else:
        postmaster = int((server.data / "postmaster.pid").read_text().split()[0])
        backends = subprocess.run(["pgrep", "-P", str(postmaster)], capture_output=True, text=True).stdout.split()
        for pid in (postmaster, *map(int, backends)):
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        wait_until(lambda: not os.path.exists(f"/proc/{postmaster}"), 10, step=0.05)
    server._start(server.port)


def test_ten_postgres_restarts_under_a_burst_leave_every_page_current_and_every_command_once(
        postgres_server, monkeypatch):
    monkeypatch.setenv(ENV_VAR, postgres_server.url)
    monkeypatch.setattr(broadcaster_module, "RETRY", 0.25)
    monkeypatch.setattr(broadcaster_module, "RETRY_MAX", 1.0)
    app = create_app({"DB": f"restarts-{uuid.uuid4().hex[:8]}", "CONFIG": str(CONFIG_PATH), "SECRET_KEY": "x",
                      "PASSWORD_HASH": "pbkdf2:sha256:1000"})
    services = app.extensions["terrabank"]
    stop, answers = threading.Event(), collections.defaultdict(list)
    try:
        services.access.add_user("lead", "correct horse", "lead")
        lead = WebClient(app.test_client())
        assert lead.login("lead").status_code == 200
        assert lead.command(type="start_clock").status_code == 200
        tokens = services.access.team_tokens()
        sockets = {"screen": live_client(app, {"display": True}),
                   "console": live_client(app, {"after": 0}, flask_test_client=lead.client),
                   **{team: live_client(app, {"team": tokens[team]}) for team in TEAMS}}
        pages = {name: Page() for name in sockets}
        journal: list = []

        def read() -> None:
            for name, socket in sockets.items():
                messages = socket.get_received()
                pages[name].feed(messages)
                if name == "console":
                    journal.extend(row["seq"] for m in messages if m["name"] == "journal" for row in m["args"][0]["rows"])

        def book(team: str) -> None:
            console, n = WebClient(app.test_client()), 0
            assert console.login("lead").status_code == 200
            while not stop.is_set():
                cid = f"{team}-{n}"
                reply = console.command(cid, type="award", team=team, points=1, reason="burst")
                answers[reply.status_code].append(cid)
                n += 1
                time.sleep(0.02)

        threads = [threading.Thread(target=book, args=(team,), daemon=True) for team in TEAMS[:2]]
        for thread in threads:
            thread.start()
        for n in range(RESTARTS):
            time.sleep(0.5)
            restart(postgres_server, n)
            read()
        time.sleep(1.0)
        stop.set()
        for thread in threads:
            thread.join(30)
        bank = services.bank
        booked = collections.Counter(row["command"]["id"] for row in bank.journal_rows(0))
        acknowledged = answers[200]
        assert acknowledged and all(booked[cid] == 1 for cid in acknowledged), (
            [cid for cid in acknowledged if booked[cid] != 1][:5])
        assert not [cid for cid, n in booked.items() if n > 1]
        last = bank.last_seq

        def behind() -> dict:
            read()
            late = {name: {e: page.picture(e)["seq"] for e in page.held} for name, page in pages.items()}
            late = {name: seqs for name, seqs in late.items() if any(s != last for s in seqs.values())}
            if journal[-1:] != [last]:
                late["journal"] = journal[-3:]
            return late

        assert wait_until(lambda: not behind(), 10), (behind(), last, {k: len(v) for k, v in answers.items()})
        assert journal == sorted(set(journal)), "the console's rows came twice or out of order"
        # The rounds' loop still answers: a booking after the restarts reaches every page.
        assert lead.command(type="award", team="blue", points=1, reason="after").status_code == 200
        last = bank.last_seq
        assert wait_until(lambda: not behind(), 5), behind()
    finally:
        stop.set()
        services.bank.close()
        services.access.close()
