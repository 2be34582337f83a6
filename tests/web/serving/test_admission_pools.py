"""Without a server: the pools of live slots, counted per secret, and revoke().

Before: a Trias seat's link (which anyone can mint by starting a game) drew on the same slots as the
team links; slots were counted per team, not per link; and nothing could close a connection opened
with a replaced link (the live layer only asked the page to leave). The attacks on a real server:
tests/web/serving/test_admission_minted.py.
"""

from __future__ import annotations

import socket
import threading

import pytest

from bank.web.serving.admission import LiveSlots, client_address, pool_of
from bank.web.serving.limits import Limits
from test_serving import wait_until


class Pages:
    """Live WebSocket requests held open on a LiveSlots until released, each with its own socket pair."""

    def __init__(self, slots_kwargs: dict):
        self.release = threading.Event()
        self.replies, self.threads, self.pairs = [], [], []

        def held(environ, start_response):
            # a WebSocket's life: until released, or until the server shuts its connection down
            sock = environ["gunicorn.socket"]
            sock.settimeout(10)
            while not self.release.is_set():
                try:
                    if sock.recv(1) == b"":
                        break
                except OSError:
                    break
            return [b""]

        self.slots = LiveSlots(held, **slots_kwargs, identify=lambda environ: environ.get("who"))

    def open(self, who=None, address="10.0.0.1") -> None:
        server, client = socket.socketpair()
        self.pairs.append((server, client))
        environ = {"PATH_INFO": "/socket.io/", "REQUEST_METHOD": "GET", "HTTP_UPGRADE": "websocket", "who": who,
                   "REMOTE_ADDR": address, "gunicorn.socket": server}
        thread = threading.Thread(target=self.slots, args=(environ, lambda status, headers: self.replies.append(status)))
        thread.start()
        self.threads.append(thread)

    def close(self) -> None:
        self.release.set()
        for _, client in self.pairs:
            client.close()
        for thread in self.threads:
            thread.join(5)
        for server, _ in self.pairs:
            server.close()


@pytest.fixture
def pages():
    made = []

    def make(**kwargs) -> Pages:
        made.append(Pages(kwargs))
        return made[-1]
    yield make
    for p in made:
        p.close()


def test_pools_are_named_by_who_issued_the_secret():
    assert pool_of(None) == "anonymous"
    assert pool_of("/team/blue#abc") == pool_of("camp/display#abc") == pool_of("/session/k") == "lead"
    assert pool_of("/hook/trias-seat/abcdef") == pool_of("camp/hook/trias-seat/x") == "strangers"


def test_seats_anyone_can_mint_never_take_the_slots_of_the_leads_links(pages):
    """Before (strangers had no pool): 8 seats x 2 pages filled the 10 slots and the team's phones got 503."""
    p = pages(slots=10, anonymous=1, per_secret=6, strangers=3, per_stranger_secret=2, per_stranger_address=10)
    for seat in range(8):
        for _ in range(2):
            p.open(f"/hook/trias-seat/{seat}", address=f"10.0.0.{seat % 2}")
    assert wait_until(lambda: len(p.replies) == 16 - 3, 5)  # 3 in, the rest refused
    assert p.slots.held_strangers == 3 and p.replies == ["503 Service Unavailable"] * 13
    for _ in range(6):
        p.open("/team/blue#1")
    p.open("/team/red#2")
    assert wait_until(lambda: p.slots.held == 10, 5) and len(p.replies) == 13  # every phone in


def test_one_address_holds_at_most_its_share_of_the_strangers_pool(pages):
    p = pages(slots=20, anonymous=1, strangers=10, per_stranger_secret=3, per_stranger_address=4)
    for seat in range(5):
        p.open(f"/hook/trias-seat/{seat}", address="10.0.0.9")
    assert wait_until(lambda: len(p.replies) == 1, 5) and p.slots.by_address == {"10.0.0.9": 4}
    p.open("/hook/trias-seat/7", address="10.0.0.10")  # a family at another table still plays
    assert wait_until(lambda: p.slots.held_strangers == 5, 5)


