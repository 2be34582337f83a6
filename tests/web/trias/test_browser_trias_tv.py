"""The Trias board read from a sofa, and the end that opens on the result.

A TV at 1920x1080 showed the turn line and the scores at 20 px, the last moves at 15 px and every
hex's "q,r" in bold; at the end the final table was cut on a 360 px phone and on a 1280x720 TV,
the result lay under a huge board and the table's land masses A, B, C were nowhere on the board.
Here Chromium measures every text the TV shows (SVG text at the size it is drawn), looks for the
coordinates, and at the end checks that the result is on the first screen, whole.

Needs Playwright's Python package and Debian's Chromium (skipped without them).
"""

from __future__ import annotations

import itertools
import re

import pytest

from needs import module, needs  # noqa: E402
sync_api = module("playwright.sync_api")  # a stand-in without Playwright: pytestmark skips the tests
from browserkit import CHROMIUM  # noqa: E402,F401
# The app on 127.0.0.1 with its computer player, and pages that fail the test on a script error.
from test_browser_trias import PHONE, WAIT, pages, server, wait_seq  # noqa: E402,F401
from trias_kit import finish  # noqa: E402

import trias  # noqa: E402

pytestmark = needs("playwright", "chromium")

TV_1080, TV_720 = {"width": 1920, "height": 1080}, {"width": 1280, "height": 720}
PHONE_740 = {"width": 360, "height": 740}
# Sizes at 1080p; a 720p TV of the same diagonal draws everything 720/1080 as big.
SMALLEST, BANNER, LOG = 24, 40, 24
COORDS = re.compile(r"^-?\d+,-?\d+$")
NAMES = ["Ana", "Bénédicte", "Cyd", "Dominique", "Eli"]

# Every text node the page shows inside the screen, with its size on the screen: an HTML text's
# computed font size (the bank's big-screen test, tests/web/field/test_browser_display.py), an SVG text's
# computed size times the scale its viewBox is drawn at.
VISIBLE_TEXT = """() => {
  const out = [], walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  for (let n = walker.nextNode(); n; n = walker.nextNode()) {
    const e = n.parentElement, text = n.textContent.trim();
    if (!text || !e || e.closest('script, style, title, .hidden')) continue;
    const r = e.getBoundingClientRect(), cs = getComputedStyle(e);
    if (!r.width || !r.height || cs.visibility === 'hidden' || r.bottom <= 0 || r.top >= innerHeight || r.right <= 0 || r.left >= innerWidth) continue;
    let hidden = false;
    for (let p = e; p; p = p.parentElement) { const s = getComputedStyle(p); if (s.display === 'none' || s.opacity === '0') { hidden = true; break; } }
    if (hidden) continue;
    let size = parseFloat(cs.fontSize);
    if (e instanceof SVGElement && e.getScreenCTM) size *= Math.abs(e.getScreenCTM().a);
    out.push({size: Math.round(size * 10) / 10, text: text.slice(0, 40), where: e.tagName + '.' + (e.getAttribute('class') || ''), id: e.closest('[id]') ? e.closest('[id]').id : ''});
  }
  return out;
}"""


def people(app, n: int, seed: int, mode: str = "play"):
    return app.extensions["trias_games"].create(seats=[{"name": name, "kind": "human"} for name in NAMES[:n]], seed=seed, mode=mode)


def play(game, turns: int) -> None:
    """Herds placed (T8), then `turns` turns, each ended as soon as it may."""
    keys = itertools.count()
    while game.state.phase == "place" or game.state.turn < turns:
        legal = trias.legal_actions(game.state)
        command = next((c for c in legal if c["type"] == "end_turn"), legal[0])
        game.execute(command, f"tv-{next(keys)}", f"seat:{game.state.current}")


def open_board(pages, url, game, viewport, table=True):
    page = pages(viewport)
    page.goto(f"{url}/trias/g/{game.id}" + (f"?t={game.table_secret}" if table else ""))
    wait_seq(page, game.last_seq)
    page.wait_for_timeout(200)  # fonts and layout settled
    return page


def texts(page) -> list:
    return page.evaluate(VISIBLE_TEXT)


def size_of(page, selector: str) -> float:
    return float(page.locator(selector).first.evaluate("e => parseFloat(getComputedStyle(e).fontSize)"))


@pytest.mark.parametrize("viewport", [TV_1080, TV_720], ids=["1920x1080", "1280x720"])
@pytest.mark.parametrize("table", [True, False], ids=["table", "public"])
def test_no_text_on_the_tv_board_is_too_small_to_read_from_3_m(server, pages, viewport, table):
    app, url = server
    game = people(app, 4, 12)
    play(game, 6)
    tv = open_board(pages, url, game, viewport, table)
    scale = viewport["height"] / 1080
    shown = texts(tv)
    assert len(shown) > 15, shown  # the measure saw the page, not an empty shell
    smallest = min(shown, key=lambda t: t["size"])
    print(f"{viewport}: smallest {smallest}")
    assert smallest["size"] >= SMALLEST * scale - 0.05, sorted(shown, key=lambda t: t["size"])[:8]
    assert size_of(tv, "#turn .trias-who") >= BANNER * scale - 0.05
    assert size_of(tv, "#scores .trias-score-name") >= BANNER * scale - 0.05
    assert size_of(tv, "#scores .trias-score-pts") >= BANNER * scale - 0.05
    assert tv.locator("#log li").count() > 0
    assert size_of(tv, "#log li") >= LOG * scale - 0.05
    assert tv.evaluate("() => document.documentElement.scrollWidth <= innerWidth")


