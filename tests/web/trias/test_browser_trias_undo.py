"""In real Chromium: the undo asks with the pages' own second tap (never the
browser's confirm dialog), a refused undo is not offered and the page says why, and computer seats
are named by their level on the start page, a default anyone may change.

Needs Playwright and Debian's Chromium (skipped without them).
"""

from __future__ import annotations

import pytest

from needs import module, needs  # noqa: E402
sync_api = module("playwright.sync_api")  # a stand-in without Playwright: pytestmark skips the tests
from browserkit import CHROMIUM  # noqa: E402,F401

import trias  # noqa: E402
from test_browser_trias import PHONE, TABLET, WAIT, pages, server, wait_seq  # noqa: E402,F401

pytestmark = needs("playwright", "chromium")
TWO = [{"name": "Ana", "kind": "human"}, {"name": "Bo", "kind": "human"}]
FRENCH = "Une carte a été piochée depuis : annuler montrerait ce qui vient ensuite, ce coup reste donc joué."


def move(app, game, command) -> None:
    """The table records a move, and every open screen is told (as the route does)."""
    from bank.web.trias.live import publish

    before = game.last_seq
    game.execute(command, f"t{before}", "table")
    publish(app, game, before)


def test_the_mirror_undo_asks_with_a_second_tap_not_a_dialog(server, pages):
    app, url = server
    game = app.extensions["trias_games"].create(seats=TWO, seed=5, mode="mirror")
    tablet = pages(TABLET)
    dialogs = []
    tablet.on("dialog", lambda dialog: (dialogs.append(dialog.message), dialog.accept()))
    tablet.goto(f"{url}/trias/g/{game.id}?t={game.table_secret}")
    move(app, game, trias.legal_actions(game.state)[0])
    wait_seq(tablet, 2)
    undo = tablet.locator("#undo")
    sync_api.expect(undo).to_be_enabled(timeout=WAIT)
    label = undo.inner_text()
    undo.click()
    sync_api.expect(undo).to_contain_text("Touchez encore", timeout=WAIT)  # the question, on the button itself
    assert game.last_seq == 2 and dialogs == []  # asked, nothing taken back yet
    tablet.wait_for_timeout(800)  # a second tap only counts a moment after the first (not a double tap)
    undo.click()
    wait_seq(tablet, 3)
    assert game.table.moves == () and game.state.phase == "place" and dialogs == []
    sync_api.expect(undo).to_have_text(label)


def test_a_second_tap_that_never_comes_takes_nothing_back(server, pages):
    app, url = server
    game = app.extensions["trias_games"].create(seats=TWO, seed=5, mode="mirror")
    tablet = pages(TABLET)
    tablet.goto(f"{url}/trias/g/{game.id}?t={game.table_secret}")
    move(app, game, trias.legal_actions(game.state)[0])
    wait_seq(tablet, 2)
    undo = tablet.locator("#undo")
    label = undo.inner_text()
    undo.dblclick()  # a double tap arms the button and is over before anyone has read the question
    sync_api.expect(undo).not_to_have_text(label, timeout=WAIT)
    sync_api.expect(undo).to_have_text(label, timeout=WAIT)  # unarmed again after a few seconds
    assert game.last_seq == 2


def test_after_a_draw_the_board_and_the_phone_offer_no_undo_and_say_why(server, pages):
    app, url = server
    game = app.extensions["trias_games"].create(seats=TWO, seed=5)
    while game.state.phase == "place":
        move(app, game, trias.legal_actions(game.state)[0])
    seat = game.state.current
    board, phone = pages(TABLET), pages(PHONE, is_mobile=True)
    board.goto(f"{url}/trias/g/{game.id}?t={game.table_secret}")
    phone.goto(f"{url}/trias/s/{game.seats[seat]['token']}")
    move(app, game, next(c for c in trias.legal_actions(game.state) if c["type"] == "draw"))
    for page in (board, phone):
        wait_seq(page, game.last_seq)
        sync_api.expect(page.locator("#undo-why")).to_have_text(FRENCH, timeout=WAIT)
    sync_api.expect(board.locator("#undo")).to_be_disabled()
    sync_api.expect(phone.locator("#undo")).to_be_hidden()


def test_a_computer_seat_is_named_by_its_level_until_someone_names_it(server, pages):
    _, url = server
    page = pages(TABLET)
    page.goto(url + "/trias/")
    second = page.locator("#seats li:nth-child(2)")
    name = second.locator("[name=name]")
    sync_api.expect(name).to_have_value("Ordinateur · facile", timeout=WAIT)
    second.locator("[name=level]").select_option("hard")
    sync_api.expect(name).to_have_value("Ordinateur · difficile")
    page.click("#add-seat")
    third = page.locator("#seats li:nth-child(3)")
    third.locator("[name=kind]").select_option("computer")
    third.locator("[name=level]").select_option("hard")
    sync_api.expect(third.locator("[name=name]")).to_have_value("Ordinateur · difficile 2")
    second.locator("[name=kind]").select_option("human")
    sync_api.expect(name).to_have_value("Place 2")  # a person again: the person's default
    name.fill("Robotine")
    second.locator("[name=kind]").select_option("computer")
    sync_api.expect(name).to_have_value("Robotine")  # typed: a default never overwrites a name
    page.click("#create")
    page.wait_for_url("**/trias/g/*", timeout=WAIT)
    game = server[0].extensions["trias_games"].get(page.url.rsplit("/", 1)[1].split("?")[0])
    assert [s["name"] for s in game.seats] == ["Place 1", "Robotine", "Ordinateur · difficile"]
