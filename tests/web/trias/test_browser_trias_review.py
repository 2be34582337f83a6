"""What a walk through Trias on phones and a TV found, checked in real Chromium.

The card a player draws is shown on the phone and on the shared board (T9: it is public once
drawn); every place a move button names can be read on the board as drawn; pages without a live
connection show no "offline" badge; the start page's controls each have a label with the seat's
number; the resume line says the turn in words.

Needs Playwright's Python package and Debian's Chromium (skipped without them).
"""

from __future__ import annotations

import itertools
import re
from pathlib import Path

import pytest

from needs import module, needs  # noqa: E402
sync_api = module("playwright.sync_api")  # a stand-in without Playwright: pytestmark skips the tests
from browserkit import CHROMIUM  # noqa: E402
# The app on 127.0.0.1 with its computer player, and pages that fail the test on a script error.
from test_browser_trias import PHONE, WAIT, pages, server, wait_seq  # noqa: E402,F401

import trias  # noqa: E402

pytestmark = needs("playwright", "chromium")

TV = {"width": 1920, "height": 1080}
FRENCH = {"mountain": "Montagne", "steppe": "Steppe", "woods": "Forêt", "meteorite": "Impact de météorite"}


def two_people(app, seed: int):
    return app.extensions["trias_games"].create(seats=[{"name": "Ana", "kind": "human"},
                                                       {"name": "Bob", "kind": "human"}], seed=seed)


def placed(game):
    """Both seats' herds placed (T8): the first turn's phase 1 is next."""
    keys = itertools.count()
    while game.state.phase == "place":
        game.execute(trias.legal_actions(game.state)[0], f"place-{next(keys)}", f"seat:{game.state.current}")
    return game


def test_t9_the_drawn_card_is_named_on_the_players_phone_and_on_the_board(server, pages):
    app, url = server
    game = placed(two_people(app, 3))
    seat = game.state.current
    phone, board = pages(PHONE, is_mobile=True, has_touch=True), pages(TV)
    phone.goto(f"{url}/trias/s/{game.seats[seat]['token']}")
    board.goto(f"{url}/trias/g/{game.id}")
    for page in (phone, board):
        wait_seq(page, game.last_seq)
    phone.click("#actionbar button[data-type=draw]")  # the next action, in the bar
    for page in (phone, board):
        wait_seq(page, game.last_seq)
    card = game.state.card
    assert card in FRENCH
    for page in (phone, board):
        sync_api.expect(page.locator("#turn")).to_contain_text(FRENCH[card])
    sync_api.expect(board.locator("#log li").first).to_contain_text(FRENCH[card])
    other = game.state.hands[1 - seat]  # still face down: never on the board
    if other != card:
        sync_api.expect(board.locator("#turn")).not_to_contain_text(FRENCH[other])


def test_a_move_buttons_place_is_named_in_the_words_of_that_place_on_the_board(server, pages):
    """A "place a herd" button names its place as the board's own tooltip for that place does (no q,r on a
    player's screen), and the herds go to that place."""
    app, url = server
    game = two_people(app, 6)
    phone = pages(PHONE, is_mobile=True, has_touch=True)
    phone.goto(f"{url}/trias/s/{game.seats[game.state.current]['token']}")
    wait_seq(phone, game.last_seq)
    phone.click("#moves-toggle")
    button = phone.locator("#moves button[data-type=place]").nth(3)
    text = button.inner_text()
    assert not re.search(r"-?\d+,\s?-?\d+", text), text
    herds = {place: sum(counts) for place, counts in game.state.herds.items()}
    before = game.last_seq
    button.click()
    wait_seq(phone, before + 1)
    (place,) = [p for p, counts in game.state.herds.items() if sum(counts) != herds.get(p, 0)]
    words = phone.evaluate("key => document.querySelector(`#board [data-place='${key}'] title`).textContent",
                           f"{place[0]},{place[1]}")
    assert words and words in text, (words, text)


def test_pages_without_a_live_connection_show_no_offline_badge(server, pages):
    app, url = server
    game = two_people(app, 4)
    page = pages(PHONE, is_mobile=True)
    for path in ("/trias/", "/trias/score", "/trias/g/nosuchgame"):
        page.goto(url + path)
        sync_api.expect(page.locator("h1").first).to_be_visible()
        assert page.locator("#conn-badge").count() == 0, path
    for path in (f"/trias/g/{game.id}", f"/trias/s/{game.seats[0]['token']}"):
        page.goto(url + path)
        sync_api.expect(page.locator("#conn-badge")).to_have_class(re.compile("badge-live"), timeout=WAIT)


def test_the_start_page_labels_each_control_with_its_seat_and_says_the_turn_in_words(server, pages):
    app, url = server
    game = placed(two_people(app, 5))
    page = pages(PHONE, is_mobile=True)
    page.goto(f"{url}/trias/g/{game.id}?t={game.table_secret}")  # this device holds the table: the start page lists it
    page.goto(url + "/trias/")
    page.click("#add-seat")
    page.locator("#seats li:nth-child(3) [name=kind]").select_option("computer")
    for n in (1, 2, 3):
        row = page.locator(f"#seats li:nth-child({n})")
        names = [row.locator(f"[name={field}]").get_attribute("aria-label") for field in ("name", "kind", "level")]
        assert all(name and f" {n}" in name for name in names), names
        assert len(set(names)) == 3, names
    page.locator("#seats li:nth-child(1) button").click()  # the numbers follow a removed seat
    moved = page.locator("#seats li:nth-child(2) [name=name]").get_attribute("aria-label")
    assert " 2" in moved and " 3" not in moved, moved
    line = page.locator(f'#games li:has(a[href$="/trias/g/{game.id}"])')
    sync_api.expect(line).to_contain_text(f"tour {game.state.turn}")
    assert "#" not in line.inner_text()
    box = page.locator("[name=mode]").first.locator("xpath=..").bounding_box()
    assert box["height"] >= 40  # the whole row is the radio button's target
