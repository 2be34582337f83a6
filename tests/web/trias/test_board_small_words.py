"""Small words of the Trias pages, each as Chromium shows it.

"1 cartes dans la pioche"; "Ordinateur · facile (ordinateur) joue" (computer said twice); the
result table's heads broken as "Ordinateur ·" / "facile"; the score calculator keeping "Noir" once
the page is in Italian.

Needs Playwright's Python package and Debian's Chromium (skipped without them).
"""

from __future__ import annotations

import logging
from pathlib import Path

import pytest

from needs import module, needs  # noqa: E402
sync_api = module("playwright.sync_api")  # a stand-in without Playwright: pytestmark skips the tests
from browserkit import CHROMIUM, serve_in_thread  # noqa: E402,F401
from test_browser_trias import pages, wait_seq  # noqa: E402,F401 (fixtures)
from trias_kit import finish  # noqa: E402
from tv_game_kit import moves, people  # noqa: E402

pytestmark = needs("playwright", "chromium")

ROOT = Path(__file__).resolve().parents[3]
PHONE, TV_720 = {"width": 360, "height": 740}, {"width": 1280, "height": 720}
# Where each character of a text node is drawn: [char, top of its line box].
LINES = """e => { const n = e.firstChild, out = [], range = document.createRange();
  for (let i = 0; i < n.textContent.length; i++) { range.setStart(n, i); range.setEnd(n, i + 1);
    const r = range.getClientRects()[0]; if (r) out.push([n.textContent[i], Math.round(r.top)]); }
  return out; }"""


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    """The app on 127.0.0.1 with no computer player: a computer seat to play stays to play."""
    from bank.web import create_app

    logging.getLogger("werkzeug").setLevel(logging.ERROR)
    folder = tmp_path_factory.mktemp("trias-words")
    app = create_app({"DB": str(folder / "game.db"), "CONFIG": str(ROOT / "config.toml"), "TRIAS_COMPUTER": False})
    url, _ = serve_in_thread(app)
    return app, url


def board(pages, url, game, viewport=TV_720):
    page = pages(viewport)
    page.goto(f"{url}/trias/g/{game.id}?t={game.table_secret}")
    wait_seq(page, game.last_seq)
    return page


def test_t6_one_card_left_in_the_deck_is_said_in_the_singular(server, pages):
    app, url = server
    for seed in range(1, 40):  # a game whose Meteorite Impact (T6, T15) lies at the deck's bottom
        game = people(app, 2, seed=seed)
        for _ in moves(game, seed=seed, until=lambda g: len(g.state.deck) == 1):
            pass
        if len(game.state.deck) == 1:
            break
    assert len(game.state.deck) == 1
    sync_api.expect(board(pages, url, game).locator("#deck")).to_have_text("1 carte dans la pioche")


def test_a_computer_seat_named_by_its_level_is_not_called_computer_twice(server, pages):
    app, url = server
    from bank.web.trias.names import computer_name

    seats = [{"name": computer_name("easy", "fr"), "kind": "computer", "level": "easy"}, {"name": "Ana", "kind": "human"}]
    game = app.extensions["trias_games"].create(seats=seats, seed=2)
    who = board(pages, url, game).locator("#turn .trias-who")
    sync_api.expect(who).to_have_text("Ordinateur · facile joue")
    named = app.extensions["trias_games"].create(seats=[dict(seats[0], name="Robot"), seats[1]], seed=2)
    sync_api.expect(board(pages, url, named).locator("#turn .trias-who")).to_have_text("Robot (ordinateur) joue")


@pytest.mark.parametrize("viewport", [PHONE, TV_720], ids=["360x740", "1280x720"])
def test_t18_the_result_tables_heads_never_end_a_line_on_the_dot(server, pages, viewport):
    app, url = server
    names = ["Ordinateur · facile", "Ordinateur · moyen", "Ordinateur · difficile", "Ana", "Bénédicte"]
    game = app.extensions["trias_games"].create(seats=[{"name": n, "kind": "human"} for n in names], seed=9)
    finish(game)
    page = board(pages, url, game, viewport)
    heads = page.locator("#end-panel .trias-final thead .trias-col-name")
    sync_api.expect(heads).to_have_count(5)
    for i in range(3):
        chars = heads.nth(i).evaluate(LINES)
        dot = next(k for k, (c, _) in enumerate(chars) if c == "·")
        word = next(k for k in range(dot + 1, len(chars)) if chars[k][0].strip())
        assert chars[dot][1] == chars[word][1], (names[i], chars)  # "· facile" together on one line


def test_the_score_calculator_says_its_default_colours_in_the_language_chosen(server, pages):
    _, url = server
    page = pages(PHONE)
    page.goto(url + "/trias/score")
    first = page.locator("[data-player-name='0']")
    sync_api.expect(first).to_have_value("Noir")
    page.fill("[data-player-name='1']", "Zoé")  # a name typed in stays
    page.locator("[data-player-name='1']").dispatch_event("input")
    page.click("button[data-lang='it']")
    sync_api.expect(page.locator("html")).to_have_attribute("lang", "it")
    sync_api.expect(page.locator("[data-player-name='0']")).to_have_value("Nero")
    sync_api.expect(page.locator("[data-player-name='1']")).to_have_value("Zoé")
    sync_api.expect(page.locator("[data-player-name='2']")).to_have_value("Croce")
