"""The outbox on one tablet: two tabs never send the same command twice; a log-out with commands waiting
asks what to do; another account logged in on the tablet never sends them; the list passes axe-core.

Needs Playwright's Python package and Debian's Chromium; skipped without them (axe's check without
axe-playwright-python).
"""

from __future__ import annotations

import importlib.util
import re
import time
from collections import Counter

import pytest

from needs import module, needs  # noqa: E402
sync_api = module("playwright.sync_api")  # a stand-in without Playwright: pytestmark skips the tests
from browserkit import log_in_to, started_bank  # noqa: E402

pytestmark = needs("playwright", "chromium")
expect = sync_api.expect
TABLET = {"width": 1280, "height": 900}
AXE = {"runOnly": {"type": "tag", "values": ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "wcag22aa"]},
       "resultTypes": ["violations"]}


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    app, url = started_bank(tmp_path_factory.mktemp("outbox-tabs"))
    app.extensions["terrabank"].access.add_user("ana", "password1", "banker")
    return app, url


class Sent:
    """Every /api/commands request of a browser context, by Idempotency-Key; `cut` makes the bank unreachable."""

    def __init__(self, context):
        self.keys, self.cut = Counter(), False
        context.route("**/api/commands", self.handle)

    def handle(self, route):
        if self.cut:
            route.abort("connectionrefused")
            return
        self.keys[route.request.headers.get("idempotency-key")] += 1
        route.continue_()


def console(context, url, user="lea"):
    """`user`'s console in a new tab of `context`, logged in as the log-in page does (browserkit.log_in_to: the
    form itself, 0.3-0.5 CPU-second of Chromium a log-in, is tested in tests/web/access/), live."""
    page = context.new_page()
    log_in_to(page, url, "/console", user, "password1")
    try:
        expect(page.locator("#conn-badge")).to_have_class(re.compile("badge-live"), timeout=30_000)  # a loaded machine
    except AssertionError as error:  # what the socket last said: a refusal, a transport error, nothing at all
        said = page.evaluate("() => [document.body.dataset.live, document.getElementById('conn-badge').textContent]")
        raise AssertionError(f"{user}'s console not live after 30 s: socket {said[0]!r}, badge {said[1]!r}") from error
    return page


def tap(page, selector):
    """A tap that the page keeps on the device: one more entry waits (taps 700 ms apart, never a double tap)."""
    before = page.evaluate("() => TB.outbox.waiting().length")
    page.wait_for_timeout(750)
    page.click(selector)
    expect(page.locator("#banner .kept")).to_be_visible(timeout=15_000)
    page.wait_for_function("n => TB.outbox.waiting().length === n", arg=before + 1, timeout=15_000)


def harvest(page, resource):
    page.click('#team-picker [data-team="green"]')
    page.click('#tabs [data-tab="harvest"]')
    tap(page, f'[data-panel="harvest"] [data-resource="{resource}"]')


def test_two_tabs_of_one_tablet_send_each_command_once(chromium, served):
    app, url = served
    bank = app.extensions["terrabank"].bank
    context = chromium.new_context(viewport=TABLET)
    sent = Sent(context)
    first = console(context, url)
    second = context.new_page()  # a second tab: the same log-in (a second log-in would end the first's session)
    second.goto(url + "/console")
    expect(second.locator("#conn-badge")).to_have_class(re.compile("badge-live"), timeout=30_000)
    context.set_offline(True)
    for resource in ("water", "flora", "energy"):
        harvest(first, resource)
        harvest(second, resource)
    # Each tab lists the other's too: one device, one account.
    expect(first.locator("#outbox li.waiting")).to_have_count(6)
    expect(second.locator("#outbox li.waiting")).to_have_count(6)
    keys = first.evaluate("() => TB.outbox.mine().map(i => i.key)")
    context.set_offline(False)  # both tabs hear "online" at once and both try to send
    for page in (first, second):
        expect(page.locator("#outbox")).to_be_hidden(timeout=20_000)
    first.wait_for_timeout(3500)  # a later try of the other tab would show here
    assert {key: sent.keys[key] for key in keys} == {key: 1 for key in keys}
    booked = Counter(row["command_id"] for row in bank.journal_rows() if row["command_id"] in keys)
    assert booked == Counter({key: 1 for key in keys})
    context.close()


