"""Two stations lose the Wi-Fi and keep booking: every command is booked once when the bank answers again.

Station A (ana) and station B (ben) each make 10 commands with their browser offline: 8 harvests and
two exchanges that the other station also makes for the same teams (red and blue hold 12 tokens
each: only one exchange of 10 fits). Meanwhile the bank is stopped and started again on the same
game; A's page is reloaded while the bank is down (its service worker opens it from its copy: the
test's 127.0.0.1 lets the browser start one, as HTTPS would) and one more harvest is made there;
B's browser is closed and opened again, and its first log-in is another account's, which must never
send ben's commands. Back online: the 19 that fit are booked exactly once each, noted as made offline
by their device; the two made again at the other station are refused on arrival (made_again: the
facilitator drops them, or books them again when they truly happened twice) and stay shown with the reason;
the balances match a count by hand.

Needs Playwright's Python package and Debian's Chromium; skipped without them.
"""

from __future__ import annotations

import logging
import re
import time
from pathlib import Path

import pytest

from needs import module, needs, require  # noqa: E402
sync_api = module("playwright.sync_api")  # a stand-in without Playwright: pytestmark skips the tests

pytestmark = needs("playwright", "chromium")
expect = sync_api.expect
CONFIG = Path(__file__).resolve().parents[3] / "config.toml"
TABLET = {"width": 1280, "height": 900}
PASSWORD = "password1"


def make_app(folder: Path):
    from bank.web import create_app

    logging.getLogger("werkzeug").setLevel(logging.ERROR)
    return create_app({"DB": str(folder / "game.db"), "CONFIG": str(CONFIG), "PASSWORD_HASH": "pbkdf2:sha256:1000"})


class Bank:
    """The bank served on one port, stopped and started again on the same game file and port."""

    def __init__(self, folder: Path, host: str = "127.0.0.1"):
        from bank.web.serving import thread

        self.folder, self.thread, self.host = folder, thread, host
        self.app = make_app(folder)
        services = self.app.extensions["terrabank"]
        for user, role in (("lea", "lead"), ("ana", "banker"), ("ben", "banker")):
            services.access.add_user(user, PASSWORD, role)
        services.bank.execute({"id": "t-start", "type": "start_clock"})
        for team, resource in (("red", "dioxygen"), ("blue", "water")):
            services.bank.execute({"id": f"t-inv-{team}", "type": "inventory", "team": team, "reason": "set-up",
                                   "counted": {resource: 12}})
        self.server = thread.serve_in_thread(self.app, host=host)
        self.port = self.server.port
        self.url = f"http://{host}:{self.port}"

    @property
    def bank(self):
        return self.app.extensions["terrabank"].bank

    def stop(self):
        self.server.stop()
        self.app.extensions["terrabank"].bank.close()
        self.app.extensions["terrabank"].access.close()

    def start(self):
        self.app = make_app(self.folder)
        for attempt in range(50):  # the port the pages know, free again once the old listener is closed
            try:
                self.server = self.thread.serve_in_thread(self.app, host=self.host, port=self.port)
                return
            except OSError:
                time.sleep(0.2)
        raise AssertionError(f"port {self.port} stayed taken")


@pytest.fixture
def playwright():
    require("playwright", "chromium")
    with sync_api.sync_playwright() as p:
        yield p


def launch(playwright, profile: Path):
    from browserkit import ARGS, CHROMIUM

    return playwright.chromium.launch_persistent_context(str(profile), executable_path=CHROMIUM, args=ARGS,
                                                         viewport=TABLET)


def log_in(page, url, user):
    page.goto(url + "/login")
    page.fill("#username", user)
    page.fill("#password", PASSWORD)
    page.click("#login-submit")
    page.wait_for_url("**/console")
    expect(page.locator("#conn-badge")).to_have_class(re.compile("badge-live"), timeout=30_000)  # a loaded machine


def tap(page, selector):
    """A tap that the page keeps on the device: one more entry waits (taps 700 ms apart, never a double tap)."""
    before = page.evaluate("() => TB.outbox.waiting().length")
    page.wait_for_timeout(750)
    page.click(selector)
    expect(page.locator("#banner .kept")).to_be_visible(timeout=15_000)
    page.wait_for_function("n => TB.outbox.waiting().length === n", arg=before + 1, timeout=15_000)


