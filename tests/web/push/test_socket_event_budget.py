"""A page may send a few Socket.IO messages a second, then it is closed (bank/web/push/event_budget.py).

Before: every message a socket sent started a thread, and each `sync` built and sent the whole picture; one
stranger's socket writing `42["sync"]` for 5 s kept the worker busy for 26 s after it stopped (7-11 CPU-seconds),
and four of them held a phone's rounds up to 2 s late. Now a page past BURST messages is closed, its rest unread.
"""

from __future__ import annotations

import json
import logging
import sys
import time
from pathlib import Path

from wsproto.events import TextMessage

from bank.web.push.event_budget import BURST
from bank.web.serving import thread as serving_thread

from sio_kit import Phone

sys.path.insert(0, str(Path(__file__).resolve().parents[3] / "bench"))
from harness import Api  # noqa: E402


def _pictures(page: Phone) -> int:
    return sum(1 for name, _ in page.events if name == "public")


def _answered_once_open(page: Phone) -> None:
    """A page just opened syncs and is answered, and stays open; then it is closed."""
    try:
        seen = _pictures(page)
        page.emit("sync", {"after": 0})
        assert page.wait(lambda: _pictures(page) > seen, 10.0) and not page.closed
    finally:
        page.close()


def _flooded(pages) -> list[int]:
    """Each page opened in turn (`pages`: how to open each), flooding 500 syncs in one write until the bank closes
    it: the pictures the bank built for each."""
    answered = []
    for open_page in pages:
        page = open_page()
        try:
            before = _pictures(page)
            page.sock.sendall(page.ws.send(TextMessage(data='42["sync",{"after":0}]')) * 500)
            assert page.wait(lambda: page.closed, 10.0), "the flooding page was never closed"
            answered.append(_pictures(page) - before)
        finally:
            page.close()
    return answered


def test_a_strangers_socket_flooding_syncs_is_closed_after_its_budget_and_a_phone_is_served(app, tokens):
    server = serving_thread.serve_in_thread(app)
    phone = Phone(server.port, {"team": tokens["blue"]}, query=f"&team={tokens['blue']}")
    stranger = Phone(server.port, {}, source="127.0.0.3")
    try:
        before = _pictures(stranger)
        flood = stranger.ws.send(TextMessage(data='42["sync"]')) * 2000  # 32 KB: one write
        stranger.sock.sendall(flood)
        assert stranger.wait(lambda: stranger.closed, 10.0), "the flooding socket was never closed"
        answered = _pictures(stranger) - before
        print(f"\n2,000 syncs in one write: {answered} pictures sent back, then closed")
        assert answered <= BURST  # before: the socket stayed open and hundreds of pictures came back

        # An honest page's syncs (a reconnect, a tab brought back a few times) are all answered, and it stays.
        seen = _pictures(phone)
        for _ in range(8):
            phone.emit("sync", {"after": 0})
        assert phone.wait(lambda: _pictures(phone) >= seen + 8, 10.0)
        lead = Api(f"http://127.0.0.1:{server.port}").login("lead", "correct horse")
        status, reply = lead.command("start", type="start_clock")
        lead.close()
        assert status == 200, reply
        assert phone.wait_for(lambda name, data: name == "public" and data.get("seq", 0) >= reply["seq"], 10.0)
        assert not phone.closed
    finally:
        stranger.close()
        phone.close()
        server.stop()


def test_messages_a_long_poll_carries_count_against_the_same_budget(app):
    """A page on long polling: POSTs of tiny events close its session once past the budget, as a WebSocket's."""
    client = app.test_client()
    opened = client.get("/socket.io/?EIO=4&transport=polling")
    sid = json.loads(opened.get_data(as_text=True)[1:])["sid"]
    url = f"/socket.io/?EIO=4&transport=polling&sid={sid}"
    assert client.post(url, data="40").status_code == 200
    engine = app.extensions["socketio"].server.eio
    posts = 0
    while sid in engine.sockets and not engine.sockets[sid].closed and posts < 10:
        assert client.post(url, data="\x1e".join(['42["zz"]'] * 16)).status_code in (200, 400)
        posts += 1
    assert sid not in engine.sockets or engine.sockets[sid].closed  # before: open after 160 events
    assert posts * 16 + 1 <= BURST + 16  # closed in the POST that went past the budget
    # A page whose session was closed gets Engine.IO's answer to an unknown session: its client opens a new one.
    assert client.post(url, data='42["zz"]').status_code == 400


