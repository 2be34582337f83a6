"""The admin page's big-screen link names the address the phones use, not 127.0.0.1.

The team links used the network address while the big-screen link was built from the admin page's
own address: on the bank's laptop that is 127.0.0.1, and a TV on another device opening it got nothing.
"""

from __future__ import annotations

import pytest

from bank.web.field import addresses


@pytest.fixture
def on_wifi(monkeypatch):
    """This machine is on the game's Wi-Fi as 192.168.4.1."""
    monkeypatch.setattr(addresses, "lan_addresses", lambda: ["192.168.4.1"])


def test_the_big_screen_link_uses_the_team_links_address_when_the_admin_page_is_on_loopback(web, on_wifi):
    lead = web("lead")
    page = {}  # the test client is http://localhost/: the lead's browser on the bank's own laptop
    link = lead.client.get("/api/display/link", **page).get_json()
    team_base = lead.client.get("/api/teams/address", **page).get_json()["base"]
    assert team_base.startswith("http://192.168.4.1:")
    assert link["url"] == f"{team_base}/display?key={link['key']}" and not link["loopback"]
    rotated = lead.client.post("/api/display/rotate", headers={"X-CSRF-Token": lead.csrf}, **page).get_json()
    assert rotated["url"] == f"{team_base}/display?key={rotated['key']}"


def test_the_leads_chosen_address_wins_as_for_the_team_links(web, on_wifi):
    lead = web("lead")
    link = lead.client.get("/api/display/link?base=terrabank.lan:8080").get_json()
    assert link["url"] == f"http://terrabank.lan:8080/display?key={link['key']}"


def test_with_no_network_the_link_says_only_this_machine_can_open_it(web, monkeypatch):
    monkeypatch.setattr(addresses, "lan_addresses", lambda: [])
    link = web("lead").client.get("/api/display/link").get_json()
    assert link["loopback"] and link["url"] == f"http://localhost/display?key={link['key']}"
