"""A command a station kept during one game is never booked in another (docs/OUTBOX.md).

Facilitators install and rehearse the day before; a tablet may still hold a rehearsal's commands when the
game is made again for the day (`init --force`) at the same address, with the same accounts. The device keeps
what it holds per browser, not per game: before, the new game's console sent the rehearsal's harvest and the
new game booked it. Each kept command now names the game it was made in (X-Game) and another game refuses it,
shown in red with its reason for the facilitator to drop or book again.

Needs Playwright's Python package and Debian's Chromium; skipped without them.
"""

from __future__ import annotations

import re
from urllib.parse import urlsplit

from needs import module, needs  # noqa: E402
sync_api = module("playwright.sync_api")  # a stand-in without Playwright: pytestmark skips the tests
from browserkit import log_in_through_the_form, started_bank  # noqa: E402
from tcp_proxy import Proxy  # noqa: E402

pytestmark = needs("playwright", "chromium")
expect = sync_api.expect
TABLET = {"width": 1280, "height": 900}


def live_console(context, url):
    page = context.new_page()
    errors = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    log_in_through_the_form(page, url)
    expect(page.locator("#conn-badge")).to_have_class(re.compile("badge-live"), timeout=30_000)  # a loaded machine
    return page, errors


def keys_booked(app, key) -> list:
    return [row for row in app.extensions["terrabank"].bank.journal_rows() if row["command_id"] == key]


def test_a_rehearsals_kept_harvest_is_refused_by_the_game_made_again_and_shown_to_drop(chromium, tmp_path):
    (tmp_path / "rehearsal").mkdir()
    (tmp_path / "day").mkdir()
    rehearsal, rehearsal_url = started_bank(tmp_path / "rehearsal")
    day, day_url = started_bank(tmp_path / "day")  # the same accounts, a new game (as `init --force` makes)
    with Proxy(urlsplit(rehearsal_url).port) as address:  # the one address the tablet knows
        context = chromium.new_context(viewport=TABLET)
        page, errors = live_console(context, address.url)
        context.set_offline(True)
        page.click('#team-picker [data-team="green"]')
        page.click('#tabs [data-tab="harvest"]')
        page.click('[data-panel="harvest"] [data-resource="water"]')
        expect(page.locator("#banner .kept")).to_be_visible(timeout=15_000)
        [key] = page.evaluate("() => TB.outbox.mine().map(i => i.key)")
        page.close()  # the rehearsal ends with the tablet still holding it

        # The next morning the game is made again at the same address; the facilitator logs in there.
        address.target = ("127.0.0.1", urlsplit(day_url).port)
        address.restore(drop=True)
        context.set_offline(False)
        page, errors = live_console(context, address.url)
        refused = page.locator(f'#outbox li.refused[data-key="{key}"]')
        expect(refused).to_be_visible(timeout=20_000)
        expect(refused.locator(".outbox-why")).to_contain_text("autre partie")
        assert not keys_booked(day, key) and not keys_booked(rehearsal, key)

        # Dropped, it goes; a harvest made now is this game's and is booked here.
        refused.locator("[data-act=drop]").click()
        expect(page.locator("#outbox")).to_be_hidden()
        page.click('#team-picker [data-team="green"]')
        page.click('#tabs [data-tab="harvest"]')
        page.click('[data-panel="harvest"] [data-resource="water"]')
        expect(page.locator("#banner .banner-text")).to_be_visible(timeout=15_000)  # "Done (entry N): ..."
        assert [row["command"]["team"] for row in day.extensions["terrabank"].bank.journal_rows()
                if row["type"] == "harvest"] == ["green"]
        assert not keys_booked(day, key) and errors == []
        context.close()
