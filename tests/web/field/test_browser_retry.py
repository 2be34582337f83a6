"""A page that gives up retrying must never book a command twice.

The bank books a harvest, but the Wi-Fi loses its reply and every retry; the page gives up
and says "not confirmed". Pressing the same button again (also after a reload) must send the
same Idempotency-Key, so the bank answers "already done" instead of booking it again; a
changed command, or the next identical one once the first is confirmed, is a new command.

Needs Playwright's Python package and Debian's Chromium; skipped without them. The page's
~20 s of retries is shortened through its TB.retryDelays setting.
"""

from __future__ import annotations

import logging
import re
from pathlib import Path

import pytest

from needs import module, needs  # noqa: E402
sync_api = module("playwright.sync_api")  # a stand-in without Playwright: pytestmark skips the tests
from browserkit import CHROMIUM, log_in_to, serve_in_thread  # noqa: E402

pytestmark = needs("playwright", "chromium")

ROOT = Path(__file__).resolve().parents[3]
TABLET = {"width": 1280, "height": 800}
USER, PASSWORD = "lea", "password1"
NOT_CONFIRMED = "Non confirmé"
SAFE_AGAIN = "Vous pouvez appuyer de nouveau sans risque"
expect = sync_api.expect


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    """The app with Socket.IO on 127.0.0.1, a lead facilitator, the clock running, green well stocked."""
    from bank.web import create_app

    logging.getLogger("werkzeug").setLevel(logging.ERROR)
    folder = tmp_path_factory.mktemp("browser-retry")
    app = create_app({"DB": str(folder / "game.db"), "CONFIG": str(ROOT / "config.toml"),
                      "PASSWORD_HASH": "pbkdf2:sha256:1000"})
    services = app.extensions["terrabank"]
    services.access.add_user(USER, PASSWORD, "lead")
    services.bank.execute({"id": "setup-1", "actor": USER, "type": "start_clock"})
    services.bank.execute({"id": "setup-2", "actor": USER, "type": "inventory", "team": "green",
                           "counted": {"flora": 60}, "reason": "test set-up"})
    url, _ = serve_in_thread(app)
    return app, url


@pytest.fixture
def console(chromium, server):
    """The console on a tablet, logged in as the lead, with green's harvest tab open."""
    _, url = server
    context = chromium.new_context(viewport=TABLET)
    page = context.new_page()
    errors = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    log_in_to(page, url, "/console", USER, PASSWORD)
    expect(page.locator("#conn-badge")).to_have_class(re.compile("badge-live"), timeout=30_000)  # a loaded machine
    page.click('#team-picker [data-team="green"]')
    page.click('#tabs [data-tab="harvest"]')
    yield page
    context.close()
    assert not errors, errors


class LostWifi:
    """Routes /api/commands: the first request reaches the bank but its reply is lost, and
    every retry is lost before it reaches the bank, until `back()`. Records each request."""

    def __init__(self, page):
        self.requests, self.lost = [], True
        page.route("**/api/commands", self.handle)

    def handle(self, route):
        self.requests.append((route.request.headers.get("idempotency-key"), route.request.post_data_json))
        if not self.lost:
            route.continue_()
        elif len(self.requests) == 1:
            route.fetch()  # it reaches the bank and is booked...
            route.abort("connectionreset")  # ...but the answer never comes back
        else:
            route.abort("connectionrefused")

    def back(self):
        self.lost = False

    def keys(self):
        return [key for key, _ in self.requests]


def give_up_fast(page, outbox_sends=False):
    """The page's retries, shortened from about 20 s to a fraction of a second. Unless `outbox_sends`, the
    outbox keeps what the page gave up on until the next press (its try every 3 s would otherwise race it)."""
    page.evaluate("TB.retryDelays = [50, 50]")
    if not outbox_sends:
        page.evaluate("TB.outbox.tryEveryMs = 1e9")


def booked(bank, key) -> list[dict]:
    """The journal rows booked under `key`."""
    return [row for row in bank.journal_rows() if row["command_id"] == key]


def lose_a_harvest(console, wifi, resource="flora", outbox_sends=False):
    """Press a harvest whose reply is lost and whose retries all fail, until the page gives up."""
    give_up_fast(console, outbox_sends)
    console.click(f'[data-panel="harvest"] [data-resource="{resource}"]')
    banner = console.locator("#banner")
    expect(banner).to_contain_text(NOT_CONFIRMED)
    expect(banner).to_contain_text(SAFE_AGAIN)
    expect(banner).to_have_class(re.compile("banner-error"))