def harvest(page, team, resource):
    page.click(f'#team-picker [data-team="{team}"]')
    page.click('#tabs [data-tab="harvest"]')
    tap(page, f'[data-panel="harvest"] [data-resource="{resource}"]')


def exchange(page, team, resource, n):
    page.click(f'#team-picker [data-team="{team}"]')
    page.click('#tabs [data-tab="exchange"]')
    page.locator(f'[data-panel="exchange"] [data-resource="{resource}"] input').fill(str(n))
    tap(page, '[data-panel="exchange"] button.btn-big')


def stock(bank, team):
    from bank.web.field import payloads

    view = payloads.facilitators(bank, bank.config)["teams"][team]
    return dict(view["stock"]), view["reputation"]


def keys_kept(page):
    return page.evaluate("() => TB.outbox.mine().map(i => i.key)")


def test_two_stations_offline_every_command_booked_once_and_two_refused(playwright, tmp_path):
    served = Bank(tmp_path)
    url = served.url
    before = {team: stock(served.bank, team) for team in ("red", "blue", "green", "yellow")}
    a_ctx = launch(playwright, tmp_path / "profile-a")
    b_ctx = launch(playwright, tmp_path / "profile-b")
    errors = []
    a, b = a_ctx.pages[0], b_ctx.pages[0]
    for page in (a, b):
        page.on("pageerror", lambda error: errors.append(str(error)))
    log_in(a, url, "ana")
    log_in(b, url, "ben")
    assert a.evaluate("() => TB.outbox.offlinePages")  # its service worker keeps a copy of the console
    a_ctx.set_offline(True)
    b_ctx.set_offline(True)

    # Ten commands at each station, offline: kept at once, in order, under the account that made them.
    for resource in ("flora", "water", "flora", "water", "flora", "water", "flora", "water"):
        harvest(a, "green", resource)
    exchange(a, "red", "dioxygen", 10)
    exchange(a, "blue", "water", 10)
    for resource in ("energy", "fauna", "energy", "fauna", "energy", "fauna", "energy", "fauna"):
        harvest(b, "yellow", resource)
    exchange(b, "blue", "water", 10)
    exchange(b, "red", "dioxygen", 10)
    expect(a.locator("#outbox .outbox-title")).to_have_text("10 en attente d’envoi", timeout=15_000)
    expect(b.locator("#outbox .outbox-title")).to_have_text("10 en attente d’envoi", timeout=15_000)
    expect(b.locator("#outbox .outbox-note")).to_contain_text("Gardez cette page ouverte")
    expect(b.locator("#team-unconfirmed")).to_have_text("Pas encore confirmé : 1 commande de cette équipe attend l’envoi.")
    keys = keys_kept(a) + keys_kept(b)
    assert len(set(keys)) == 20
    assert served.bank.last_seq == 4  # set-up, start, two inventories: nothing reached the bank

    # The bank stops. A's page is reloaded while it is down: it opens from its service worker's copy, lists
    # its ten kept commands and keeps one more made there. B's browser is closed.
    served.stop()
    a_ctx.set_offline(False)
    a.reload()
    expect(a.locator("#outbox .outbox-title")).to_have_text("10 en attente d’envoi", timeout=15_000)
    harvest(a, "green", "flora")
    expect(a.locator("#outbox .outbox-title")).to_have_text("11 en attente d’envoi", timeout=15_000)
    keys += [key for key in keys_kept(a) if key not in keys]
    assert len(set(keys)) == 21
    b_ctx.close()
    served.start()

    # A opens its console again: its ten commands were kept on the device and go by themselves.
    a.goto(url + "/console")
    # B's browser opens again and another account logs in first: it never sends ben's commands.
    b_ctx = launch(playwright, tmp_path / "profile-b")
    b = b_ctx.pages[0]
    b.on("pageerror", lambda error: errors.append(str(error)))
    log_in(b, url, "lea")
    expect(b.locator("#outbox [data-account=ben]")).to_contain_text("10 commandes de ben attendent sur cet appareil")
    expect(b.locator("#outbox li")).to_have_count(0)
    b.wait_for_timeout(4000)  # longer than the outbox's pause between two tries
    assert len(b.evaluate("() => Object.keys(localStorage).filter(k => k.indexOf('tb.outbox.item.') === 0)")) == 10
    assert not [row for row in served.bank.journal_rows() if row["actor"] in ("ben", "lea")]  # A's may be booked by now
    # The lead sees on the admin page that this device still holds commands: the game is not ended yet.
    device_b = b.evaluate("() => localStorage.getItem('tb.device')")
    b.goto(url + "/admin")
    expect(b.locator(f'#outbox-devices [data-device="{device_b}"]')).to_contain_text("10 en attente")
    b.click("[data-logout]")
    b.wait_for_url("**/login")
    # The service worker's copy of lea's pages went with the log-out: the next account never opens them.
    deadline = time.monotonic() + 15
    while b.evaluate("async () => (await caches.keys()).length") and time.monotonic() < deadline:
        time.sleep(0.2)
    assert b.evaluate("async () => (await caches.keys()).length") == 0
    log_in(b, url, "ben")

    # Every command is booked once or refused with its reason; the refused ones stay shown.
    deadline = time.monotonic() + 90
    while time.monotonic() < deadline:  # until both devices hold nothing waiting, whatever the machine's load
        if all(page.evaluate("user => !!window.TB && !!TB.outbox && TB.outbox.account === user && !TB.outbox.waiting().length",
                             user) for page, user in ((a, "ana"), (b, "ben"))):
            break
        time.sleep(0.5)
    for page in (a, b):
        expect(page.locator("#outbox li.waiting")).to_have_count(0)
    refused = a.locator("#outbox li.refused").count() + b.locator("#outbox li.refused").count()
    assert refused == 2
    for page in (a, b):
        for item in page.locator("#outbox li.refused").all():
            expect(item.locator(".outbox-why")).to_contain_text("Refusé")
            expect(item.locator(".outbox-why")).to_contain_text("Déjà enregistré ailleurs depuis (entrée n° ")
            expect(item.locator("[data-act=drop]")).to_be_visible()
            expect(item.locator("[data-act=again]")).to_be_visible()
    rows = [row for row in served.bank.journal_rows() if row["command_id"] in keys]
    booked_keys = [row["command_id"] for row in rows]
    assert len(booked_keys) == len(set(booked_keys)) == 19
    refused_keys = set(keys) - set(booked_keys)
    # Both stations kept the same two exchanges: the second of each to arrive was made again (made_again, to
    # drop or book again: booked again, red would lack the tokens).
    assert {i["error"]["code"] for p in (a, b) for i in p.evaluate("() => TB.outbox.mine()")} == {"made_again"}
    assert set(keys_kept(a) + keys_kept(b)) == refused_keys
    devices = {row["actor"]: row["command"]["queued"]["device"] for row in rows}
    assert set(devices) == {"ana", "ben"} and devices["ana"] != devices["ben"]
    assert all(row["command"]["queued"]["seconds"] >= 1 for row in rows)

    # The count by hand: 5 flora and 4 water to green, 4 energy and 4 fauna to yellow; one exchange of 10
    # of red's 12 dioxygen and one of blue's 12 water, a point each; the other two refused.
    after = {team: stock(served.bank, team) for team in ("red", "blue", "green", "yellow")}

    def moved(team):
        (old, old_rep), (new, new_rep) = before[team], after[team]
        return {r: new.get(r, 0) - old.get(r, 0) for r in set(old) | set(new) if new.get(r, 0) != old.get(r, 0)}, new_rep - old_rep

    assert moved("green") == ({"flora": 5, "water": 4}, 0)
    assert moved("yellow") == ({"energy": 4, "fauna": 4}, 0)
    assert moved("red") == ({"dioxygen": -10}, 1)
    assert moved("blue") == ({"water": -10}, 1)
    assert after["red"][0]["dioxygen"] == 2 and after["blue"][0]["water"] == 2

    # A refusal is decided by the facilitator, never dropped silently: dropping it empties the list.
    for page in (a, b):
        for _ in range(page.locator("#outbox li.refused").count()):
            page.locator("#outbox li.refused [data-act=drop]").first.click()
        expect(page.locator("#outbox")).to_be_hidden()
    assert not errors, errors
    a_ctx.close()
    b_ctx.close()
    served.server.stop()
    served.app.extensions["terrabank"].bank.close()
