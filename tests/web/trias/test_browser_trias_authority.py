"""Trias authority in real Chromium: what a stranger's browser, the table's, a seat's phone
and the lead's admin page each show and may do.

A game id alone opens the public, read-only board (no seat link, no QR code, no button); the
table's link is kept by its device (a reload works); a wrong link says what to do; a phone undoes
only its own last move. Needs Playwright and Debian's Chromium (skipped without them).
"""

from __future__ import annotations

import re

import pytest

from needs import module, needs  # noqa: E402
sync_api = module("playwright.sync_api")  # a stand-in without Playwright: pytestmark skips the tests
from browserkit import CHROMIUM  # noqa: E402,F401

from test_browser_trias import PHONE, TABLET, WAIT, pages, server, wait_seq  # noqa: E402,F401

pytestmark = needs("playwright", "chromium")
SEAT_LINK = re.compile(r"/trias/s/[A-Za-z0-9_-]{10,}")


def start_game(page, url: str) -> str:
    """Start a game of two people from the start page, as the table's tablet does; its id."""
    page.goto(url + "/trias/")
    page.locator("#seats li:nth-child(2) [name=kind]").select_option("human")
    page.click("#create")
    page.wait_for_url(re.compile(r".*/trias/g/[a-z0-9]+$"), timeout=WAIT)
    return page.url.rsplit("/", 1)[1]


def test_a_stranger_sees_the_board_without_links_or_buttons_and_no_list_of_games(server, pages):
    app, url = server
    tablet = pages(TABLET)
    game_id = start_game(tablet, url)
    sync_api.expect(tablet.locator(".trias-qr img")).to_have_count(2, timeout=WAIT)  # the table shows the seats' codes
    sync_api.expect(tablet.locator("#undo")).to_be_attached()
    stranger = pages(PHONE, is_mobile=True)
    stranger.goto(f"{url}/trias/g/{game_id}")
    wait_seq(stranger, 1)
    sync_api.expect(stranger.locator("#public-view")).to_be_visible()
    for absent in (".trias-qr", "#undo", "#rematch", "#join"):
        sync_api.expect(stranger.locator(absent)).to_have_count(0)
    assert not SEAT_LINK.search(stranger.content())
    game = app.extensions["trias_games"].get(game_id)
    assert not any(s["token"] in stranger.content() for s in game.seats) and game.table_secret not in stranger.content()
    stranger.goto(url + "/trias/")
    sync_api.expect(stranger.locator("#games")).to_contain_text("Aucune partie sur cet appareil", timeout=WAIT)
    assert stranger.locator(f'#games a[href$="{game_id}"]').count() == 0
    tablet.goto(url + "/trias/")
    sync_api.expect(tablet.locator(f'#games a[href$="/trias/g/{game_id}"]')).to_have_count(1, timeout=WAIT)


def test_the_table_link_opens_once_then_a_reload_works_and_a_wrong_one_says_what_to_do(server, pages):
    app, url = server
    game = app.extensions["trias_games"].create(seats=[{"name": "Ana", "kind": "human"}, {"name": "Bo", "kind": "human"}])
    tv = pages(TABLET)
    tv.goto(f"{url}/trias/g/{game.id}?t={game.table_secret}")
    assert "?t=" not in tv.url  # the secret does not stay in the address bar
    sync_api.expect(tv.locator(".trias-qr img")).to_have_count(2, timeout=WAIT)
    tv.reload()
    sync_api.expect(tv.locator(".trias-qr img")).to_have_count(2, timeout=WAIT)
    other = pages(PHONE, is_mobile=True)
    reply = other.goto(f"{url}/trias/g/{game.id}?t=an-old-link-of-another-game")
    assert reply.status == 403
    sync_api.expect(other.locator("#wrong-link")).to_contain_text("Demandez à la table un nouveau lien")
    other.click("#wrong-link a >> nth=0")  # "watch the game": the public view, nothing kept
    sync_api.expect(other.locator("#public-view")).to_be_visible(timeout=WAIT)
    assert game.last_seq == 1


def test_a_phone_undoes_its_own_last_move_and_never_another_seats(server, pages):
    app, url = server
    game = app.extensions["trias_games"].create(seats=[{"name": "Ana", "kind": "human"}, {"name": "Bo", "kind": "human"}],
                                                seed=3)
    ana, bo = pages(PHONE, is_mobile=True), pages(PHONE, is_mobile=True)
    for phone, seat in ((ana, 0), (bo, 1)):
        phone.goto(f"{url}/trias/s/{game.seats[seat]['token']}")
        wait_seq(phone, 1)
    ana.click("#moves-toggle")  # the list of moves, behind its toggle
    ana.locator("#moves button").first.click()
    wait_seq(ana, 2)
    wait_seq(bo, 2)
    sync_api.expect(ana.locator("#undo")).to_be_visible(timeout=WAIT)
    sync_api.expect(bo.locator("#undo")).to_be_hidden()
    ana.click("#undo")  # the page's own second tap asks, never a dialog
    sync_api.expect(ana.locator("#undo")).to_contain_text("Touchez encore", timeout=WAIT)
    ana.wait_for_timeout(800)
    ana.click("#undo")
    wait_seq(ana, 3)
    assert game.state.turn == 0 and game.table.moves == () and game.state.current == 0
    sync_api.expect(ana.locator("#undo")).to_be_hidden(timeout=WAIT)


def test_the_lead_finds_every_game_with_its_table_link_on_the_admin_page(server, pages):
    app, url = server
    app.extensions["terrabank"].access.add_user("trias-lead", "correct horse", "lead")
    game = app.extensions["trias_games"].create(seats=[{"name": "Ana", "kind": "human"}, {"name": "Bo", "kind": "human"}])
    lead = pages(TABLET)
    lead.goto(url + "/login")
    lead.fill("#username", "trias-lead")
    lead.fill("#password", "correct horse")
    lead.click("#login-submit")
    lead.wait_for_url(re.compile(r".*/console$"), timeout=WAIT)
    app.config["PHONE_BASE"] = url  # links name the address phones use; here, this test server's
    try:
        lead.goto(url + "/admin")
        line = lead.locator(f'#trias-admin-list li[data-game="{game.id}"]')
        sync_api.expect(line).to_contain_text(f"{url}/trias/g/{game.id}?t={game.table_secret}", timeout=WAIT)
    finally:
        app.config.pop("PHONE_BASE", None)
    with lead.context.expect_page() as opened:
        line.locator("a").click()
    table = opened.value
    sync_api.expect(table.locator(".trias-qr img")).to_have_count(2, timeout=WAIT)