def test_a_log_out_asks_and_another_account_never_sends_them(chromium, served):
    app, url = served
    bank = app.extensions["terrabank"].bank
    context = chromium.new_context(viewport=TABLET)
    sent = Sent(context)
    page = console(context, url)
    context.set_offline(True)
    harvest(page, "water")
    [key] = page.evaluate("() => TB.outbox.mine().map(i => i.key)")
    sent.cut = True  # the Wi-Fi is back, the bank is still out of reach
    context.set_offline(False)
    page.click("[data-logout]")
    dialog = page.locator(".outbox-logout")
    expect(dialog).to_contain_text("1 commande de ce compte est gardée sur cet appareil")
    dialog.locator("[data-act=stay]").click()
    expect(dialog).to_be_hidden()
    assert page.url.endswith("/console")
    page.click("[data-logout]")
    page.locator(".outbox-logout [data-act=keep]").click()
    page.wait_for_url("**/login")

    sent.cut = False
    other = console(context, url, "ana")
    # Said on ana's console (before, nothing: she could not tell lea), never listed nor sent under her name.
    expect(other.locator("#outbox [data-account=lea]")).to_have_text(
        "1 commande de lea attend sur cet appareil : elle ne part que quand lea se reconnecte ici.")
    expect(other.locator("#outbox li")).to_have_count(0)
    if importlib.util.find_spec("axe_playwright_python"):
        from axe_playwright_python.sync_playwright import Axe

        found = Axe().run(other, options=AXE).response["violations"]
        assert [v["id"] for v in found] == [], [(n["target"], n.get("failureSummary", "")[:300]) for v in found for n in v["nodes"]]
    other.wait_for_timeout(4000)  # longer than the outbox's pause between two tries
    assert sent.keys[key] == 0 and not [row for row in bank.journal_rows() if row["command_id"] == key]
    other.click("[data-logout]")  # nothing of ana's waits: no question
    other.wait_for_url("**/login")

    again = console(context, url, "lea")
    expect(again.locator("#outbox")).to_be_hidden(timeout=20_000)
    [row] = [row for row in bank.journal_rows() if row["command_id"] == key]
    assert row["actor"] == "lea" and row["command"]["queued"]["seconds"] >= 1
    context.close()


@needs("axe_playwright_python")
def test_the_list_with_a_refusal_passes_axe(chromium, served):
    from axe_playwright_python.sync_playwright import Axe

    app, url = served
    context = chromium.new_context(viewport=TABLET)
    page = console(context, url)
    context.set_offline(True)
    harvest(page, "water")
    harvest(page, "flora")
    # A refusal as the bank gives it: an exchange it can no longer book.
    page.evaluate("""() => { var i = TB.outbox.mine()[0]; i.state = "refused";
        i.error = {code: "not_enough_tokens", message: "not enough", params: {team: "green", missing: {water: 3}}};
        localStorage.setItem("tb.outbox.item." + i.key, JSON.stringify(i)); window.dispatchEvent(new StorageEvent("storage")); }""")
    expect(page.locator("#outbox li.refused [data-act=again]")).to_be_visible()
    expect(page.locator("#team-unconfirmed")).to_be_visible()
    found = Axe().run(page, options=AXE).response["violations"]
    assert [v["id"] for v in found] == [], [(n["target"], n.get("failureSummary", "")[:300]) for v in found for n in v["nodes"]]

    # Back online, the facilitator books the refused one again: a new try, under a new key, booked once.
    refused_key = page.locator("#outbox li.refused").get_attribute("data-key")
    bank = app.extensions["terrabank"].bank
    since = bank.last_seq
    context.set_offline(False)
    page.locator("#outbox li.refused [data-act=again]").click()
    expect(page.locator("#outbox")).to_be_hidden(timeout=20_000)
    rows = [row for row in bank.journal_rows(since) if row["type"] == "harvest" and row["command"]["resource"] == "water"]
    assert len(rows) == 1 and rows[0]["command_id"] != refused_key and "queued" in rows[0]["command"]  # sent by the outbox, made again now
    context.close()


def test_a_double_tap_offline_keeps_one_command(chromium, served):
    _, url = served
    context = chromium.new_context(viewport=TABLET)
    page = console(context, url)
    context.set_offline(True)
    page.click('#team-picker [data-team="blue"]')
    page.click('#tabs [data-tab="harvest"]')
    page.locator('[data-panel="harvest"] [data-resource="energy"]').dblclick()
    expect(page.locator("#banner .kept")).to_be_visible(timeout=15_000)
    page.wait_for_timeout(1000)
    assert page.evaluate("() => TB.outbox.waiting().length") == 1
    page.evaluate("() => TB.outbox.mine().forEach(i => TB.outbox.remove(i.key))")
    context.close()


