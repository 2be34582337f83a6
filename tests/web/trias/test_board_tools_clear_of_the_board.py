"""The coordinates' button sat on the board's bottom-right corner on a landscape screen: on the
mirror tablet, where moves are recorded by tapping hexes, it hid a hex a finger
had to reach. No hex of a mirror game's board lies under it, on the tablet or a mirror game shown
on a 720p or 1080p screen. A phones game's TV has no such button (it covered the board's
bottom-right hexes with 5 seats at 720p): it names places in words, and nothing lies over its board.

Needs Playwright's Python package and Debian's Chromium (skipped without them).
"""

from __future__ import annotations

import pytest

from needs import module, needs  # noqa: E402
sync_api = module("playwright.sync_api")  # a stand-in without Playwright: pytestmark skips the tests
from browserkit import CHROMIUM  # noqa: E402,F401
from test_browser_trias import TABLET, pages, server, wait_seq  # noqa: E402,F401

pytestmark = needs("playwright", "chromium")

HEXES_UNDER = """() => {
  const b = document.querySelector('#coords-toggle').getBoundingClientRect();
  return Array.from(document.querySelectorAll('#board .base [data-place] > polygon:first-child'))
    .map(p => [p.parentNode.dataset.place, p.getBoundingClientRect()])
    .filter(([_, r]) => r.left < b.right && b.left < r.right && r.top < b.bottom && b.top < r.bottom)
    .map(([k]) => k);
}"""


@pytest.mark.parametrize("size", [TABLET, {"width": 1280, "height": 720}, {"width": 1920, "height": 1080}],
                         ids=["tablet-1280x800", "tv-720p", "tv-1080p"])
def test_no_hex_lies_under_the_coordinates_button(server, pages, size):
    app, url = server
    game = app.extensions["trias_games"].create(seats=[{"name": n, "kind": "human"} for n in ("Ana", "Bob", "Cyd")],
                                                seed=8, mode="mirror")
    page = pages(size)
    page.goto(f"{url}/trias/g/{game.id}?t={game.table_secret}")
    wait_seq(page, game.last_seq)
    button = page.locator("#coords-toggle")
    sync_api.expect(button).to_be_visible()
    assert page.evaluate(HEXES_UNDER) == [], "hexes under the coordinates' button"
    box = button.bounding_box()
    assert box["y"] + box["height"] <= size["height"], "the button is on the screen"


@pytest.mark.parametrize("size", [{"width": 1280, "height": 720}, {"width": 1920, "height": 1080}], ids=["tv-720p", "tv-1080p"])
def test_a_phones_games_tv_has_no_control_over_its_board(server, pages, size):
    app, url = server
    game = app.extensions["trias_games"].create(seats=[{"name": n, "kind": "human"} for n in ("Ana", "Bob", "Cyd", "Dan", "Eve")],
                                                seed=8)
    page = pages(size)
    page.goto(f"{url}/trias/g/{game.id}?t={game.table_secret}")
    wait_seq(page, game.last_seq)
    assert page.locator("#coords-toggle").count() == 0
    board = page.locator("#board").bounding_box()
    over = page.evaluate("""b => Array.from(document.querySelectorAll('button, a, input, select, summary'))
      .filter(e => e.getClientRects().length && !e.closest('#board')).map(e => [e.id || e.textContent.trim().slice(0, 30), e.getBoundingClientRect()])
      .filter(([_, r]) => r.left < b.x + b.width && b.x < r.right && r.top < b.y + b.height && b.y < r.bottom).map(([k]) => k)""", board)
    assert over == [], over
