"""A page open while the bank's config is reloaded (`systemctl reload`) draws the new one, without anyone reloading it.

Before: the pages load the game's config (team names, costs, the title) once, when they open
(static/js/board_labels.js); a reload that renamed a team, or changed a cost, reached the server's new worker
and every page opened after it, while the phones already open reconnected to the new worker and went on showing
the old name (and a console the old costs) until somebody reloaded each by hand. Now every picture names the
config it was made with (bank/web/field/payloads.py `config_version`) and a page that loaded another loads itself
again (static/js/live.js). A real `terrabank serve` is sent SIGHUP, as `ExecReload=` does.
"""

from __future__ import annotations

import os
import shutil
import signal
import sys
from pathlib import Path

from needs import module, needs

ROOT = Path(__file__).resolve().parents[3]
sys.path.insert(0, str(ROOT / "bench"))
from harness import CONFIG, Api, Server  # noqa: E402
from browserkit import page_opener  # noqa: E402

sync_api = module("playwright.sync_api")  # a stand-in without Playwright: pytestmark skips the tests
pytestmark = needs("playwright", "chromium")
expect = sync_api.expect

GREEN = 'label = { fr = "Verts", en = "Green" }'
RENAMED = 'label = { fr = "Verts 🌿 des Sous-Bois", en = "Green 🌿" }'


def test_a_team_renamed_by_a_reload_shows_on_the_phone_already_open(tmp_path, chromium):
    config = tmp_path / "config.toml"
    shutil.copy(CONFIG, config)
    text = config.read_text(encoding="utf-8")
    assert text.count(GREEN) == 1
    server = Server(tmp_path, config=str(config)).prepare().start()
    try:
        status, links = Api(server.url, timeout=15).login().request("GET", "/api/teams/links")
        assert status == 200, links
        with page_opener(chromium) as open_page:
            phone = open_page(viewport={"width": 360, "height": 740})
            phone.goto(f"{server.url}/t/{links['green']}")
            expect(phone.locator("#team-name")).to_have_text("Verts", timeout=30_000)
            config.write_text(text.replace(GREEN, RENAMED), encoding="utf-8")
            os.kill(server.pid, signal.SIGHUP)
            expect(phone.locator("#team-name")).to_have_text("Verts 🌿 des Sous-Bois", timeout=90_000)
            phone.wait_for_timeout(3000)  # loaded once: the new config's pictures match it, no loop of reloads
            expect(phone.locator("#team-name")).to_have_text("Verts 🌿 des Sous-Bois")
            assert phone.evaluate("window.W.config.version") == \
                Api(server.url, timeout=15).request("GET", "/api/config")[1]["version"]
        assert server.proc.poll() is None
    finally:
        server.stop()
