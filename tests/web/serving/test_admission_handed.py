"""Without a server: a live page the app serves on without a thread gives its thread slot back, and keeps its place.

Before, every live page was counted against the pool's threads for its whole life, though a WebSocket handed to the
push loop (bank/web/push/hub.py, handoff.KEEP) holds none once its upgrade is answered: a game of 1,000 phones had
every page past the 450 thread slots refused. Now such a page holds one of `pages` (live pages of every kind, a
share of the connections), and `slots` bounds only what holds a thread: long polls, a WebSocket while its
upgrade is answered. The caps by secret and the anonymous share count every page, as before.
"""

from __future__ import annotations

import socket
import threading

from bank.web.serving import handoff
from bank.web.serving.admission import LiveSlots
from bank.web.serving.limits import Limits
from test_serving import wait_until


def websocket(who=None) -> dict:
    return {"PATH_INFO": "/socket.io/", "REQUEST_METHOD": "GET", "HTTP_UPGRADE": "websocket", "who": who,
            "REMOTE_ADDR": "10.0.0.1"}


class App:
    """Hands each WebSocket off (handoff.KEEP) and returns at once, as the push loop's request does; a long poll
    (`hold`) waits until released, holding its thread."""

    def __init__(self):
        self.releases, self.pairs, self.release = [], [], threading.Event()

    def __call__(self, environ, start_response):
        if environ.get("HTTP_UPGRADE"):
            own, other = socket.socketpair()
            self.pairs.append((own, other))
            self.releases.append(environ[handoff.KEEP](own))
            return [b""]
        self.release.wait(10)
        return [b"poll"]

    def close(self):
        self.release.set()
        for pair in self.pairs:
            for end in pair:
                end.close()


def open_page(slots: LiveSlots, who=None) -> str:
    replies = []
    slots(websocket(who), lambda status, headers: replies.append(status))
    return replies[0] if replies else "in"


def test_pages_handed_off_hold_no_thread_slot_and_are_capped_by_the_live_pages():
    app = App()
    slots = LiveSlots(app, 2, per_secret=10, identify=lambda environ: environ.get("who"), pages=5)
    try:
        assert [open_page(slots, "/team/blue#1") for _ in range(6)] == ["in"] * 5 + ["503 Service Unavailable"]
        assert slots.held == 0 and slots.handed == 5  # no thread held: before, the third page was refused
        app.releases.pop()()  # a page closes: its place is free again
        assert open_page(slots, "/team/blue#1") == "in" and slots.handed == 5
    finally:
        app.close()


def test_long_polls_still_take_the_thread_slots_and_the_caps_by_secret_count_every_page():
    app = App()
    slots = LiveSlots(app, 2, anonymous=1, per_secret=3, identify=lambda environ: environ.get("who"), pages=10)
    polls = [threading.Thread(target=slots, args=({"PATH_INFO": "/socket.io/", "REQUEST_METHOD": "GET",
                                                   "QUERY_STRING": f"EIO=4&transport=polling&sid=s{i}",
                                                   "who": "/team/red#2"}, lambda status, headers: None))
             for i in range(2)]
    try:
        for poll in polls:
            poll.start()
        assert wait_until(lambda: slots.held == 2, 5)
        # Both thread slots held by long polls: even a WebSocket, which needs a thread for its upgrade, waits.
        assert open_page(slots, "/team/blue#1") == "503 Service Unavailable"
        app.release.set()
        for poll in polls:
            poll.join(5)
        assert slots.held == 0
        assert [open_page(slots, "/team/blue#1") for _ in range(4)] == ["in"] * 3 + ["503 Service Unavailable"]
        assert [open_page(slots) for _ in range(2)] == ["in", "503 Service Unavailable"]  # the anonymous share: 1
        cut = slots.revoke(lambda name: name == "/team/blue#1")
        assert cut == 3 and slots.handed == 1 and slots.by_secret == {}  # handed-off pages freed by revoke too
    finally:
        app.close()


def test_the_default_limits_let_in_more_live_pages_than_threads_and_a_bigger_game_gets_its_connections():
    limits = Limits()
    assert limits.live_slots() == 450 and limits.live_pages_at_once() == 750  # of 1,000 connections
    assert limits.anonymous_live_slots() == 56 and limits.strangers_live_slots() == 75  # as before
    big = limits.for_pages(1250)  # 4 teams and the big screen at 250 pages a link
    assert big.live_pages_at_once() == 1250 and big.max_connections == 1500 and big.fd_needed() == 1756
    assert big.live_slots() == 450 and big.anonymous_live_slots() == 56  # threads and shares unchanged
    assert limits.for_pages(300) is limits  # the shipped config's 5 x 60 fit
