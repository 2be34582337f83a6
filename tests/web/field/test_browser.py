"""Real browsers on the real server: what a facilitator books shows on the phones and the big screen.

Needs Playwright's Python package and Debian's Chromium (`apt-get install chromium`); the
module is skipped without them. The server runs in a background thread on a free port.
"""

from __future__ import annotations

import itertools
import logging
import re
from pathlib import Path

import pytest

from needs import module, needs  # noqa: E402
sync_api = module("playwright.sync_api")  # a stand-in without Playwright: pytestmark skips the tests
from browserkit import CHROMIUM, log_in_to, serve_in_thread

pytestmark = needs("playwright", "chromium")

ROOT = Path(__file__).resolve().parents[3]
PHONE = {"width": 360, "height": 740}
TABLET = {"width": 1280, "height": 800}
SCREEN = {"width": 1920, "height": 1080}


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    """The app with Socket.IO on 127.0.0.1, a lead facilitator, and the game clock running."""
    from bank.web import create_app

    logging.getLogger("werkzeug").setLevel(logging.ERROR)
    folder = tmp_path_factory.mktemp("browser")
    app = create_app({"DB": str(folder / "game.db"), "CONFIG": str(ROOT / "config.toml"), "PASSWORD_HASH": "pbkdf2:sha256:1000"})
    services = app.extensions["terrabank"]
    services.access.add_user("lea", "password1", "lead")
    ids = itertools.count(1)
    services.bank.execute({"id": f"setup-{next(ids)}", "actor": "lea", "type": "start_clock"})
    # Blue starts with 5 water; 4 more, so that one harvest makes the 10 an exchange needs.
    services.bank.execute({"id": f"setup-{next(ids)}", "actor": "lea", "type": "inventory", "team": "blue",
                           "counted": {"water": 9}, "reason": "test set-up"})
    url, _ = serve_in_thread(app)
    return app, url


class Browser:
    """Opens pages that record their uncaught script errors, so a test can say there were none."""

    def __init__(self, chromium):
        self.chromium, self.errors, self.contexts = chromium, [], []

    def page(self, **context_options):
        context = self.chromium.new_context(**context_options)
        self.contexts.append(context)
        page = context.new_page()
        page.on("pageerror", lambda error: self.errors.append(f"{page.url}: {error}"))
        return page


@pytest.fixture
def browser(chromium):
    opened = Browser(chromium)
    yield opened
    for context in opened.contexts:
        context.close()
    assert not opened.errors, opened.errors


def _facilitator(browser, url, path):
    """A tablet logged in as the lead facilitator, on `path`."""
    page = browser.page(viewport=TABLET)
    log_in_to(page, url, path)
    sync_api.expect(page.locator("#conn-badge")).to_have_class(re.compile("badge-live"))
    return page


def _team_phone(browser, url, token):
    page = browser.page(viewport=PHONE, is_mobile=True, has_touch=True)
    page.goto(f"{url}/t/{token}")
    sync_api.expect(page.locator("#conn-badge")).to_have_class(re.compile("badge-live"))
    return page


def test_harvest_at_the_counter_shows_on_the_team_phone_and_the_big_screen(server, browser):
    app, url = server
    expect = sync_api.expect
    phone = _team_phone(browser, url, app.extensions["terrabank"].access.team_tokens()["blue"])
    water = phone.locator('#stock [data-resource="water"] .n')
    expect(water).to_have_text("9")
    screen = browser.page(viewport=SCREEN)
    screen.goto(url + "/display")
    expect(screen.locator("#conn-badge")).to_have_class(re.compile("badge-live"))
    seq_before = int(screen.locator("body").get_attribute("data-seq"))

    console = _facilitator(browser, url, "/console")
    console.click('#team-picker [data-team="blue"]')
    console.click('#tabs [data-tab="harvest"]')
    console.click('[data-panel="harvest"] [data-resource="water"]')
    expect(console.locator("#banner")).to_have_class(re.compile("banner-ok"))
    expect(console.locator('#stock [data-resource="water"] .n')).to_have_text("10")

    expect(water).to_have_text("10")  # the phone, without a reload
    expect(screen.locator("body")).to_have_attribute("data-seq", str(seq_before + 1))

    # Ten water for one point: the standings on the phone and on the big screen follow.
    console.click('#tabs [data-tab="exchange"]')
    console.fill('[data-panel="exchange"] [data-resource="water"] input', "10")
    console.click('[data-panel="exchange"] button.btn-primary')
    expect(console.locator("#banner")).to_have_class(re.compile("banner-ok"))
    expect(phone.locator("#team-rep")).to_have_text("1")
    expect(water).to_have_text("0")
    expect(screen.locator("#standings .standing").first).to_have_attribute("data-team", "blue")
    expect(screen.locator('#standings [data-team="blue"] .rep b')).to_have_text("1")

    # The result offers Undo; it asks for a reason and books a reversing entry.
    console.click("#banner .btn-undo")
    console.fill("#banner .undo-form input", "wrong team")
    console.click("#banner .undo-form button")
    expect(console.locator("#banner")).to_contain_text("wrong team")
    expect(water).to_have_text("10")
    expect(screen.locator('#standings [data-team="blue"] .rep b')).to_have_text("0")


