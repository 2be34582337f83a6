"""A Trias game's store rewritten under the running server, as the screens at the table show it, in Chromium.

No move is needed: the computer thread's look (bank/web/trias/rewrite_alarm.py, every 5 s) finds the rewrite and
every screen of the game shows the banner saying that no move is recorded any more and what to do, in the page's
language; axe-core finds nothing on the phone with it shown. Needs Playwright and Debian's Chromium.
"""

from __future__ import annotations

import pytest

from needs import module, needs  # noqa: E402
sync_api = module("playwright.sync_api")  # a stand-in without Playwright: pytestmark skips the tests
from browserkit import CHROMIUM  # noqa: E402,F401

import trias  # noqa: E402
from bank.web.trias.live import publish  # noqa: E402
from forger_kit import rewrite_trias, sqlite_forger  # noqa: E402
from test_browser_trias import PHONE, TABLET, WAIT, pages, server, wait_seq  # noqa: E402,F401

pytestmark = needs("playwright", "chromium")
AXE = {"runOnly": {"type": "tag", "values": ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "wcag22aa"]},
       "resultTypes": ["violations"]}


def test_every_screen_shows_the_rewrite_without_a_move_and_axe_finds_nothing(server, pages):
    axe = pytest.importorskip("axe_playwright_python.sync_playwright")
    app, url = server
    games = app.extensions["trias_games"]
    game = games.create(seats=[{"name": "Ana", "kind": "human"}, {"name": "Bo", "kind": "human"}], seed=5)
    for n in range(2):
        before = game.last_seq
        game.execute(trias.legal_actions(game.state)[0], f"m{n}", "cli")
        publish(app, game, before)
    phone = pages(PHONE, is_mobile=True)
    phone.goto(f"{url}/trias/s/{game.seats[0]['token']}")
    board = pages(TABLET)
    board.goto(f"{url}/trias/g/{game.id}?t={game.table_secret}")
    for page in (phone, board):
        wait_seq(page, game.last_seq)
        sync_api.expect(page.locator("#rewritten")).to_be_hidden()
    rewrite_trias(sqlite_forger(games.store.target(game.id)), game, 2)
    for page in (phone, board):  # within the look's 5 s, and no move sent
        sync_api.expect(page.locator("#rewritten")).to_be_visible(timeout=WAIT)
        sync_api.expect(page.locator("#rewritten")).to_contain_text("plus aucun coup n’est enregistré")
    for name, page in (("phone", phone), ("board", board)):  # to look at, in the test's folder
        page.screenshot(path=str(games.folder / f"rewritten-{name}.png"))
    found = axe.Axe().run(phone, options=AXE).response["violations"]
    assert found == [], [(v["id"], [n["target"] for n in v["nodes"][:3]]) for v in found]
