"""What just happened, on every screen, in Chromium.

Before: an undone building took a team from 3 points to 1 with no word on its phone; the big screen
showed only numbers changing; a change of the exchange rate got no highlight anywhere. Here a
facilitator books a building for Blue from the console, undoes it with a reason and changes the
rate: the big screen's feed says it in words with the reason, Blue's phone (360x740, an old phone's
size) says it with "3 → 1", and the rate flashes on the big screen, the phone and the console.

Needs Playwright and Debian's Chromium; skipped without them.
"""

from __future__ import annotations

import itertools
import re

import pytest

from needs import module, needs  # noqa: E402
sync_api = module("playwright.sync_api")  # a stand-in without Playwright: pytestmark skips the tests
from browserkit import started_bank  # noqa: E402

pytestmark = needs("playwright", "chromium")
expect = sync_api.expect
_ids = itertools.count(1)


@pytest.fixture
def screens(tmp_path, chromium):
    """The big screen, Blue's phone and the console, live, on a game where Blue has 1 point and the
    tokens of a Power plant I."""
    app, url = started_bank(tmp_path)
    bank = app.extensions["terrabank"].bank
    bank.execute({"id": "feed-count", "type": "inventory", "team": "blue", "counted": {"energy": 5, "water": 5, "dioxygen": 5},
                  "reason": "box counted"})
    bank.execute({"id": "feed-award", "type": "award", "team": "blue", "points": 1, "reason": "fair play"})
    contexts, pages = [], {}
    for name, viewport, path in (("tv", (1280, 720), "/display"), ("phone", (360, 740), None), ("console", (1280, 800), "/login")):
        context = chromium.new_context(viewport={"width": viewport[0], "height": viewport[1]})
        contexts.append(context)
        page = pages[name] = context.new_page()
        token = app.extensions["terrabank"].access.team_tokens()["blue"]
        page.goto(url + (path or f"/t/{token}"))
        if name == "console":
            page.fill("#username", "lea")
            page.fill("#password", "password1")
            page.click("#login-submit")
            page.wait_for_url("**/console")
        expect(page.locator("#conn-badge")).to_have_class(re.compile("badge-live"))
    yield pages
    for context in contexts:
        context.close()


def book(page, **command):
    """Book through the console's API, as the facilitator's tap does: every screen hears of it."""
    result = page.evaluate("c => TB.command(c).then(r => r.ok ? r.data : null)", {"id": f"feed-{next(_ids)}", **command})
    assert result, command
    return result


def test_an_undone_building_is_told_on_the_big_screen_and_on_the_team_phone_with_its_reason(screens):
    built = book(screens["console"], type="build", team="blue", building="power_plant_1")
    expect(screens["phone"].locator("#team-rep")).to_have_text("3")
    book(screens["console"], type="reverse", seq=built["seq"], reason="mauvaise équipe")
    expect(screens["phone"].locator("#team-rep")).to_have_text("1")

    tv = screens["tv"].locator("#feed .feed-item").first  # the newest first
    expect(tv).to_contain_text("Annulé")
    expect(tv).to_contain_text("Centrale I")
    expect(tv).to_contain_text("« mauvaise équipe »")
    expect(tv.locator(".team-chip")).to_have_text("Bleus")
    expect(screens["tv"].locator('#feed .feed-item.undone[data-type="build"]')).to_contain_text("annulé")

    phone = screens["phone"].locator("#feed .feed-item").first
    expect(phone).to_contain_text("Annulé")
    expect(phone).to_contain_text("Centrale I")
    expect(phone).to_contain_text("3 → 1")  # the points the team had and has now
    expect(phone).to_contain_text("« mauvaise équipe »")
    expect(phone).to_contain_text("+5")  # its own tokens came back
    # Above the fold of a 360x740 phone: the second thing the team reads after its stock.
    assert screens["phone"].locator("#feed-panel").bounding_box()["y"] < 740 * 2
    screens["phone"].screenshot(path="/tmp/tv25_shots/phone-feed.png", full_page=True)
    screens["tv"].screenshot(path="/tmp/tv25_shots/tv-feed.png")


def test_a_rate_change_flashes_on_the_big_screen_the_phone_and_the_console(screens):
    book(screens["console"], type="set_rate", tokens=8, points=1)
    expect(screens["tv"].locator("#rate")).to_have_class(re.compile(r"\brate-flash\b"))
    expect(screens["tv"].locator("#rate")).to_have_text("8 jetons = 1 pt")
    news = screens["phone"].locator("#rate-news")
    expect(news).to_be_visible()
    expect(news).to_have_class(re.compile(r"\brate-flash\b"))
    expect(news).to_have_text("Nouveau taux : 8 jetons = 1 pt")
    assert news.bounding_box()["y"] < 300  # at the top of the phone, not in the Bank panel at the bottom
    expect(screens["console"].locator("#clock-line")).to_have_class(re.compile(r"\brate-flash\b"))
    expect(screens["tv"].locator("#feed .feed-item").first).to_contain_text("Nouveau taux de change")