def test_pressing_again_after_not_confirmed_books_once(server, console):
    """The first harvest was booked though its reply was lost: pressing again says "already done"."""
    app, _ = server
    bank = app.extensions["terrabank"].bank
    wifi = LostWifi(console)
    lose_a_harvest(console, wifi)
    assert len(wifi.requests) == 3  # the first send and two retries, all with one key
    key = wifi.keys()[0]
    rows = booked(bank, key)
    assert len(rows) == 1 and rows[0]["command"]["resource"] == "flora"
    seq = rows[0]["seq"]

    wifi.back()
    console.click('[data-panel="harvest"] [data-resource="flora"]')
    banner = console.locator("#banner")
    expect(banner).to_have_class(re.compile("banner-ok"))
    expect(banner).to_contain_text(f"Déjà fait (écriture {seq})")
    assert set(wifi.keys()) == {key}
    assert len(booked(bank, key)) == 1
    assert bank.last_seq == seq  # nothing else was booked

    # Confirmed: the next identical press is a genuine second harvest, with a new key.
    console.click('[data-panel="harvest"] [data-resource="flora"]')
    expect(banner).to_contain_text(f"Fait (écriture {seq + 1})")
    # French puts a no-break space before a colon ("Verts : +1 Flore"), as the printed pack does.
    assert "\u00a0: +1 " in banner.evaluate("node => node.textContent")
    second = wifi.keys()[-1]
    assert second != key and len(booked(bank, second)) == 1
    assert bank.last_seq == seq + 1


def sent_by_the_outbox(console, bank, resource):
    """A harvest not confirmed, kept, then sent by the outbox by itself once the bank answers: its key and entry."""
    wifi = LostWifi(console)
    lose_a_harvest(console, wifi, resource, outbox_sends=True)
    key = wifi.keys()[0]
    seq = booked(bank, key)[0]["seq"]
    wifi.back()  # the outbox's resend is answered "duplicate": booked at the first send
    banner = console.locator("#banner")
    expect(banner).to_contain_text(f"Envoyée depuis cet appareil (écriture {seq})", timeout=15_000)
    expect(banner).to_have_class(re.compile("banner-ok"))
    assert len(booked(bank, key)) == 1 and bank.last_seq == seq
    return wifi, key, seq


def test_once_the_outbox_sent_a_harvest_the_same_harvest_later_is_booked_anew(server, console):
    """Not confirmed, kept, then sent by the outbox: the page says so; a press at once (the banner said pressing
    again was safe) is "already done"; the same harvest 20 s later is a new one. Before, the key stayed 10
    minutes: a harvester's next identical harvest was answered "already done" with the first's entry, not booked."""
    app, _ = server
    bank = app.extensions["terrabank"].bank
    console.evaluate("""() => { const real = Date.now.bind(Date); let ahead = 0;
        Date.now = () => real() + ahead; window.skipAhead = ms => { ahead += ms; }; }""")
    banner = console.locator("#banner")

    wifi, key, seq = sent_by_the_outbox(console, bank, "energy")
    console.wait_for_timeout(750)
    console.click('[data-panel="harvest"] [data-resource="energy"]')
    expect(banner).to_contain_text(f"Déjà fait (écriture {seq})")
    assert bank.last_seq == seq

    wifi, key, seq = sent_by_the_outbox(console, bank, "water")
    console.evaluate("skipAhead(20000)")
    console.wait_for_timeout(750)
    console.click('[data-panel="harvest"] [data-resource="water"]')
    expect(banner).to_contain_text(f"Fait (écriture {seq + 1})")
    again = wifi.keys()[-1]
    assert again != key and booked(bank, again)[0]["command"]["resource"] == "water"
    assert bank.last_seq == seq + 1


def test_a_reload_after_not_confirmed_keeps_the_key(server, console):
    """Reloading the page after "not confirmed" must not turn the same command into a new one."""
    app, _ = server
    bank = app.extensions["terrabank"].bank
    wifi = LostWifi(console)
    lose_a_harvest(console, wifi, "water")
    key = wifi.keys()[0]
    seq = booked(bank, key)[0]["seq"]

    wifi.back()
    console.reload()
    expect(console.locator("#conn-badge")).to_have_class(re.compile("badge-live"))
    console.click('[data-panel="harvest"] [data-resource="water"]')  # the team and tab are kept by the page
    banner = console.locator("#banner")
    expect(banner).to_contain_text(f"Déjà fait (écriture {seq})")
    assert set(wifi.keys()) == {key}
    assert len(booked(bank, key)) == 1 and bank.last_seq == seq


