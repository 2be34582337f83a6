"""A live page's message is bounded by who sends it (bank/web/push/message_bound.py).

Before, every page, a stranger's among them (no secret: anyone on the Wi-Fi), could send messages of 64 KB on
its WebSocket and long-poll POSTs as large, though a page of ours sends a connect and a `sync` of under 300
bytes. Now a page without a secret may send 1 KB a message, on either transport; a team phone 4 KB; what a
page of ours sends passes on both.
"""

from __future__ import annotations

import http.client
import json

import pytest

from bank.web.serving import thread as serving_thread

from sio_kit import Phone

PADDED = '42["sync",{"after":0,"pad":"' + "x" * 2000 + '"}]'  # 2 KB: a sync no page of ours ever sends


@pytest.fixture
def served(app):
    server = serving_thread.serve_in_thread(app)
    yield server
    server.stop()


def test_a_strangers_websocket_message_over_a_kilobyte_closes_its_page_a_team_phones_does_not(served, tokens):
    stranger = Phone(served.port, {"display": True}, source="127.0.0.5")  # the big screen's page, no key
    phone = Phone(served.port, {"team": tokens["blue"]}, query=f"&team={tokens['blue']}", source="127.0.0.6")
    try:
        for page in (stranger, phone):  # what a page of ours sends passes
            page.emit("sync", {"after": 0})
            assert page.wait_for(lambda name, data: name == "public", 10.0)
        phone.events.clear()
        phone.send_text(PADDED)
        assert phone.wait_for(lambda name, data: name == "public", 10.0)  # read and answered, open
        assert not phone.closed
        stranger.send_text(PADDED)
        assert stranger.wait(lambda: stranger.closed, 10.0)  # before: read and answered
    finally:
        stranger.close()
        phone.close()


class _Poller:
    """A long-polling page from `source` (127.0.0.x, one address per client as phones have): its handshake and
    Socket.IO connect, then its POSTs; `post` answers (status, body)."""

    def __init__(self, port: int, query: str = "", source: str = "127.0.0.7"):
        self.http = http.client.HTTPConnection("127.0.0.1", port, timeout=10, source_address=(source, 0))
        self.path = f"/socket.io/?EIO=4&transport=polling{query}"
        status, text = self._ask("GET", self.path)
        assert status == 200, text
        self.path += f"&sid={json.loads(text[1:])['sid']}"
        assert self.post('40{"display":true}')[0] == 200

    def _ask(self, method: str, path: str, body: str | None = None) -> tuple[int, str]:
        self.http.request(method, path, body=body, headers={"Content-Type": "text/plain;charset=UTF-8"})
        reply = self.http.getresponse()
        return reply.status, reply.read().decode()

    def post(self, body: str) -> tuple[int, str]:
        return self._ask("POST", self.path, body)

    def close(self) -> None:
        self.http.close()


def test_a_strangers_long_poll_post_over_a_kilobyte_is_refused_unread_a_team_phones_is_taken(served, tokens):
    stranger = _Poller(served.port)
    try:
        assert stranger.post('42["sync",{"after":0}]')[0] == 200  # what a page of ours sends: taken
        status, text = stranger.post(PADDED)
        assert status == 400, text  # before: 200, read and answered
    finally:
        stranger.close()
    phone = _Poller(served.port, f"&team={tokens['blue']}", source="127.0.0.8")
    try:
        assert phone.post(PADDED)[0] == 200
    finally:
        phone.close()
