"""Live updates over Socket.IO: rooms, privacy between teams, catch-up after a missed update.

The pages connect as today's live.js (tests/live_kit.py: one `round` message per round, read part by part);
the key tests run once more as a page of an older live.js (`legacy`: separate messages).
"""

import pytest
from delta_page import Page
from live_kit import live_client

HARVEST = {"type": "harvest", "team": "blue", "card": "harvester-1", "resource": "water"}


def names(client) -> list:
    return [m["name"] for m in client.get_received()]


@pytest.mark.parametrize("legacy", [False, True], ids=["rounds", "legacy"])
def test_console_action_reaches_the_team_and_the_display_but_not_other_teams(app, web, tokens, legacy):
    lead = web("lead")
    lead.command(type="start_clock")
    blue = live_client(app, {"team": tokens["blue"]}, legacy=legacy)
    red = live_client(app, {"team": tokens["red"]}, legacy=legacy)
    display = live_client(app, {"display": True}, legacy=legacy)
    pages = {c: Page().feed(c.get_received()) for c in (blue, red, display)}
    lead.command(**HARVEST)
    blue_msgs = blue.get_received()
    red_msgs = red.get_received()
    assert [m for m in blue_msgs if m["name"] == "team"]
    assert pages[blue].feed(blue_msgs).picture("team")["view"]["stock"]["water"] == 6
    assert pages[red].feed(red_msgs).picture("team")["view"]["team"] == "red"
    assert '"blue"' not in str([m["args"][0] for m in red_msgs if m["name"] == "team"])
    assert "public" in names(display)


def test_invalid_team_token_is_refused_at_connect(app):
    client = live_client(app, {"team": "not-a-token"})
    assert not client.is_connected()


def test_resync_after_a_missed_update(app, web, tokens):
    lead = web("lead")
    lead.command(type="start_clock")
    phone = live_client(app, {"team": tokens["blue"]})
    phone.get_received()
    phone.disconnect()
    lead.command(**HARVEST)                         # the phone misses this one
    phone = live_client(app, {"team": tokens["blue"]})
    page = Page().feed(phone.get_received())
    phone.emit("sync", {"after": 2, "team": tokens["blue"]})
    page.feed(phone.get_received())
    assert page.picture("team")["view"]["stock"]["water"] == 6
    assert page.picture("team")["seq"] == app.extensions["terrabank"].bank.last_seq


@pytest.mark.parametrize("legacy", [False, True], ids=["rounds", "legacy"])
def test_facilitators_receive_journal_rows(app, web, legacy):
    lead = web("lead")
    console = live_client(app, flask_test_client=lead.client, legacy=legacy)
    console.get_received()
    lead.command(type="start_clock")
    journal = [m["args"][0] for m in console.get_received() if m["name"] == "journal"]
    assert journal and journal[-1]["rows"][-1]["type"] == "start_clock"


def test_a_team_phone_gets_no_journal(app, web, tokens):
    phone = live_client(app, {"team": tokens["blue"]}, journal=True)  # even asking for it
    phone.get_received()
    web("lead").command(type="start_clock")
    assert "journal" not in names(phone)
