"""A process that cannot reach its database tells its pages, and tells them again when it can.

Before: in a network cut the cut process's pages got no rows and no word for the whole cut (43 s
measured); the facilitators saw their commands refused one by one. Now the first failure of an
outage sends every page of the process `database` {"reachable": false} (static/js/live.js: the badge
says "the bank cannot reach its database"), and its return `database` {"reachable": true}.
"""

from __future__ import annotations

import time

from bank.store.storage import StorageError
from bank.web.push.extensions import socketio_of


def said(client, reachable: bool, seconds: float = 10.0) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        for message in client.get_received():
            if message["name"] == "database" and message["args"][0] == {"reachable": reachable}:
                return True
        time.sleep(0.1)
    return False


def test_the_pages_are_told_when_the_database_is_lost_and_when_it_answers_again(app, tokens):
    phone = socketio_of(app).test_client(app, auth={"team": tokens["blue"], "rounds": 1})
    assert phone.is_connected()
    phone.get_received()
    health = app.extensions["terrabank_health"]
    assert health.lost(StorageError("database_unreachable", "Cannot connect to the database"))
    assert said(phone, False, 2)  # at once
    assert not health.lost(StorageError("database_unreachable", "again"))  # once per outage
    assert said(phone, True)  # the game file answers: told again
    phone.disconnect()


def test_an_outage_the_holds_watcher_says_is_not_said_again_when_a_look_meets_it_first(app, monkeypatch, caplog):
    """PostgreSQL restarted again just after it answered: the last outage's watch looked before the hold's watcher
    (in Gunicorn's master, a probe a second) had said the new one, and said it too: two lines each way for one
    outage. It waits for a second look, which finds the hold said lost, so the hold's lines are the only ones."""
    import logging

    from bank.web import health as health_module

    monkeypatch.setattr(health_module, "HOLD_PROBE_SECONDS", 0.05)
    health = app.extensions["terrabank_health"]
    looks, bank = [], app.extensions["terrabank"].bank

    def catch_up(upto=None):
        looks.append(time.monotonic())
        if len(looks) <= 2:
            raise StorageError("database_unreachable", "Cannot connect to the database")

    monkeypatch.setattr(bank, "catch_up", catch_up)
    monkeypatch.setattr(health, "_hold_says_it", lambda: len(looks) > 1)  # said by the hold by the second look
    with caplog.at_level(logging.WARNING, logger="terrabank.health"):
        assert health.lost(StorageError("database_unreachable", "Cannot connect to the database"))
        deadline = time.monotonic() + 5
        while len(looks) < 3 and time.monotonic() < deadline:
            time.sleep(0.05)
        time.sleep(0.1)
    assert len(looks) == 3, looks
    assert [r.getMessage() for r in caplog.records if r.name == "terrabank.health"] == []
