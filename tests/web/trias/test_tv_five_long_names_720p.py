"""A table's TV at 1280x720 with five seats of long names: everything it shows is on the screen.

Seen on a 720p TV with five seats: the undo note cut at the bottom, only the newest move listed, and
at the end the Rematch button half off the screen. Checked here at the moments that fill the side
column most: after a card was drawn (Undo refused, its note shown beside the newest move), after the
drawn card's drift with an interim scoring's announcement (over the turn line) and the two newest
moves, and at the end of the game; at 720p and 1080p, five and two seats. The join panel (the
seats' QR codes, last) is the one thing reached by scrolling.

Needs Playwright's Python package and Debian's Chromium (skipped without them).
"""

from __future__ import annotations

import pytest

from needs import module, needs  # noqa: E402
sync_api = module("playwright.sync_api")  # a stand-in without Playwright: pytestmark skips the tests
from browserkit import CHROMIUM  # noqa: E402,F401
from test_browser_trias import pages, server, wait_seq  # noqa: E402,F401 (fixtures)
from tv_game_kit import OFF, moves  # noqa: E402

import trias  # noqa: E402

pytestmark = needs("playwright", "chromium")

LONG = ["Bénédicte-Alexandrine", "Maximilien de la Tour", "Dominique Vanderbeek", "Anne-Sophie Marchetti",
        "Jean-Baptiste Lefèvre"]
# An interim scoring's announcement as the table shows it, with the two longest names.
ANNOUNCED = "Décompte intermédiaire (T16) : Bénédicte-Alexandrine +1, Maximilien de la Tour +2"

ROWS = "() => Array.from(document.querySelectorAll('#log li')).filter(li => !li.hidden).length"


def drawn(game) -> bool:
    """True right after a card was drawn: Undo is refused (it would show the card), its note shown."""
    return game.state.phase == "drift"


@pytest.mark.parametrize("players,viewport", [(5, {"width": 1280, "height": 720}), (5, {"width": 1920, "height": 1080}),
                                              (2, {"width": 1280, "height": 720})], ids=["5-720p", "5-1080p", "2-720p"])
def test_the_tv_shows_the_undo_note_the_moves_and_the_rematch_whole(server, pages, players, viewport):
    app, url = server
    game = app.extensions["trias_games"].create(seats=[{"name": n, "kind": "human"} for n in LONG[:players]],
                                                seed=6, mode="play")  # a game whose draw there has a drift (T9)
    for _ in moves(game, seed=6, until=lambda g: g.last_seq > 12 * players and g.state.phase == "start" and g.state.deck):
        pass
    game.execute({"type": "draw"}, "the-draw", f"seat:{game.state.current}")
    assert drawn(game)
    tv = pages(viewport)
    tv.goto(f"{url}/trias/g/{game.id}?t={game.table_secret}")
    wait_seq(tv, game.last_seq)
    sync_api.expect(tv.locator("#undo-why")).to_be_visible()
    tv.wait_for_timeout(200)  # fonts and layout settled
    assert tv.evaluate(OFF, ".trias-side *") == []
    assert tv.evaluate(ROWS) >= 1  # the card drawn, and why it stays
    drift = next(c for c in trias.legal_actions(game.state) if c["type"] == "drift")
    game.execute(drift, "the-drift", f"seat:{game.state.current}")
    tv.goto(f"{url}/trias/g/{game.id}?t={game.table_secret}")
    wait_seq(tv, game.last_seq)
    sync_api.expect(tv.locator("#undo-why")).to_be_hidden()
    tv.evaluate("(text) => TT.announce(text)", ANNOUNCED)
    tv.wait_for_timeout(200)
    assert tv.evaluate(OFF, ".trias-side *, #announce, #turn *") == []
    assert tv.evaluate(ROWS) >= 2
    for _ in moves(game, seed=6, tag="to-the-end"):
        pass
    tv.goto(f"{url}/trias/g/{game.id}?t={game.table_secret}")
    wait_seq(tv, game.last_seq)
    sync_api.expect(tv.locator("#rematch")).to_be_visible()
    tv.wait_for_timeout(200)
    assert tv.evaluate(OFF, "#end-panel h2, #end-panel .trias-winner, #rematch") == []


# A text's box is its font's whole height; a digit's ink is the part from its baseline up to the height
# of a capital (about 62 % of the box, above a descent of about 20 %).
COVERED = """() => {
  const hit = (a, b) => a.left < b.right - 0.5 && b.left < a.right - 0.5 && a.top < b.bottom - 0.5 && b.top < a.bottom - 0.5;
  const ink = e => {
    const r = e.getBoundingClientRect();
    if (e.tagName !== 'text') return r;
    const h = r.bottom - r.top;
    return {left: r.left, right: r.right, top: r.bottom - 0.82 * h, bottom: r.bottom - 0.2 * h};
  };
  const marks = Array.from(document.querySelectorAll('#board .tile :is(.cap, .glyph, .glyph-line, .pole-mark)')).map(ink);
  const out = [];
  for (const g of document.querySelectorAll('#board .herds:not(.swimmers)')) {
    for (const cube of g.querySelectorAll('.cube')) {
      if (marks.some(o => hit(cube.getBoundingClientRect(), o))) { out.push(g.dataset.place); break; }
    }
  }
  return out;
}"""


@pytest.mark.parametrize("viewport", [{"width": 1280, "height": 720}, {"width": 1920, "height": 1080}], ids=["720p", "1080p"])
def test_herds_lie_beside_their_tiles_capacity_and_landscape_sign(server, pages, viewport):
    app, url = server
    game = app.extensions["trias_games"].create(seats=[{"name": n, "kind": "human"} for n in LONG], seed=7, mode="play")
    for _ in moves(game, seed=7, until=lambda g: g.last_seq > 50):
        pass
    tv = pages(viewport)
    tv.goto(f"{url}/trias/g/{game.id}?t={game.table_secret}")
    wait_seq(tv, game.last_seq)
    tv.wait_for_timeout(200)
    herded = tv.evaluate("() => document.querySelectorAll('#board .herds:not(.swimmers)').length")
    assert herded >= 5
    # One to three seats' herds on a tile (nearly every tile): never over a tile's numbers or sign.
    crowded = tv.evaluate("() => Array.from(document.querySelectorAll('#board .herds')).filter(g => g.querySelectorAll('.cube').length > 3).map(g => g.dataset.place)")
    assert [p for p in tv.evaluate(COVERED) if p not in crowded] == []
