"""No thread per live page: one loop reads and writes every page's WebSocket (bank/web/push/hub.py).

Engine.IO's threading mode held about four threads a page (the pool thread reading, simple-websocket's reader,
the writer, a sleeper until the next ping): 50 pages made some 200 threads. Served by the bank's own worker in a
thread of this process, 50 team pages (half compressing, as browsers do) connect, get a round, answer pings; the
process's threads are counted before and after. A few may start meanwhile (Gunicorn's pool grows to the
handshakes it serves at once, a Socket.IO event runs in a short thread), never one a page.
"""

from __future__ import annotations

import json
import sys
import threading
import time
from http.client import HTTPConnection

import pytest
from pathlib import Path

from live_kit import live_auth
from sio_kit import Phone, RawWebSocket

from bank.web.serving.limits import Limits
from bank.web.serving import thread as serving_thread

sys.path.insert(0, str(Path(__file__).resolve().parents[3] / "bench"))
from harness import Api  # noqa: E402

PAGES = 50
SPARE = 12  # threads that may start whatever the number of pages (the pool's, short-lived handlers)


def _settled_threads(before: int | None = None, seconds: float = 5.0) -> int:
    """The thread count once short-lived threads (a Socket.IO event's) have ended, or after `seconds`."""
    deadline = time.monotonic() + seconds
    count = threading.active_count()
    while time.monotonic() < deadline:
        time.sleep(0.2)
        now = threading.active_count()
        if now == count and (before is None or now <= before + SPARE):
            break
        count = now
    return threading.active_count()


def test_fifty_pages_start_no_thread_each_and_every_page_gets_the_round(app, tokens):
    server = serving_thread.serve_in_thread(app)
    pages = []
    try:
        warm = Phone(server.port, {"team": tokens["blue"]}, query=f"&team={tokens['blue']}")  # the hub starts
        warm.close()
        before = _settled_threads()
        teams = sorted(tokens)
        for i in range(PAGES):
            token = tokens[teams[i % len(teams)]]
            pages.append(Phone(server.port, {"team": token}, query=f"&team={token}", deflate=i % 2 == 0))
        after = _settled_threads(before)
        assert after - before <= SPARE, f"{after - before} threads started for {PAGES} pages"

        lead = Api(f"http://127.0.0.1:{server.port}").login("lead", "correct horse")
        assert lead.command("start", type="start_clock")[0] == 200
        for n, card in enumerate(("harvester-1", "harvester-2")):  # the second round points back into the first
            status, reply = lead.command(f"h{n}", type="harvest", team="blue", card=card, resource="water")
            assert status == 200, reply
            seq = reply["seq"]
            for page in pages:
                assert page.wait_for(lambda name, data: name == "public" and data.get("seq", 0) >= seq, 10.0), \
                    page.events[-2:]
        lead.close()
        compressed = sum(any(getattr(e, "_enabled", False) for e in page.ws.connection._proto.extensions)
                         for page in pages)
        assert compressed == PAGES // 2  # the server agreed permessage-deflate with every page that offered it
        assert all(not page.closed for page in pages)
    finally:
        for page in pages:
            page.close()
        server.stop()


class Upgraded(RawWebSocket):
    """A page as a browser's live.js opens it: long polling first, then the WebSocket upgrade (probe, upgrade)."""

    def __init__(self, port: int, token: str):
        http = HTTPConnection("127.0.0.1", port, timeout=10)
        http.request("GET", f"/socket.io/?EIO=4&transport=polling&team={token}")
        opened = http.getresponse().read().decode()
        sid = json.loads(opened[1:])["sid"]
        auth = json.dumps(live_auth({"team": token}, False, False))
        http.request("POST", f"/socket.io/?EIO=4&transport=polling&sid={sid}&team={token}", body=f"40{auth}")
        assert http.getresponse().read().lower() == b"ok"
        super().__init__(port, f"/socket.io/?EIO=4&transport=websocket&sid={sid}&team={token}", deflate=True)
        assert self.wait(lambda: self.accepted, 10.0), "the upgrade was not accepted"
        self.send_text("2probe")
        assert self.wait(lambda: "3probe" in self.texts, 10.0), self.texts
        self.send_text("5")
        self.http, self.sid = http, sid

    def on_text(self, text: str) -> None:
        if text == "2":
            self.send_text("3")


def test_a_page_upgrading_from_long_polling_is_served_by_the_loop_and_gets_the_rounds(app, tokens):
    server = serving_thread.serve_in_thread(app)
    page = None
    try:
        page = Upgraded(server.port, tokens["red"])
        eio = app.extensions["socketio"].server.eio
        served = lambda: type(eio.sockets[page.sid].queue).__name__ == "Outbox"  # noqa: E731 (by bank/web/push/hub.py)
        assert page.wait(served, 10.0), "the upgraded page is not served by the loop"
        assert eio.sockets[page.sid].upgraded
        lead = Api(f"http://127.0.0.1:{server.port}").login("lead", "correct horse")
        assert lead.command("start", type="start_clock")[0] == 200
        status, reply = lead.command("h1", type="harvest", team="red", card="harvester-1", resource="water")
        lead.close()
        assert status == 200, reply
        seq = reply["seq"]
        assert page.wait(lambda: any(t.startswith('42["round"') and f'"seq":{seq}' in t for t in page.texts), 10.0), \
            [t[:80] for t in page.texts]
        assert not page.closed
    finally:
        if page is not None:
            page.close()
        server.stop()


def _status(port: int) -> int:
    http = HTTPConnection("127.0.0.1", port, timeout=10)
    try:
        http.request("GET", "/healthz")
        return http.getresponse().status
    finally:
        http.close()


@pytest.mark.parametrize("cap, refused", [("max_connections", 503), ("per_address", 429)])
def test_pages_served_by_the_loop_stay_in_the_workers_caps_until_they_close(app, tokens, cap, refused):
    # The worker's request for a page's WebSocket ends once the loop has it; the page's connection is still
    # open, so max_connections and per_address must go on counting it: caps the pages could pass would let
    # them take every descriptor of the process.
    n = 6
    limits = {"max_connections": 100, "per_address": 100, cap: n}
    server = serving_thread.serve_in_thread(app, limits=Limits(threads=16, **limits))
    pages = []
    try:
        for i in range(n):
            pages.append(Phone(server.port, {"team": tokens["red"]}, query=f"&team={tokens['red']}",
                               deflate=i % 2 == 0))
        handed = lambda: server.worker.handed_open == n  # noqa: E731
        deadline = time.monotonic() + 10
        while not handed() and time.monotonic() < deadline:
            time.sleep(0.05)
        assert handed(), server.worker.handed_open
        assert _status(server.port) == refused  # the pages fill the cap: a newcomer is told to come back
        pages.pop().close()
        deadline = time.monotonic() + 10
        while server.worker.handed_open > n - 1 and time.monotonic() < deadline:
            time.sleep(0.05)
        assert _status(server.port) == 200  # a page closed: its place is free again
        assert all(not page.closed for page in pages)
    finally:
        for page in pages:
            page.close()
        server.stop()