def test_messages_socket_io_cannot_read_close_their_page_in_one_line_not_a_traceback_each(app, caplog):
    """JSON nested 30,000 deep, cut short, an integer of 5,000 digits: before, each wrote Engine.IO's
    "message handler error" with its whole traceback (1.8 KB), as fast as a stranger sent them."""
    client = app.test_client()
    engine = app.extensions["socketio"].server.eio
    caplog.set_level(logging.INFO)
    for bad in ("42" + "[" * 30000, '42{"a":' * 5000, '42["sync",' + "1" * 5000 + "]") * 2:
        opened = client.get("/socket.io/?EIO=4&transport=polling")
        sid = json.loads(opened.get_data(as_text=True)[1:])["sid"]
        url = f"/socket.io/?EIO=4&transport=polling&sid={sid}"
        assert client.post(url, data="40").status_code == 200
        assert client.post(url, data=bad).status_code == 200
        assert sid not in engine.sockets  # closed: its page's client opens a new session
    assert not [r for r in caplog.records if r.exc_info], "a traceback was logged"
    said = [r.getMessage() for r in caplog.records if "cannot read" in r.getMessage()]
    assert len(said) == 1 and "RecursionError" in said[0], said


def test_a_stolen_team_link_reconnecting_to_flood_gets_its_budget_once_not_once_a_page(app, tokens):
    """Before: each new page of a link started with the whole budget, so a stolen team link opening page after
    page, each flooding syncs until closed, had 20 pictures built and sent a page (some 160 messages a second
    at the shipped share of pages). Now the link's next pages start with what it had left: the connect and a
    sync. The team's own phone, already open, is not touched, and a phone that opens afterwards is served."""
    server = serving_thread.serve_in_thread(app)
    link = {"auth": {"team": tokens["blue"]}, "query": f"&team={tokens['blue']}"}
    phone = Phone(server.port, **link)
    try:
        answered = _flooded([lambda: Phone(server.port, **link, source="127.0.0.4")] * 8)
        print(f"\npictures built for a stolen link's 8 flooding pages: {answered}")
        assert answered[0] <= BURST
        assert sum(answered[1:]) <= 7 * 4, answered  # before: about BURST a page, 140 more

        seen = _pictures(phone)
        phone.emit("sync", {"after": 0})  # the team's phone, open all along, is answered and stays
        assert phone.wait(lambda: _pictures(phone) > seen, 10.0) and not phone.closed
        time.sleep(1.5)  # the link's budget given back at its pace: a phone opened now connects and syncs
        _answered_once_open(Phone(server.port, **link, source="127.0.0.5"))
    finally:
        phone.close()
        server.stop()


def test_strangers_flooding_from_many_addresses_get_the_budget_once_not_once_a_page(app):
    """Before: each page without a secret started with the whole budget, whatever its address: a laptop adding
    addresses (127.0.0.x) opened page after page, each flooding syncs until closed, and had BURST pictures built
    and sent a page. Now the pages without a secret share one memory, as they share one pool of handshakes: once
    one was closed by the budget, the next start with the connect and a sync. An honest page without a secret
    (the big screen without its key) opened afterwards connects and syncs."""
    server = serving_thread.serve_in_thread(app)
    try:
        answered = _flooded([lambda n=n: Phone(server.port, {"display": True}, source=f"127.0.0.{20 + n}")
                             for n in range(8)])
        print(f"\npictures built for 8 strangers' flooding pages from 8 addresses: {answered}")
        assert answered[0] <= BURST
        assert sum(answered[1:]) <= 7 * 4, answered  # before: about BURST a page

        time.sleep(1.5)  # the strangers' budget given back at its pace: an honest page connects and syncs
        _answered_once_open(Phone(server.port, {"display": True}, source="127.0.0.40"))
    finally:
        server.stop()