def test_a_lost_fight_starts_a_cooldown_that_counts_down_on_the_team_phone(server, browser):
    app, url = server
    expect = sync_api.expect
    phone = _team_phone(browser, url, app.extensions["terrabank"].access.team_tokens()["red"])
    expect(phone.locator("#cooldowns-panel")).to_be_hidden()

    fight = _facilitator(browser, url, "/fight")
    fight.click('#attacker [data-team="red"]')
    fight.click('#attacker [data-card="pirate-1"]')
    fight.click('#defender [data-team="blue"]')
    fight.click('#defender [data-card="harvester-1"]')
    expect(fight.locator('#rounds [data-side="attacker"] .n')).to_have_text("1")  # pirate vs harvester: 1 / 3 (R18)
    expect(fight.locator('#rounds [data-side="defender"] .n')).to_have_text("3")
    fight.click("#win-defender")
    fight.click("#record")
    expect(fight.locator("#banner")).to_have_class(re.compile("banner-ok"))
    expect(fight.locator('#cooldowns [data-key="red/pirate-1"]')).to_be_visible()

    left = phone.locator('#cooldowns [data-key="red/pirate-1"] .cd-left')
    expect(left).to_have_text(re.compile(r"^\d+ s$"))
    first = int(left.inner_text().split()[0])
    assert 55 <= first <= 60  # a losing pirate waits 60 s (R19)
    phone.wait_for_timeout(3000)  # the page redraws twice a second: at least 2.5 s counted
    assert int(left.inner_text().split()[0]) <= first - 2


def test_a_lost_reply_is_retried_with_the_same_key_and_booked_once(server, browser):
    """The bank booked the harvest but the Wi-Fi lost its reply: the retry must not book it twice."""
    app, url = server
    expect = sync_api.expect
    bank = app.extensions["terrabank"].bank
    console = _facilitator(browser, url, "/console")
    console.click('#team-picker [data-team="green"]')
    console.click('#tabs [data-tab="harvest"]')
    keys = []

    def lose_first_reply(route):
        keys.append(route.request.headers.get("idempotency-key"))
        if len(keys) == 1:
            route.fetch()  # it reaches the bank and is booked...
            route.abort("connectionreset")  # ...but the answer never comes back
        else:
            route.continue_()

    console.route("**/api/commands", lose_first_reply)
    before = bank.last_seq
    console.click('[data-panel="harvest"] [data-resource="flora"]')
    expect(console.locator("#banner")).to_have_class(re.compile("banner-ok"))
    assert len(keys) == 2 and keys[0] == keys[1] and keys[0]
    assert bank.last_seq == before + 1
    # The retry's reply is the first booking's, marked as already done.
    expect(console.locator("#banner")).to_contain_text(f"Déjà fait (écriture {before + 1})")


def test_a_scanned_role_card_picks_the_team_and_its_counter(server, browser):
    """A USB scanner types the card's QR text and Enter, even when no field has the focus."""
    _, url = server
    expect = sync_api.expect
    console = _facilitator(browser, url, "/console")
    console.locator("#clock-line").click()  # focus on the page, not in a field
    console.keyboard.type("terrabank:card:red:builder-1")
    console.keyboard.press("Enter")
    expect(console.locator('#team-picker [data-team="red"]')).to_have_attribute("aria-pressed", "true")
    expect(console.locator('#tabs [data-tab="build"]')).to_have_attribute("aria-selected", "true")
    console.fill("#scan", "terrabank:card:green:harvester-2")
    console.press("#scan", "Enter")
    expect(console.locator('[data-panel="harvest"] button[aria-pressed="true"]')).to_have_text("Récolteur 2")
    console.fill("#scan", "<b>not a card</b>")
    console.press("#scan", "Enter")
    expect(console.locator("#banner")).to_have_class(re.compile("banner-error"))
    expect(console.locator("#banner")).to_contain_text("<b>not a card</b>")  # shown as text, not markup
