"""A command a facilitator's page kept on its device while the bank was out of reach (docs/OUTBOX.md).

The page sends it later with X-Queued-Seconds and X-Device: the journal row notes the wait and
the device, the rules judge it at arrival by the bank's clock, a retry that says a longer wait is
the same command (booked once), and a bad header is a clear 400 that books nothing.
"""

from __future__ import annotations

import pytest


def queued(client, key, seconds, device="tablet-a1", game=None, **command):
    headers = {"X-CSRF-Token": client.csrf, "Idempotency-Key": key}
    if game is not None:
        headers["X-Game"] = game
    if seconds is not None:
        headers["X-Queued-Seconds"] = str(seconds)
    if device is not None:
        headers["X-Device"] = device
    return client.client.post("/api/commands", json=command, headers=headers)


@pytest.fixture
def banker(web, app):
    lead = web("lead")
    assert lead.command(type="start_clock").status_code == 200
    assert lead.command(type="inventory", team="red", counted={"water": 10}, reason="set-up").status_code == 200
    return web("banker")


def rows(app, key):
    return [r for r in app.extensions["terrabank"].bank.journal_rows() if r["command_id"] == key]


def test_a_queued_command_is_noted_on_its_row_and_booked_once_whatever_the_retries(app, banker):
    first = queued(banker, "late-1", 240, type="harvest", team="red", card="harvester-1", resource="water")
    assert first.status_code == 200, first.get_json()
    # Its reply was lost: the page sends it again a minute later, saying a longer wait.
    again = queued(banker, "late-1", 300, type="harvest", team="red", card="harvester-1", resource="water")
    assert again.status_code == 200 and again.get_json()["duplicate"] is True
    assert again.get_json()["seq"] == first.get_json()["seq"]
    [row] = rows(app, "late-1")
    assert row["command"]["queued"] == {"seconds": 240, "device": "tablet-a1"}  # the first arrival's wait
    assert row["actor"] == "banker"
    # A live command has no note.
    live = banker.command(key="live-1", type="harvest", team="red", card="harvester-1", resource="water")
    assert live.status_code == 200
    assert "queued" not in rows(app, "live-1")[0]["command"]


@pytest.mark.parametrize("seconds, device, code", [
    ("-5", "tablet-a1", "bad_queued_seconds"),
    ("4.5", "tablet-a1", "bad_queued_seconds"),
    ("soon", "tablet-a1", "bad_queued_seconds"),
    (None, "tablet-a1", "bad_queued_seconds"),
    ("90000", "tablet-a1", "queued_too_long"),
    ("30", None, "bad_device"),
    ("30", "a b", "bad_device"),
    ("30", "x" * 41, "bad_device"),
])
def test_a_bad_wait_or_device_is_a_clear_400_that_books_nothing(app, banker, seconds, device, code):
    bank = app.extensions["terrabank"].bank
    before = bank.last_seq
    reply = queued(banker, "bad-1", seconds, device, type="harvest", team="red", card="harvester-1", resource="water")
    assert reply.status_code == 400
    assert reply.get_json()["error"]["code"] == code
    assert reply.get_json()["error"]["message"]
    assert bank.last_seq == before and not rows(app, "bad-1")


def test_a_command_kept_during_another_game_is_refused_and_books_nothing(app, banker):
    """A rehearsal's harvest still kept on a tablet when the game is made again for the day: the page names the
    game it was made in, and this game refuses it with its sentence (before: booked here, silently)."""
    bank = app.extensions["terrabank"].bank
    harvest = {"type": "harvest", "team": "red", "card": "harvester-1", "resource": "water"}
    before = bank.last_seq
    other = queued(banker, "old-game-1", 600, game="f" * 64, **harvest)
    assert other.status_code == 409, other.get_json()
    error = other.get_json()["error"]
    assert error["code"] == "other_game" and "another game" in error["message"]
    assert error["text"]  # the page's sentence in the game's language (refusal_text.py)
    assert bank.last_seq == before and not rows(app, "old-game-1")
    # This game's own mark, as GET /api/state gives it to the page: booked, and a page too old to say it is too.
    mark = banker.client.get("/api/state").get_json()["game"]
    assert queued(banker, "this-game-1", 60, game=mark, **harvest).status_code == 200
    assert queued(banker, "no-game-said", 60, **harvest).status_code == 200
    assert len(rows(app, "this-game-1")) == 1 and len(rows(app, "no-game-said")) == 1


def test_a_command_booked_live_only_refuses_to_have_waited(app, web):
    lead = web("lead")
    bank = app.extensions["terrabank"].bank
    before = bank.last_seq
    reply = queued(lead, "clock-1", 60, type="start_clock")
    assert reply.status_code == 400 and reply.get_json()["error"]["code"] == "not_queueable"
    assert bank.last_seq == before
    assert queued(lead, "rate-1", 60, type="set_rate", tokens=4, points=1).get_json()["error"]["code"] == "not_queueable"


def test_the_body_cannot_write_the_note_itself(app, banker):
    reply = banker.command(key="forged-1", type="harvest", team="red", card="harvester-1", resource="water",
                           queued={"seconds": 1, "device": "tablet-a1"})
    assert reply.status_code == 400 and reply.get_json()["error"]["code"] == "unknown_field"


def test_the_rules_judge_a_queued_command_at_arrival(app, banker, web):
    """The device made it while the game ran; the lead paused meanwhile: refused now, by the bank's clock."""
    assert web("lead").command(type="pause").status_code == 200
    reply = queued(banker, "late-paused", 120, type="harvest", team="red", card="harvester-1", resource="water")
    assert reply.status_code == 409 and reply.get_json()["error"]["code"] == "clock_not_running"
    assert not rows(app, "late-paused")


def test_devices_report_what_they_hold_and_the_lead_sees_it(web):
    tablet_a, tablet_b, lead = web("banker"), web("banker"), web("lead")  # two devices of one account

    def post(device, body):
        return device.client.post("/api/outbox", json=body, headers={"X-CSRF-Token": device.csrf})

    assert post(tablet_a, {"device": "tablet-a1", "waiting": 3, "oldest_seconds": 250}).status_code == 200
    assert post(tablet_b, {"device": "tablet-b2", "waiting": 1, "oldest_seconds": 20}).status_code == 200
    assert post(tablet_a, {"device": "tablet-a1", "waiting": -1}).status_code == 400
    assert post(tablet_a, {"device": "no spaces", "waiting": 1}).status_code == 400
    assert post(tablet_a, {"device": "tablet-a1", "waiting": True}).status_code == 400
    devices = lead.client.get("/api/outbox").get_json()["devices"]
    assert [(d["device"], d["account"], d["waiting"], d["oldest_seconds"]) for d in devices] == [
        ("tablet-a1", "banker", 3, 250), ("tablet-b2", "banker", 1, 20)]
    # Emptied: the device is no longer listed.
    assert post(tablet_b, {"device": "tablet-b2", "waiting": 0, "oldest_seconds": 0}).status_code == 200
    assert [d["device"] for d in lead.client.get("/api/outbox").get_json()["devices"]] == ["tablet-a1"]
    assert tablet_a.client.get("/api/outbox").status_code in (401, 403)


def test_a_refused_wait_is_said_in_the_game_language_too(app, banker):
    reply = queued(banker, "bad-fr", "soon", type="harvest", team="red", card="harvester-1", resource="water")
    assert reply.get_json()["error"]["text"] == "La page a donné un temps d’attente erroné : rechargez-la et réessayez."