class LossyLink:
    """A slow link that loses packets, at the page's level: of each run of three requests to /api/commands, one
    is lost before the bank, one reaches the bank but its reply is lost, one goes through (a netem namespace
    would do it at the packet level; this makes the worst cases certain, in a fixed order)."""

    def __init__(self, context):
        self.n, self.lossy = 0, True
        context.route("**/api/commands", self.handle)

    def handle(self, route):
        self.n += 1
        if not self.lossy or self.n % 3 == 0:
            route.continue_()
        elif self.n % 3 == 1:
            route.abort("connectionreset")
        else:
            route.fetch()  # booked by the bank...
            route.abort("connectionreset")  # ...but the answer never comes back


def test_a_lossy_link_books_every_command_once(chromium, served):
    app, url = served
    bank = app.extensions["terrabank"].bank
    context = chromium.new_context(viewport=TABLET)
    page = console(context, url)
    link = LossyLink(context)
    page.evaluate("TB.retryDelays = [50]")  # one retry, then the outbox: its turn comes sooner
    before = sum(1 for row in bank.journal_rows() if row["type"] == "harvest")
    made = 0
    for resource in ("water", "flora", "energy"):  # twelve different commands: the same one again is a resend
        for team in ("yellow", "red", "blue", "green"):
            page.click(f'#team-picker [data-team="{team}"]')
            page.click('#tabs [data-tab="harvest"]')
            button = page.locator(f'[data-panel="harvest"] [data-resource="{resource}"]')
            button.click()
            page.wait_for_timeout(800)  # a new tap, never the second tap of a double tap
            if "btn-confirm" in (button.get_attribute("class") or ""):
                button.click()  # "harvested a moment ago: again?" (this team's card booked within 10 s)
            expect(page.locator("body")).not_to_have_class(re.compile("busy"), timeout=30_000)
            made += 1
            page.wait_for_timeout(800)
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and page.evaluate("() => TB.outbox.mine().length"):
        time.sleep(0.5)
    link.lossy = False
    assert page.evaluate("() => TB.outbox.mine().length") == 0
    rows = [row for row in bank.journal_rows() if row["type"] == "harvest"]
    assert len(rows) - before == made == 12  # each tap booked once, whatever was lost
    assert len({row["command_id"] for row in rows}) == len(rows)
    context.close()


def test_change_it_opens_the_refused_commands_team_and_tab(chromium, served):
    _, url = served
    context = chromium.new_context(viewport=TABLET)
    page = console(context, url)
    context.set_offline(True)
    page.click('#team-picker [data-team="blue"]')
    page.click('#tabs [data-tab="harvest"]')
    page.click('[data-panel="harvest"] [data-resource="water"]')
    expect(page.locator("#banner .kept")).to_be_visible(timeout=15_000)
    page.evaluate("""() => { var i = TB.outbox.mine()[0]; i.state = "refused";
        i.error = {code: "clock_not_running", message: "paused", params: {status: "paused"}};
        localStorage.setItem("tb.outbox.item." + i.key, JSON.stringify(i)); window.dispatchEvent(new StorageEvent("storage")); }""")
    page.click('#team-picker [data-team="red"]')  # the counter moved on to another team and tab meanwhile
    page.click('#tabs [data-tab="exchange"]')
    page.locator("#outbox li.refused [data-act=change]").click()
    expect(page.locator("#outbox")).to_be_hidden()
    expect(page.locator("#team-title")).to_have_text("Bleus")
    expect(page.locator('#tabs [data-tab="harvest"]')).to_have_attribute("aria-selected", "true")
    expect(page.locator("#banner")).to_contain_text("Refaites-la comme il faut")
    context.close()


def test_a_page_reloaded_while_its_command_is_on_its_way_sends_it_at_once(chromium, served):
    app, url = served
    bank = app.extensions["terrabank"].bank
    context = chromium.new_context(viewport=TABLET)
    page = console(context, url)
    stuck = {"on": True, "routes": []}  # a link that takes the request and answers nothing
    context.route("**/api/commands", lambda route: stuck["routes"].append(route) if stuck["on"] else route.continue_())
    page.click('#team-picker [data-team="yellow"]')
    page.click('#tabs [data-tab="harvest"]')
    page.click('[data-panel="harvest"] [data-resource="fauna"]')
    page.wait_for_function("() => Object.keys(localStorage).some(k => k.startsWith('tb.outbox.item.'))")
    [key] = page.evaluate("() => Object.keys(localStorage).filter(k => k.startsWith('tb.outbox.item.')).map(k => k.slice(15))")
    stuck["on"] = False
    page.reload()  # the facilitator, tired of "Sending...", reloads: the harvest is listed and sent at once
    expect(page.locator("#banner")).to_contain_text("Envoyée depuis cet appareil", timeout=10_000)
    assert [row["command"]["resource"] for row in bank.journal_rows() if row["command_id"] == key] == ["fauna"]
    context.close()
