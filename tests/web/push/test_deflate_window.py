"""permessage-deflate with a small window (the whole tree <= 100 MB with 200 pages).

A browser's page still talks compressed with the bank, now with a 4 KB window and a small zlib
memory level (bank/web/push/deflate.py), and still gets a booked command live (R11's harvest);
a client that asks for nothing, or asks for what cannot be, still gets its messages.
The browser test needs Playwright's Python package and Debian's Chromium; skipped without them.
"""

from __future__ import annotations

import os
import re

import pytest
from wsproto import ConnectionType, WSConnection
from wsproto.events import AcceptConnection, Request, TextMessage
from wsproto.extensions import PerMessageDeflate

from bank.web.push import deflate
from bank.web.push.deflate import WINDOW_BITS, SmallDeflate

from needs import module, needs  # noqa: E402
sync_api = module("playwright.sync_api")  # a stand-in without Playwright: the browser test skips
from browserkit import started_bank  # noqa: E402
from harness import Api  # noqa: E402

PHONE = {"width": 360, "height": 740}


def extension_parameters(header: str) -> dict:
    """'permessage-deflate; server_max_window_bits=12' -> {'permessage-deflate': True, 'server_max_window_bits': '12'}."""
    pairs = (part.strip().partition("=") for part in header.split(";"))
    return {name: value or True for name, _, value in pairs}


@needs("playwright", "chromium")
def test_a_phone_in_chromium_talks_deflated_with_the_small_window_and_sees_a_harvest_live(chromium, tmp_path):
    app, url = started_bank(tmp_path)
    context = chromium.new_context(viewport=PHONE)
    try:
        page = context.new_page()
        errors, offers, answers = [], [], []
        page.on("pageerror", lambda error: errors.append(str(error)))
        cdp = context.new_cdp_session(page)  # Playwright does not show a WebSocket's handshake; the DevTools protocol does
        cdp.send("Network.enable")
        cdp.on("Network.webSocketWillSendHandshakeRequest",
               lambda e: offers.append({k.lower(): v for k, v in e["request"]["headers"].items()}))
        cdp.on("Network.webSocketHandshakeResponseReceived",
               lambda e: answers.append({k.lower(): v for k, v in e["response"]["headers"].items()}))
        page.goto(f"{url}/t/{app.extensions['terrabank'].access.team_tokens()['red']}")
        sync_api.expect(page.locator("#conn-badge")).to_have_class(re.compile("badge-live"))
        harvester = page.locator('#harvests [data-card="harvester-1"]')
        sync_api.expect(harvester).to_contain_text("pas encore récolté")

        assert offers and "permessage-deflate" in offers[-1]["sec-websocket-extensions"]  # Chromium offers it
        agreed = extension_parameters(answers[-1].get("sec-websocket-extensions", ""))
        # Context takeover both ways (a round points back into the one before): the server's compressor is shared
        # by every page that received the same messages (bank/web/push/hub_frames.py), none is a page's own.
        assert agreed == {"permessage-deflate": True,
                          "server_max_window_bits": str(WINDOW_BITS), "client_max_window_bits": str(WINDOW_BITS)}, agreed

        lead = Api(url).login("lea", "password1")  # a harvest booked at the bank's desk (R11) ...
        status, body = lead.command("deflate-window-1", type="harvest", team="red", card="harvester-1",
                                    resource="water")
        lead.close()
        assert status == 200, body
        sync_api.expect(harvester).to_contain_text("vient de récolter")  # ... reaches the phone, deflated
        os.makedirs("/tmp/i27", exist_ok=True)
        page.screenshot(path="/tmp/i27/phone-deflate-360.png")
        assert not errors, errors
    finally:
        context.close()


def handshake(offer: list) -> tuple[WSConnection, WSConnection, AcceptConnection]:
    """A wsproto client offering `offer` and a server accepting with SmallDeflate, joined in memory."""
    client, server = WSConnection(ConnectionType.CLIENT), WSConnection(ConnectionType.SERVER)
    server.receive_data(client.send(Request(host="bank", target="/socket.io/", extensions=offer)))
    assert isinstance(next(server.events()), Request)
    client.receive_data(server.send(AcceptConnection(extensions=[SmallDeflate()])))
    return client, server, next(client.events())


class Offer(PerMessageDeflate):
    """wsproto's own permessage-deflate as a client offers it, with a fixed offer string."""

    def __init__(self, text: str | bool):
        super().__init__()
        self.text = text

    def offer(self):
        return self.text


def test_a_client_that_does_not_limit_its_window_is_still_read_in_full():
    # No client_max_window_bits in the offer: the client may compress with 32 KB of history;
    # a 4 KB inflater would fail on a match 20 KB back ("invalid distance too far back").
    client, server, accepted = handshake([Offer(True)])  # "permessage-deflate" and nothing else
    assert accepted.extensions[0].server_max_window_bits == WINDOW_BITS
    message = "A" * 5 + os.urandom(10_000).hex() + "A" * 5
    text = message[:20_000] + message[:20_000]
    server.receive_data(client.send(TextMessage(data=text)))
    got = "".join(e.data for e in server.events() if isinstance(e, TextMessage))
    assert got == text


def test_a_browser_offer_gets_the_small_window_both_ways_and_messages_round_trip():
    client, server, accepted = handshake([Offer("client_max_window_bits")])
    deflater = accepted.extensions[0]
    assert (deflater.server_max_window_bits, deflater.client_max_window_bits) == (WINDOW_BITS, WINDOW_BITS)
    patch = '{"seq": 41, "teams": {"red": {"water": 3, "flora": 1}}, "feed": ["Rouge a récolté de l\'eau"]}'
    for _ in range(3):  # context takeover: the later messages are smaller on the wire
        client.receive_data(server.send(TextMessage(data=patch)))
        assert [e.data for e in client.events()] == [patch]
        server.receive_data(client.send(TextMessage(data=patch)))
        assert [e.data for e in server.events()] == [patch]


@pytest.mark.parametrize("offer", ["permessage-deflate; server_max_window_bits=abc",
                                   "permessage-deflate; server_max_window_bits=20",
                                   "permessage-deflate; client_max_window_bits=3"])
def test_an_offer_that_cannot_be_honoured_is_declined_so_the_socket_opens_uncompressed(offer):
    assert SmallDeflate().accept(offer) is None


def test_a_client_asking_for_an_even_smaller_server_window_gets_it():
    assert "server_max_window_bits=9" in SmallDeflate().accept("permessage-deflate; server_max_window_bits=9")


def test_install_refuses_loudly_when_simple_websocket_no_longer_builds_the_extension_from_its_globals(monkeypatch):
    from simple_websocket import ws

    monkeypatch.setattr(ws, "PerMessageDeflate", type("Other", (), {}))
    with pytest.raises(RuntimeError, match="simple-websocket 1.1.0 and wsproto 1.3.2"):
        deflate.install()

