"""A page open while the bank's config is reloaded (`systemctl reload`) draws the new one, without anyone reloading it.

Before: the pages load the game's config (team names, costs, the title) once, when they open
(static/js/board_labels.js); a reload that renamed a team, or changed a cost, reached the server's new worker
and every page opened after it, while the phones already open reconnected to the new worker and went on showing
the old name (and a console the old costs) until somebody reloaded each by hand. Now every picture names the
config it was made with (bank/web/field/payloads.py `config_version`) and a page that loaded another loads itself
again (static/js/live.js); a facilitator's page, which may hold something typed (the admin page's paper ledger),
says so with a button that does it. A real `terrabank serve` is sent SIGHUP, as `ExecReload=` does.
"""

from __future__ import annotations

import os
import shutil
import signal
import sys
import time
from pathlib import Path

from needs import module, needs

ROOT = Path(__file__).resolve().parents[3]
sys.path.insert(0, str(ROOT / "bench"))
from harness import CONFIG, PASSWORD, USER, Api, Server  # noqa: E402
from browserkit import log_in_to, page_opener  # noqa: E402

sync_api = module("playwright.sync_api")  # a stand-in without Playwright: pytestmark skips the tests
pytestmark = needs("playwright", "chromium")
expect = sync_api.expect

GREEN = 'label = { fr = "Verts", en = "Green" }'
RENAMED = 'label = { fr = "Verts 🌿 des Sous-Bois", en = "Green 🌿" }'


def version_on(page, wanted: str | None = None, seconds: float = 30.0) -> str | None:
    """The config version the page drew with (once it has one, or `wanted`), polled (the pages' CSP allows no eval)."""
    deadline = time.monotonic() + seconds
    while True:
        try:
            found = page.evaluate("window.W && W.config && W.config.version")
        except sync_api.Error:  # the page is loading itself again
            found = None
        if (found and wanted in (None, found)) or time.monotonic() > deadline:  # None == None is no version yet
            return found
        time.sleep(0.2)


def test_a_team_renamed_by_a_reload_shows_on_the_open_phone_and_the_admin_page_offers_it(tmp_path, chromium):
    config = tmp_path / "config.toml"
    shutil.copy(CONFIG, config)
    text = config.read_text(encoding="utf-8")
    assert text.count(GREEN) == 1
    server = Server(tmp_path, config=str(config)).prepare().start()
    try:
        lead = Api(server.url, timeout=15).login()
        status, links = lead.request("GET", "/api/teams/links")
        assert status == 200, links
        with page_opener(chromium) as open_page:
            phone = open_page(viewport={"width": 360, "height": 740})
            phone.goto(f"{server.url}/t/{links['green']}")
            expect(phone.locator("#team-name")).to_have_text("Verts", timeout=30_000)
            admin = open_page(viewport={"width": 1280, "height": 900})
            log_in_to(admin, server.url, "/admin", USER, PASSWORD)
            old = version_on(admin)
            assert old
            ledger = "feuille 0A\n1 Verts récolte eau 1\n"
            admin.fill("#paper-form textarea", ledger)  # the lead is typing a paper ledger
            config.write_text(text.replace(GREEN, RENAMED), encoding="utf-8")
            os.kill(server.pid, signal.SIGHUP)
            expect(phone.locator("#team-name")).to_have_text("Verts 🌿 des Sous-Bois", timeout=90_000)
            phone.wait_for_timeout(3000)  # loaded once: the new config's pictures match it, no loop of reloads
            expect(phone.locator("#team-name")).to_have_text("Verts 🌿 des Sous-Bois")
            new = Api(server.url, timeout=15).request("GET", "/api/config")[1]["version"]
            assert phone.evaluate("window.W.config.version") == new != old
            # The admin page, reconnected to the new worker meanwhile, keeps what was typed and says the settings
            # changed, in its language, with a button that loads it again.
            assert lead.command("round-1", type="award", team="green", points=1, reason="a round")[0] == 200
            expect(admin.locator("#config-changed")).to_contain_text("Les réglages de la partie ont changé",
                                                                    timeout=30_000)
            assert admin.locator("#paper-form textarea").input_value() == ledger
            assert admin.evaluate("W.config.version") == old
            admin.locator("#config-changed button").click()
            assert version_on(admin, new) == new
            expect(admin.locator("#config-changed")).to_have_count(0)
        assert server.proc.poll() is None
    finally:
        server.stop()
