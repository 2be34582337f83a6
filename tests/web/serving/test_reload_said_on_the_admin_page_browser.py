"""The lead's admin page says what became of a config reload: refused (with the line of the typo), waiting (why,
and what to do; a broken save refused while a sound edit waits says that edit still waits), taken. Before, only
the bank's log said it: the lead who pressed reload saw nothing happen.

A real `terrabank serve` is sent SIGHUP, as `systemctl reload` does: its master checks the file in a process of
its own and says the result in memory its workers share (bank/web/serving/reload.py `tell`); the admin page asks
GET /api/reload every 3 s. About 35 s: the serve's start, and a master's checks (a process each: one a reload, one more
while the file is held, each waiting 5 s for the write lock, the next 5 s after) are the time; one browser, one
server for the three reloads.
"""

from __future__ import annotations

import os
import re
import shutil
import signal
import sqlite3
import sys
from pathlib import Path

from needs import module, needs

ROOT = Path(__file__).resolve().parents[3]
sys.path.insert(0, str(ROOT / "bench"))
from harness import CONFIG, PASSWORD, USER, Server  # noqa: E402
from browserkit import log_in_to, page_opener  # noqa: E402

sync_api = module("playwright.sync_api")  # a stand-in without Playwright: pytestmark skips the tests
pytestmark = needs("playwright", "chromium", "axe_playwright_python")
expect = sync_api.expect

TITLE = 'title = { fr = "Terraformation", en = "Terraforming" }'
EDITED = 'title = { fr = "Terraformation d’hiver", en = "Winter terraforming" }'


def violations(page) -> list:
    from axe_playwright_python.sync_playwright import Axe

    options = {"runOnly": {"type": "tag", "values": ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "wcag22aa"]},
               "resultTypes": ["violations"]}
    return [v["id"] for v in Axe().run(page, options=options).response["violations"]]


def test_the_admin_page_says_a_reload_refused_waiting_then_taken(tmp_path, chromium):
    """Also a broken save while a sound edit waits: refused, the page saying that edit still waits, then taken."""
    config = tmp_path / "config.toml"
    shutil.copy(CONFIG, config)
    sound = config.read_text(encoding="utf-8")
    assert TITLE in sound
    server = Server(tmp_path / "game", config=str(config)).prepare().start()
    try:
        with page_opener(chromium) as open_page:
            admin = open_page(viewport={"width": 1280, "height": 900})
            log_in_to(admin, server.url, "/admin", USER, PASSWORD)
            said = admin.locator("#reload-status")
            expect(admin.locator("#not-lead")).to_be_hidden(timeout=30_000)
            assert said.is_hidden()  # nothing reloaded yet: nothing said
            # What the socket brings too (live.js), each second: the page's one way while the database is away.
            admin.evaluate("document.addEventListener('tb:reload', function (e) {"
                           " (window.heard = window.heard || []).push(e.detail.state); })")
            # A typo: refused, with the line the check names; the bank goes on.
            config.write_text(sound + "\nx = = 1\n", encoding="utf-8")
            os.kill(server.pid, signal.SIGHUP)
            expect(said).to_have_attribute("data-state", "refused", timeout=30_000)
            expect(said).to_contain_text("Le rechargement a été refusé")
            assert re.search(r"line \d+", said.inner_text()), said.inner_text()
            assert "banner-error" in said.get_attribute("class")
            assert violations(admin) == []  # the error banner with the check's sentence in it
            # A sound edit while another program holds the game file's write lock: waiting, why, what to do.
            other = sqlite3.connect(str(server.db), timeout=10, isolation_level=None)
            other.execute("BEGIN IMMEDIATE")
            try:
                config.write_text(sound.replace(TITLE, EDITED), encoding="utf-8")
                os.kill(server.pid, signal.SIGHUP)
                expect(said).to_have_attribute("data-state", "waiting", timeout=30_000)
                expect(said).to_contain_text("un autre programme tient le fichier de la partie")
                expect(said).to_contain_text("Fermez ce programme")
                # The socket says it too (each second): heard before the broken save ends the waiting (a whole run
                # wrote that save before the socket's next word, and never heard "waiting").
                admin.wait_for_function("() => (window.heard || []).includes('waiting')", timeout=30_000)
                # A broken save meanwhile is refused, and the page says the edit before it still waits (before, the
                # refusal dropped that edit: the bank went on with the old settings once the file was free).
                config.write_text(sound + "\ny = = 2\n", encoding="utf-8")
                os.kill(server.pid, signal.SIGHUP)
                expect(said).to_have_attribute("data-state", "refused", timeout=30_000)
                expect(said).to_contain_text("attendent toujours")
                assert violations(admin) == []
            finally:
                other.execute("ROLLBACK")
                other.close()
            # The lock free, the master takes the edit by itself: the page says when.
            expect(said).to_have_attribute("data-state", "reloaded", timeout=60_000)
            expect(said).to_contain_text("Les nouveaux réglages ont été pris à")
            expect(said).to_contain_text("après l’attente du rechargement")
            heard = admin.evaluate("window.heard")  # "reloaded": from the new worker, maybe before the page is back
            assert {"refused", "waiting"} <= set(heard), heard
    finally:
        server.stop()
