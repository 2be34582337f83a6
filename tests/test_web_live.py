"""Live updates over Socket.IO: rooms, privacy between teams, catch-up after a missed update."""

from delta_page import Page

from bank.web.push.extensions import socketio_of

HARVEST = {"type": "harvest", "team": "blue", "card": "harvester-1", "resource": "water"}


def names(client) -> list:
    return [m["name"] for m in client.get_received()]


def test_console_action_reaches_the_team_and_the_display_but_not_other_teams(app, web, tokens):
    lead = web("lead")
    lead.command(type="start_clock")
    blue = socketio_of(app).test_client(app, auth={"team": tokens["blue"]})
    red = socketio_of(app).test_client(app, auth={"team": tokens["red"]})
    display = socketio_of(app).test_client(app, auth={"display": True})
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
    client = socketio_of(app).test_client(app, auth={"team": "not-a-token"})
    assert not client.is_connected()


def test_resync_after_a_missed_update(app, web, tokens):
    lead = web("lead")
    lead.command(type="start_clock")
    phone = socketio_of(app).test_client(app, auth={"team": tokens["blue"]})
    phone.get_received()
    phone.disconnect()
    lead.command(**HARVEST)                         # the phone misses this one
    phone = socketio_of(app).test_client(app, auth={"team": tokens["blue"]})
    page = Page().feed(phone.get_received())
    phone.emit("sync", {"after": 2, "team": tokens["blue"]})
    page.feed(phone.get_received())
    assert page.picture("team")["view"]["stock"]["water"] == 6
    assert page.picture("team")["seq"] == app.extensions["terrabank"].bank.last_seq


def test_facilitators_receive_journal_rows(app, web):
    lead = web("lead")
    console = socketio_of(app).test_client(app, flask_test_client=lead.client)
    console.get_received()
    lead.command(type="start_clock")
    journal = [m["args"][0] for m in console.get_received() if m["name"] == "journal"]
    assert journal and journal[-1]["rows"][-1]["type"] == "start_clock"


def test_a_team_phone_gets_no_journal(app, web, tokens):
    phone = socketio_of(app).test_client(app, auth={"team": tokens["blue"]})
    phone.get_received()
    web("lead").command(type="start_clock")
    assert "journal" not in names(phone)
