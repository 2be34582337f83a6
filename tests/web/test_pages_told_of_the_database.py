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
