"""A page behind gets the latest picture, not a queue (bank/web/push/rounds.py).

A phone whose socket still holds an unsent message when a round goes out is left out of it; once its
socket has sent everything it gets the newest pictures, whole, in one message, and patches again after
that; it never holds a version a patch does not apply to. The consoles that read the journal are never
left out: every row reaches them once, in order.
"""

from __future__ import annotations

import time

from delta_page import Page

from bank.web.push import rounds
from live_kit import live_client, unfold


def _parts(message: dict) -> list:
    """A `round` message as the parts the page's live.js hands on (what Page.feed reads)."""
    return [{"name": name, "args": [data]} for name, data in unfold("round", message)]


def _sid(page) -> str:
    server = page.client.socketio.server
    return server.manager.sid_from_eio_sid(page.client.eio_sid, "/")


def _rounds_of(page, timeout: float = 0.0) -> list:
    """The raw `round` messages the page got (waiting up to `timeout` for the first)."""
    deadline = time.monotonic() + timeout
    while True:
        page.get_received()
        if page.rounds or time.monotonic() >= deadline:
            out, page.rounds[:] = list(page.rounds), []
            return out
        time.sleep(0.02)


def test_a_phone_still_sending_is_left_out_then_gets_the_newest_pictures_whole(app, web, tokens, monkeypatch):
    lead = web("lead")
    lead.command(type="start_clock")
    fast, slow = (live_client(app, auth={"team": tokens["blue"]}) for _ in range(2))
    pages = {"fast": Page().feed(fast.get_received()), "slow": Page().feed(slow.get_received())}
    _rounds_of(fast), _rounds_of(slow)
    sending = {_sid(slow)}
    monkeypatch.setattr(rounds, "still_sending", lambda socketio, sid: sid in sending)
    for resource in ("water", "flora", "energy"):
        assert lead.command(type="harvest", team="blue", card="harvester-1", resource=resource).status_code == 200
    assert len(_rounds_of(fast)) == 3
    assert _rounds_of(slow) == [], "a page still sending got more rounds queued behind"
    sender = app.extensions["terrabank_broadcaster"]
    assert _sid(slow) in sender.behind()

    sending.clear()  # its socket has sent everything: within a moment, the newest pictures, whole
    [caught_up] = _rounds_of(slow, timeout=5.0)
    assert "patch" not in caught_up["team"] and "patch" not in caught_up["public"]
    bank = app.extensions["terrabank"].bank
    assert caught_up["team"]["seq"] == bank.last_seq
    page = pages["slow"].feed(_parts(caught_up))
    assert page.asks == 0 and page.picture("team") == sender.base_of("team:blue").picture
    assert sender.behind() == set()

    lead.command(type="harvest", team="blue", card="harvester-2", resource="water")  # patches again, for both
    for name, client in (("fast", fast), ("slow", slow)):
        [message] = _rounds_of(client)
        assert "patch" in message["team"], name
        pages[name].feed(_parts(message))
    assert pages["slow"].asks == 0
    assert pages["slow"].picture("team")["view"]["stock"]["water"] == bank.state.balance("team:blue", "water")


def test_a_console_is_never_left_out_its_journal_has_no_gap(app, web, monkeypatch):
    lead = web("lead")
    console = live_client(app, flask_test_client=lead.client)
    console.get_received()
    monkeypatch.setattr(rounds, "still_sending", lambda socketio, sid: True)  # every socket as slow as can be
    lead.command(type="start_clock")
    for card in ("harvester-1", "harvester-2", "harvester-1"):
        lead.command(type="harvest", team="red", card=card, resource="water")
    rows = [row["seq"] for m in console.get_received() if m["name"] == "journal" for row in m["args"][0]["rows"]]
    assert rows == list(range(rows[0], app.extensions["terrabank"].bank.last_seq + 1))
