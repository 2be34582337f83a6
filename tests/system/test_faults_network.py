"""Faults on the Wi-Fi, seen in a real browser (Playwright + Debian's Chromium).

A team phone and the big screen reach the bank through tests/tcp_proxy.py, which can
black-hole the traffic like a phone walking out of range. While they are cut off for
60 s a facilitator books commands; the pages must say "offline" meanwhile and, once the
network is back, show the new stock, reputation and last entry without a reload.

The console's side of a storage failure is here too: a 503 disk_full shows the bank's
sentence while the page retries the same key, and the command is booked once when there
is room again.
"""

from __future__ import annotations

import logging
import re
import sys
import time
from pathlib import Path

import pytest

from tcp_proxy import Proxy

from needs import module, needs  # noqa: E402
sync_api = module("playwright.sync_api")  # a stand-in without Playwright: pytestmark skips the tests
CHROMIUM = "/usr/bin/chromium"
pytestmark = needs("playwright", "chromium")

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "bench"))
from harness import Api  # noqa: E402
from browserkit import log_in_to, page_opener, serve_in_thread  # noqa: E402
PHONE = {"width": 360, "height": 740}
USER, PASSWORD = "lea", "password1"
OUT_OF_RANGE = 60.0  # seconds; the one long test of the suite


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    """The app with Socket.IO on 127.0.0.1 (threading, as `terrabank serve`), clock running."""
    from bank.web import create_app

    logging.getLogger("werkzeug").setLevel(logging.ERROR)
    folder = tmp_path_factory.mktemp("faults-network")
    app = create_app({"DB": str(folder / "game.db"), "CONFIG": str(ROOT / "config.toml"),
                      "PASSWORD_HASH": "pbkdf2:sha256:1000"})
    services = app.extensions["terrabank"]
    services.access.add_user(USER, PASSWORD, "lead")
    services.bank.execute({"id": "start", "actor": USER, "type": "start_clock"})
    url, port = serve_in_thread(app)
    return app, url, port


@pytest.fixture
def pages(chromium):
    """Opens pages in fresh contexts; fails the test on any uncaught script error."""
    with page_opener(chromium) as open_page:
        yield open_page


def badge(page):
    return page.locator("#conn-badge")


def test_a_phone_out_of_wifi_for_60_s_says_offline_then_catches_up_without_a_reload(server, pages):
    app, url, port = server
    expect = sync_api.expect
    bank = app.extensions["terrabank"].bank
    token = app.extensions["terrabank"].access.team_tokens()["blue"]
    with Proxy(port) as proxy:
        phone = pages(viewport=PHONE, is_mobile=True, has_touch=True)
        phone.goto(f"{proxy.url}/t/{token}")
        screen = pages(viewport={"width": 1920, "height": 1080})
        screen.goto(f"{proxy.url}/display")
        for page in (phone, screen):
            expect(badge(page)).to_have_class(re.compile("badge-live"))
            page.evaluate("window.notReloaded = true")  # a reload would forget this
        water = phone.locator('#stock [data-resource="water"] .n')
        water_before = int(water.inner_text())
        rep_before = int(phone.locator("#team-rep").inner_text())

        proxy.cut()
        cut_at = time.monotonic()
        lead = Api(url).login(USER, PASSWORD)  # the facilitator's tablet is still in range
        for n in range(3):
            assert lead.command(f"away-harvest-{n}", type="harvest", team="blue", card="harvester-1",
                                resource="water")[0] == 200
        assert lead.command("away-award", type="award", team="blue", points=2,
                            reason="tidy camp")[0] == 200
        lead.close()
        last = bank.last_seq

        for page in (phone, screen):  # Socket.IO's ping (10 s + 10 s) notices the silence
            expect(badge(page)).to_have_class(re.compile("badge-offline"), timeout=40_000)
        offline_after = time.monotonic() - cut_at
        expect(badge(phone)).to_contain_text(re.compile(r"\d"))  # "offline for N s"
        assert water.inner_text() == str(water_before)  # nothing came through the cut
        time.sleep(max(0.0, OUT_OF_RANGE - (time.monotonic() - cut_at)))
        assert "badge-offline" in badge(phone).get_attribute("class")

        proxy.restore()
        back_at = time.monotonic()
        expect(water).to_have_text(str(water_before + 3), timeout=30_000)
        expect(phone.locator("#team-rep")).to_have_text(str(rep_before + 2))
        for page in (phone, screen):
            expect(page.locator("body")).to_have_attribute("data-seq", str(last), timeout=30_000)
            expect(badge(page)).to_have_class(re.compile("badge-live"))
            assert page.evaluate("window.notReloaded") is True
        caught_up = time.monotonic() - back_at
    print(f"\nFAULT-NETWORK offline_after={offline_after:.1f}s caught_up={caught_up:.1f}s")


def test_a_full_disk_shows_the_banks_sentence_while_the_console_retries_then_books_once(server, pages):
    app, url, _ = server
    expect = sync_api.expect
    bank = app.extensions["terrabank"].bank
    console = pages(viewport={"width": 1280, "height": 800})
    log_in_to(console, url, "/console", USER, PASSWORD)
    expect(badge(console)).to_have_class(re.compile("badge-live"))
    console.click('#team-picker [data-team="green"]')
    console.click('#tabs [data-tab="harvest"]')

    conn = bank._journal._conn
    conn.execute(f"PRAGMA max_page_count={conn.execute('PRAGMA page_count').fetchone()[0]}")
    try:
        from bank.store.journal import StorageError

        for n in range(500):  # the last page fills up; then not one more row fits
            try:
                bank.execute({"id": f"filler-{n}", "actor": USER, "type": "harvest", "team": "red",
                              "card": "harvester-2", "resource": "water"})
            except StorageError:
                break
        else:
            raise AssertionError("500 rows and the page limit never refused one")
        before = bank.last_seq
        keys = []
        console.on("request", lambda r: keys.append(r.headers.get("idempotency-key"))
                   if r.url.endswith("/api/commands") else None)
        console.click('[data-panel="harvest"] [data-resource="flora"]')
        banner = console.locator("#banner")
        # The console is in French (the game's language): the page's own sentence for disk_full.
        expect(banner).to_contain_text("Le disque de la machine de la banque est plein")
        expect(banner).to_have_class(re.compile("banner-error"))
        assert bank.last_seq == before
    finally:
        conn.execute("PRAGMA max_page_count=1073741823")
    expect(banner).to_have_class(re.compile("banner-ok"), timeout=15_000)  # the next retry
    assert bank.last_seq == before + 1
    assert len(keys) >= 2 and len(set(keys)) == 1  # every attempt carried the same key
    row = bank._journal.find(keys[0])
    assert row is not None and row["seq"] == before + 1 and row["command"]["resource"] == "flora"
