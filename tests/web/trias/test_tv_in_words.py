"""The TV in words: the last moves name places as people see them, the TV shows
no phone's hint, and a 720p TV's smallest text is 24 px.

Before: "#40 Place 1 · Déplacer un troupeau 0,-2 → 0,-1" (coordinates the board no longer shows),
"(3 points)" for action points, "Touchez une tuile…" under the board, and at 1280x720 the page
scaled to 2/3 with its smallest text at 16.6 px. A game that makes every kind of move (tv_game_kit)
is watched on the TV; Chromium measures every text it shows.

Needs Playwright's Python package and Debian's Chromium (skipped without them).
"""

from __future__ import annotations

import re

import pytest

from needs import module, needs  # noqa: E402
sync_api = module("playwright.sync_api")  # a stand-in without Playwright: pytestmark skips the tests
from browserkit import CHROMIUM  # noqa: E402,F401
from test_browser_trias import pages, server, wait_seq  # noqa: E402,F401 (fixtures)
from test_browser_trias_tv import VISIBLE_TEXT  # noqa: E402
from tv_game_kit import KINDS, moves, people  # noqa: E402

from bank.web.trias.live import publish  # noqa: E402

pytestmark = needs("playwright", "chromium")

TV_720, TV_1080 = {"width": 1280, "height": 720}, {"width": 1920, "height": 1080}
COORDS = re.compile(r"-?\d+\s*,\s*-?\d+")
TAP_HINT = "Touchez une tuile pour voir où elle peut dériver, ou un troupeau pour voir où il peut aller."


def open_tv(pages, url, game, viewport):
    tv = pages(viewport)
    tv.goto(f"{url}/trias/g/{game.id}?t={game.table_secret}")
    wait_seq(tv, game.last_seq)
    return tv


def log_texts(tv) -> list:
    return tv.locator("#log li").all_inner_texts()


def test_t8_t15_every_kind_of_move_is_named_in_words_never_by_coordinates(server, pages):
    app, url = server
    game = people(app, 4, seed=3)
    tv = open_tv(pages, url, game, TV_720)
    seen, made, told = {}, set(), game.last_seq
    for n, made in enumerate(moves(game, seed=3), 1):
        if n % 8 == 0 or game.state.phase == "over":  # the log keeps 12 rows: read it before any is pushed out
            publish(app, game, told)  # every open screen is told, as the route does
            told = game.last_seq
            wait_seq(tv, game.last_seq)  # a picture's rows are in the log before its number is shown (common.js)
            for li in tv.locator("#log li").all():
                seen[int(li.get_attribute("data-seq"))] = li.inner_text()
    assert made == KINDS, KINDS - made
    assert len(seen) >= game.last_seq - 2, (len(seen), game.last_seq)  # every row read (setup has none)
    spoken = [text for text in seen.values() if COORDS.search(text)]
    assert spoken == [], spoken[:5]
    said = " ".join(seen.values())
    for words in ("troupeau déplacé : ", "dérive pour 3 points d’action : ", "nageurs sauvés : ", "naissance : ",
                  "2 troupeaux posés : ", "jouée, dérive : ", "piochée", "fin du tour", "du pôle (couronne "):
        assert words in said, words
    assert "(3 points)" not in said
    assert re.search(r"(forêt|steppe|montagne) (au|à l’)", said)  # a tile by its landscape and its side of the pole


@pytest.mark.parametrize("viewport", [TV_720, TV_1080], ids=["1280x720", "1920x1080"])
def test_the_tv_shows_no_phone_hint_and_no_text_under_24_px(server, pages, viewport):
    app, url = server
    game = people(app, 5, seed=4)
    for n, _ in enumerate(moves(game, seed=4)):
        if n >= 45:
            break
    tv = open_tv(pages, url, game, viewport)
    tv.wait_for_timeout(200)  # fonts and layout settled
    shown = tv.evaluate(VISIBLE_TEXT)
    assert len(shown) > 15, shown
    smallest = min(shown, key=lambda t: t["size"])
    print(f"{viewport}: smallest {smallest}")
    assert smallest["size"] >= 24 - 0.05, sorted(shown, key=lambda t: t["size"])[:8]
    assert tv.locator("#log li").count() > 0 and tv.locator("#log li").first.is_visible()
    words = " ".join(t["text"] for t in shown)
    assert "Touchez" not in words and TAP_HINT[:40] not in tv.locator("body").inner_text()
    assert tv.locator("#hint").inner_text().strip() == ""
    board = tv.locator("#board").bounding_box()
    assert board["height"] >= 0.75 * viewport["height"], board  # the board fills the height under the turn line
    assert tv.evaluate("() => document.documentElement.scrollWidth <= innerWidth")