def test_a_changed_command_gets_a_new_key_and_is_booked(server, console):
    """After "not confirmed", the facilitator changes the amount: that is another command, booked."""
    app, _ = server
    bank = app.extensions["terrabank"].bank
    wifi = LostWifi(console)
    give_up_fast(console)
    console.click('#tabs [data-tab="tracks"]')
    plus = console.locator('[data-track="phytosphere"] button[aria-label="+"]')
    raise_it = console.locator('[data-panel="tracks"] button.btn-big')
    plus.click()
    raise_it.click()
    banner = console.locator("#banner")
    expect(banner).to_contain_text(NOT_CONFIRMED)
    first = wifi.keys()[0]
    assert booked(bank, first)[0]["command"]["steps"] == {"phytosphere": 1}

    wifi.back()
    # The booking the page did not hear of still reached it live: the panel shows the new level.
    expect(console.locator('[data-track="phytosphere"]')).to_contain_text("1/10")
    console.locator('[data-track="phytosphere"] input').fill("2")
    raise_it.click()
    expect(banner).to_have_class(re.compile("banner-ok"))
    expect(banner).to_contain_text("Fait (écriture")
    changed = wifi.keys()[-1]
    assert changed != first
    rows = booked(bank, changed)
    assert len(rows) == 1 and rows[0]["command"]["steps"] == {"phytosphere": 2}
    assert len(booked(bank, first)) == 1


def test_a_key_used_by_another_command_is_said_and_replaced(server, console):
    """A pending key the bank already booked for other content (409 id_conflict): said, then a new key."""
    app, _ = server
    bank = app.extensions["terrabank"].bank
    before, used = bank.last_seq, booked(bank, "setup-2")[0]["seq"]
    # The key of the inventory booked at set-up, left pending for green's next energy harvest.
    console.evaluate("""() => {
        var print = TB.commandPrint({type: "harvest", team: "green", card: "harvester-1", resource: "energy"});
        var pending = {}; pending[print] = {key: "setup-2", at: Date.now()};
        sessionStorage.setItem("tb.pending", JSON.stringify(pending));
    }""")
    wifi = LostWifi(console)
    wifi.back()
    console.click('[data-panel="harvest"] [data-resource="energy"]')
    banner = console.locator("#banner")
    expect(banner).to_contain_text(f"La clé de cette commande a déjà servi pour une autre commande (écriture {used})")
    expect(banner).to_have_class(re.compile("banner-error"))
    assert wifi.keys() == ["setup-2"] and bank.last_seq == before

    console.click('[data-panel="harvest"] [data-resource="energy"]')
    expect(banner).to_have_class(re.compile("banner-ok"))
    fresh = wifi.keys()[-1]
    assert fresh != "setup-2" and booked(bank, fresh)[0]["command"]["resource"] == "energy"


def test_pending_keys_follow_the_content_and_expire(console):
    """TB.commandPrint ignores key order and the id; TB.pending keeps a key 10 minutes, per content."""
    result = console.evaluate("""() => {
        var a = TB.commandPrint({type: "exchange", team: "red", tokens: {water: 5, flora: 5}, id: "x"});
        var b = TB.commandPrint({tokens: {flora: 5, water: 5}, team: "red", type: "exchange"});
        var c = TB.commandPrint({type: "exchange", team: "red", tokens: {water: 5, flora: 10}});
        var now = Date.now(), minute = 60 * 1000;
        var k1 = TB.pending.keyFor(a, now), k2 = TB.pending.keyFor(b, now), k3 = TB.pending.keyFor(c, now);
        TB.pending.forget(c, "not its key");
        var kept = TB.pending.keyFor(c, now);
        TB.pending.forget(c, kept);
        var renewed = TB.pending.keyFor(c, now);
        var stillPending = TB.pending.keyFor(a, now + 9 * minute);
        var expired = TB.pending.keyFor(a, now + 19 * minute + 1);
        return {same: a === b, k1: k1, k2: k2, k3: k3, stillPending: stillPending, expired: expired,
                kept: kept, renewed: renewed};
    }""")
    assert result["same"]
    assert result["k1"] == result["k2"] != result["k3"]
    assert result["kept"] == result["k3"] != result["renewed"]
    assert result["stillPending"] == result["k1"] != result["expired"]