def test_the_tv_shows_no_coordinates_and_the_mirror_tablet_only_on_demand(server, pages):
    """A phones game's TV names places in words and has no coordinates button (it lay over the board's
    corner); the mirror tablet shows each place's q,r on demand, to lay tiles as the printed set-up map does."""
    app, url = server
    game = people(app, 3, 4)
    play(game, 2)
    tv = open_board(pages, url, game, TV_1080)
    assert tv.locator("#board .hex").count() > 10
    assert [t for t in texts(tv) if COORDS.match(t["text"])] == []
    assert tv.locator("#coords-toggle").count() == 0
    mirror = people(app, 3, 4, mode="mirror")
    play(mirror, 2)
    tablet = open_board(pages, url, mirror, {"width": 1280, "height": 800})
    # The mirror tablet records by tapping the board with a confirm bar, not by coordinates.
    assert [t for t in texts(tablet) if COORDS.match(t["text"])] == []
    tablet.click("#coords-toggle")
    coords = [t for t in texts(tablet) if COORDS.match(t["text"])]
    assert len(coords) > 10
    assert min(t["size"] for t in coords) >= SMALLEST - 0.05  # shown on demand, readable too
    tablet.click("#coords-toggle")
    assert [t for t in texts(tablet) if COORDS.match(t["text"])] == []
    assert open_board(pages, url, mirror, TV_1080, table=False).locator("#coords-toggle").count() == 0  # its public view


@pytest.fixture
def finished(server):
    app, url = server
    game = people(app, 5, 9)
    finish(game)
    assert game.state.phase == "over" and game.state.result["table"]
    return app, url, game


def result_first(page, game) -> None:
    summary = page.locator("#end-summary")
    sync_api.expect(summary).to_be_visible(timeout=WAIT)
    winners = [game.seats[s]["name"] for s in game.state.result["winners"]]
    sync_api.expect(summary.locator(".trias-winner")).to_contain_text(winners[0])
    assert summary.locator(".trias-rank").count() == len(game.seats)
    view = page.viewport_size
    box = summary.bounding_box()
    assert page.evaluate("() => scrollY") == 0
    assert box["x"] >= 0 and box["y"] >= 0, box
    assert box["x"] + box["width"] <= view["width"] and box["y"] + box["height"] <= view["height"], (box, view)
    table = page.locator("#end-panel .trias-final").bounding_box()
    assert table["x"] >= 0 and table["x"] + table["width"] <= view["width"], (table, view)  # no column cut off
    assert page.evaluate("() => document.documentElement.scrollWidth <= innerWidth")
    # The arithmetic of each land mass (T18), then the board under it.
    assert page.locator("#end-panel .trias-mass-line").count() == len(game.state.result["table"])
    assert page.locator("#end-panel").bounding_box()["y"] < page.locator("#board").bounding_box()["y"]


@pytest.mark.parametrize("viewport", [PHONE_740, TV_720], ids=["360x740", "1280x720"])
def test_at_the_end_the_board_page_opens_on_the_result(finished, pages, viewport):
    app, url, game = finished
    result_first(open_board(pages, url, game, viewport), game)


def test_at_the_end_a_seat_phone_opens_on_the_result_with_its_rank(finished, pages):
    app, url, game = finished
    phone = pages(PHONE_740, is_mobile=True, has_touch=True)
    phone.goto(f"{url}/trias/s/{game.seats[2]['token']}")
    wait_seq(phone, game.last_seq)
    result_first(phone, game)
    sync_api.expect(phone.locator("#end-summary .trias-rank.mine")).to_contain_text(NAMES[2])


def test_at_the_end_the_land_masses_are_lettered_on_the_board_as_in_the_table(finished, pages):
    app, url, game = finished
    tv = open_board(pages, url, game, TV_1080)
    rows = game.state.result["table"]
    letters = [chr(65 + i) for i in range(len(rows))]
    sync_api.expect(tv.locator("#board .mass-letter")).to_have_count(len(rows))
    assert sorted(tv.locator("#board .mass-letter text").all_text_contents()) == letters
    heads = tv.locator("#end-panel .trias-final tbody th[scope=row]").all_inner_texts()
    assert [h.split()[0] for h in heads[:len(rows)]] == letters
    for letter, row in zip(letters, rows):  # each letter sits on a tile of its land mass
        where = tv.locator(f'#board .mass-letter[data-mass="{letter}"]').get_attribute("data-place")
        assert where in row["tiles"], (letter, where, row["tiles"])
