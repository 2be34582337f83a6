"""A Trias TV's side column fits the screen: the public-view notice shrank under
the scores with its last line hidden, and the last moves ended on a line cut in half.

Played games of 2 to 5 people, watched by the table's own screen and by a public view, at 1280x720
and 1920x1080: every panel of the side column keeps its height (none lies over the next), every text
is on the screen, and the last moves show whole moves only, newest first, as many as fit.

Needs Playwright's Python package and Debian's Chromium (skipped without them).
"""

from __future__ import annotations

import pytest

from needs import module, needs  # noqa: E402
sync_api = module("playwright.sync_api")  # a stand-in without Playwright: pytestmark skips the tests
from browserkit import CHROMIUM  # noqa: E402,F401
from test_browser_trias import pages, server, wait_seq  # noqa: E402,F401 (fixtures)
from tv_game_kit import moves, people  # noqa: E402

pytestmark = needs("playwright", "chromium")

SIDE = """() => {
  const inside = (a, b) => a.top >= b.top - 0.5 && a.bottom <= b.bottom + 0.5;
  const shown = e => e.offsetParent !== null && e.getClientRects().length > 0;
  const panels = Array.from(document.querySelectorAll('.trias-side > *')).filter(shown)
    .sort((a, b) => a.getBoundingClientRect().top - b.getBoundingClientRect().top);  // as seen (CSS order)
  const overlaps = [];
  for (let i = 1; i < panels.length; i++) {
    const a = panels[i - 1].getBoundingClientRect(), b = panels[i].getBoundingClientRect();
    if (a.bottom > b.top + 0.5) overlaps.push([panels[i - 1].className || panels[i - 1].id, panels[i].className || panels[i].id]);
    for (const child of panels[i - 1].querySelectorAll('*')) {  // text spilling out of its panel
      if (shown(child) && child.children.length === 0 && child.textContent.trim() && child.getBoundingClientRect().bottom > b.top + 0.5)
        overlaps.push(['text', child.textContent.trim().slice(0, 40)]);
    }
  }
  const log = document.querySelector('#log').getBoundingClientRect();
  const rows = Array.from(document.querySelectorAll('#log li')).filter(li => !li.hidden);
  const cut = rows.filter(li => !inside(li.getBoundingClientRect(), log)).map(li => li.textContent.slice(0, 40));
  const off = Array.from(document.querySelectorAll('.trias-side *')).filter(e => shown(e) && e.children.length === 0
    && e.textContent.trim() && !e.closest('#log li[hidden]') && !e.closest('.trias-join, #undo, #undo-why, .trias-public')
    && e.getBoundingClientRect().bottom > innerHeight + 0.5)
    .map(e => e.textContent.trim().slice(0, 40));
  return {overlaps, cut, off, rows: rows.length, total: document.querySelectorAll('#log li').length,
          newest: rows.length ? +rows[0].dataset.seq : null};
}"""


@pytest.mark.parametrize("viewport", [{"width": 1280, "height": 720}, {"width": 1920, "height": 1080}], ids=["720p", "1080p"])
@pytest.mark.parametrize("players", [2, 5])
def test_the_side_column_shows_whole_panels_and_whole_moves(server, pages, viewport, players):
    app, url = server
    game = people(app, players, seed=players)
    for n, _ in enumerate(moves(game, seed=players)):
        if n >= 45:
            break
    for where in (f"?t={game.table_secret}", ""):  # the table's own screen, then a public view
        tv = pages(viewport)
        tv.goto(f"{url}/trias/g/{game.id}{where}")
        wait_seq(tv, game.last_seq)
        tv.wait_for_timeout(200)  # fonts and layout settled
        seen = tv.evaluate(SIDE)
        assert seen["overlaps"] == [] and seen["cut"] == [] and seen["off"] == [], (where, seen)
        assert seen["rows"] >= 1 and seen["newest"] == game.last_seq, (where, seen)  # the newest first
        if viewport["height"] >= 1080:
            assert seen["rows"] >= 3, (where, seen)
