"""Trias herds were told apart by their seat's colour only: a colour-blind player could not tell whose
herds stood on a tile. Each seat now has a shape as well as a colour (TT.SHAPES: square, circle,
diamond, triangle, cross): its herds on the board are drawn in it, and the seat's chip beside its
name in the scores carries the same shape, so a player matches herds to names without colours.

Needs Playwright's Python package and Debian's Chromium (skipped without them).
"""

from __future__ import annotations

from needs import module, needs  # noqa: E402
sync_api = module("playwright.sync_api")  # a stand-in without Playwright: pytestmark skips the tests
from test_browser_trias import pages, server, wait_seq  # noqa: E402,F401 (fixtures)
from tv_game_kit import moves  # noqa: E402

pytestmark = needs("playwright", "chromium")

# Each herd mark's seat, shape and outline (its element and geometry, the colour left out), and each
# score chip's seat and shape as drawn (its clip path and corner rounding).
MARKS = """() => ({
  herds: Array.from(document.querySelectorAll('#board .herds .cube')).map(c => {
    const b = c.getBBox();
    const outline = c.tagName === 'polygon' ? c.getAttribute('points').split(' ').length : c.tagName;
    return [+c.dataset.seat, c.dataset.shape, String(outline), Math.round(b.width * 10) / 10];
  }),
  chips: Array.from(document.querySelectorAll('.trias-score')).map(li => {
    const chip = li.querySelector('.trias-cube-sm'), css = getComputedStyle(chip);
    return [+li.dataset.seat, chip.dataset.shape, css.clipPath + ' ' + css.borderRadius];
  }),
})"""


def test_each_seats_herds_and_chip_have_a_shape_of_their_own(server, pages):
    app, url = server
    game = app.extensions["trias_games"].create(seats=[{"name": n, "kind": "human"} for n in "ABCDE"], seed=7, mode="play")
    for _ in moves(game, seed=7, until=lambda g: g.last_seq > 50):
        pass
    tv = pages({"width": 1280, "height": 720})
    tv.goto(f"{url}/trias/g/{game.id}?t={game.table_secret}")
    wait_seq(tv, game.last_seq)
    seen = tv.evaluate(MARKS)
    shapes = {}
    for seat, shape, outline, _ in seen["herds"]:
        assert shape, ("a herd without a shape", seat)
        shapes.setdefault(seat, set()).add((shape, outline))
    assert len(shapes) == 5, ("every seat has herds on the board", sorted(shapes))
    assert all(len(drawn) == 1 for drawn in shapes.values()), shapes  # a seat's herds look alike
    assert len({next(iter(drawn)) for drawn in shapes.values()}) == 5, shapes  # and unlike any other seat's
    chips = {seat: (shape, drawn) for seat, shape, drawn in seen["chips"]}
    assert {seat: shape for seat, (shape, _) in chips.items()} == {seat: next(iter(d))[0] for seat, d in shapes.items()}
    assert len({drawn for _, drawn in chips.values()}) == 5, chips  # the chips are drawn apart, not only named apart