def test_slots_are_counted_per_link_and_revoke_closes_the_old_links_connections_and_frees_them(pages):
    """Before: counted per team (a replaced link's pages held the new one's share) and nothing could cut them."""
    p = pages(slots=50, anonymous=1, per_secret=5)
    for _ in range(5):
        p.open("/team/blue#old")
    p.open("/team/blue#old")
    assert wait_until(lambda: p.replies == ["503 Service Unavailable"], 5)
    p.open("/team/blue#new")  # the new link has its own share at once
    assert wait_until(lambda: p.slots.by_secret.get("/team/blue#new") == 1, 5)
    cut = p.slots.revoke(lambda name: name == "/team/blue#old")
    assert cut == 5 and "/team/blue#old" not in p.slots.by_secret and p.slots.held == 1  # freed before it returns
    assert wait_until(lambda: sum(t.is_alive() for t in p.threads) == 1, 5)  # their connections were shut down
    assert p.slots.held == 1 and p.slots.by_secret == {"/team/blue#new": 1}  # and not counted down twice


def test_the_client_address_behind_trusted_proxies_is_the_one_they_forwarded():
    environ = {"REMOTE_ADDR": "10.0.0.1", "HTTP_X_FORWARDED_FOR": "6.6.6.6, 192.168.1.20"}
    assert client_address(environ) == "10.0.0.1"
    assert client_address(environ, proxies=1) == "192.168.1.20"
    assert client_address({"REMOTE_ADDR": "10.0.0.1"}, proxies=1) == "10.0.0.1"


def test_the_default_limits_keep_the_leads_pool_for_every_team_and_screen_of_the_config(config):
    limits = Limits()
    lead = limits.live_slots() - limits.anonymous_live_slots() - limits.strangers_live_slots()
    per_link = config.live_pages_per_link
    assert per_link == config.phones_per_team + config.spare_pages_per_link == 60  # from config.toml
    assert lead >= per_link * (len(config.teams) + 1)  # every team's share and the big screen's
    assert limits.strangers_live_slots() >= 2 * limits.per_stranger_address_live


def test_a_link_full_of_one_addresss_pages_gives_way_to_pages_from_other_addresses(pages):
    """Before: one address's idle pages on a stolen link held all its slots and every real phone was refused
    until the lead replaced the link. The share is enforced only when contested: pages cut for newcomers."""
    p = pages(slots=50, anonymous=1, per_secret=6)
    for _ in range(8):
        p.open("/team/blue#1", address="10.0.0.9")
    assert wait_until(lambda: len(p.replies) == 2, 5) and p.slots.by_secret == {"/team/blue#1": 6}
    for i in range(4):  # a phone from elsewhere, three times: the busiest address gives way until the split is even
        p.open("/team/blue#1", address="10.0.0.1")
        assert wait_until(lambda: p.slots.by_link_address.get(("/team/blue#1", "10.0.0.1"), 0) == min(i + 1, 3)
                          and len(p.replies) == 2 + (i == 3), 5), (p.slots.by_link_address, p.replies)
    assert p.slots.by_link_address == {("/team/blue#1", "10.0.0.9"): 3, ("/team/blue#1", "10.0.0.1"): 3}
    assert wait_until(lambda: sum(t.is_alive() for t in p.threads) == 6, 5)  # the cut pages' connections were shut
    assert p.slots.given_way == 3 and p.slots.by_secret == {"/team/blue#1": 6}


def test_behind_one_nat_address_a_links_pages_are_admitted_as_before(pages):
    p = pages(slots=50, anonymous=1, per_secret=6)
    for _ in range(7):
        p.open("/team/blue#1", address="10.0.0.9")
    assert wait_until(lambda: len(p.replies) == 1, 5) and p.slots.given_way == 0  # nothing contested: nothing cut
    p.open("/team/red#2", address="10.0.0.1")  # another link's share is its own
    assert wait_until(lambda: p.slots.by_secret.get("/team/red#2") == 1, 5) and p.slots.given_way == 0
