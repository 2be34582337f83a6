"""A cooldown's "may go" on the fight page and the big screen lasts its few seconds even when the device's
clock is put right (set back an hour) meanwhile, the Wi-Fi gone: the countdowns count on the page's monotonic clock, and so does
how long a finished one stays shown, and the badge's "data from 70 s ago". Before, the "may go" stayed up
until that hour had passed again, and the badge said "data from -3530 s ago".

Needs Playwright's Python package and Debian's Chromium; skipped without them.
"""

from __future__ import annotations

import datetime
import re

from needs import module, needs  # noqa: E402
sync_api = module("playwright.sync_api")  # a stand-in without Playwright: pytestmark skips the tests
from browserkit import started_bank  # noqa: E402

pytestmark = needs("playwright", "chromium")
expect = sync_api.expect


def test_a_finished_cooldowns_may_go_leaves_after_its_seconds_though_the_clock_went_back(chromium, tmp_path):
    app, url = started_bank(tmp_path)
    app.extensions["terrabank"].bank.execute({  # a losing pirate waits 60 s (R19)
        "id": "fight", "actor": "lea", "type": "fight", "attacker_team": "red", "attacker_card": "pirate-1",
        "defender_team": "blue", "defender_card": "harvester-1", "winner": "defender", "tokens": {}})
    context = chromium.new_context(viewport={"width": 1280, "height": 720})
    page = context.new_page()
    errors = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.clock.install()  # the device's clocks, run on by the test: no minute waited for real
    page.goto(url + "/display")
    tile = page.locator('#cooldowns [data-key="red/pirate-1"]').first
    expect(tile.locator(".cd-left")).to_have_text(re.compile(r"^\d+ s$"), timeout=30_000)
    badge = page.locator("#conn-badge")
    expect(badge).to_have_class(re.compile("badge-live"), timeout=30_000)  # the bank's word came live first
    # The fight area's Wi-Fi is gone: the page counts on by itself (the bank's messages would set the count again).
    context.set_offline(True)
    left = page.evaluate("() => TB.clock.cooldowns()[0].left")
    page.clock.run_for(int(left * 1000) + 600)
    expect(tile).to_have_class("cooldown cooldown-go")  # "may go", beeped once
    now = page.evaluate("() => Date.now()")
    page.clock.set_system_time(datetime.datetime.fromtimestamp(now / 1000 - 3600, datetime.timezone.utc))
    page.clock.run_for(9_000)  # a finished cooldown stays shown 8 s
    expect(page.locator('#cooldowns [data-key="red/pirate-1"]')).to_have_count(0)
    # And the badge counts the time since the bank's last word on the same clock: no "-3530 s ago".
    expect(badge).to_have_text(re.compile(r"^hors ligne, données d’il y a \d+ s$"))
    context.close()
    assert errors == []
