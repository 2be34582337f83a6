"""A station whose clock is put right, back by an hour and then by another, while the bank is out of reach
(docs/OUTBOX.md): its taps still book (none taken for a double tap's second or a harvest made again), what
waits is sent as soon as the bank answers, in the order made, saying how long it truly waited.

Needs Playwright's Python package and Debian's Chromium; skipped without them.
"""

from __future__ import annotations

import datetime
import re
import time

from needs import module, needs  # noqa: E402
sync_api = module("playwright.sync_api")  # a stand-in without Playwright: pytestmark skips the tests
from browserkit import started_bank  # noqa: E402

pytestmark = needs("playwright", "chromium")
expect = sync_api.expect


def set_back_an_hour(page):
    now = page.evaluate("() => Date.now()")
    page.clock.set_system_time(datetime.datetime.fromtimestamp(now / 1000 - 3600, datetime.timezone.utc))
    page.wait_for_timeout(800)


def harvest(page, resource, again=False):
    """One tap keeps a harvest on the device; `again`: the card harvested a moment ago, the question answered."""
    button = page.locator(f'[data-panel="harvest"] [data-resource="{resource}"]')
    button.click()
    if again:
        expect(button).to_have_class(re.compile("btn-confirm"))
        page.wait_for_timeout(800)
        button.click()
    page.wait_for_function("r => TB.outbox.mine().some(i => i.command.resource === r)", arg=resource, timeout=10_000)


def queued(bank):
    return [row["command"] for row in bank.journal_rows() if row["command"].get("queued")]


def test_a_clock_set_back_stops_neither_taps_nor_sending_nor_the_order(chromium, tmp_path):
    app, url = started_bank(tmp_path)
    bank = app.extensions["terrabank"].bank
    context = chromium.new_context(viewport={"width": 1280, "height": 900})
    cut = {"on": False}
    context.route("**/api/commands", lambda route: route.abort("connectionrefused") if cut["on"] else route.continue_())
    page = context.new_page()
    errors = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.clock.install()  # the device's clock, which the test sets; the page's monotonic clock runs on
    page.goto(url + "/login")
    page.fill("#username", "lea")
    page.fill("#password", "password1")
    page.click("#login-submit")
    page.wait_for_url("**/console")
    expect(page.locator("#conn-badge")).to_have_class(re.compile("badge-live"), timeout=30_000)
    page.click('#team-picker [data-team="green"]')
    page.click('#tabs [data-tab="harvest"]')
    page.click('[data-panel="harvest"] [data-resource="water"]')  # booked live, with the bank in reach
    expect(page.locator("#banner")).to_contain_text("Fait")
    booked_live = time.monotonic()

    context.set_offline(True)  # the Wi-Fi drops: the harvest is kept at once
    page.wait_for_timeout(750)
    harvest(page, "flora", again=True)
    # A tab that was sending a harvest live when it was closed left it held on the device.
    page.evaluate("""() => { const flora = TB.outbox.mine()[0];
      TB.outbox.hold(Object.assign({}, flora.command, { resource: "energy" }), TB.uuid(), Date.now()); }""")
    cut["on"] = True  # the Wi-Fi is back, the bank's laptop is not: no "online" event will come again
    context.set_offline(False)
    page.wait_for_timeout(2000)
    set_back_an_hour(page)  # the phone's clock is put right
    listed = page.locator("#outbox li")
    expect(listed).to_have_count(2)  # the held one too: its page is gone
    waited = int(re.search(r"\d+", listed.nth(0).locator(".outbox-ago").inner_text()).group())
    assert 2 <= waited < 60, listed.nth(0).inner_text()
    cut["on"] = False  # the bank answers again: all goes by itself
    expect(page.locator("#outbox")).to_be_hidden(timeout=15_000)
    assert [c["resource"] for c in queued(bank)] == ["flora", "energy"]
    assert 2 <= queued(bank)[0]["queued"]["seconds"] < 60

    context.set_offline(True)
    page.wait_for_timeout(max(0, 11 - (time.monotonic() - booked_live)) * 1000)  # the live water: no question now
    harvest(page, "water")
    set_back_an_hour(page)  # and back by another hour: a harvest made after it is a tap like any other
    harvest(page, "energy")
    keys = page.evaluate("() => Object.fromEntries(TB.outbox.mine().map(i => [i.command.resource, i.key]))")
    assert [item.get_attribute("data-key") for item in listed.all()] == [keys["water"], keys["energy"]]
    context.set_offline(False)
    expect(page.locator("#outbox")).to_be_hidden(timeout=15_000)
    assert [c["resource"] for c in queued(bank)] == ["flora", "energy", "water", "energy"]
    assert not errors
    context.close()
