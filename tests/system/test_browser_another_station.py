"""Another station books while a facilitator is half-way through something on the console.

Four stations book for the same four teams all game. The console redraws its open panel when what the
panel shows changed; a redraw used to make the panel afresh: the amounts a facilitator had typed for a
trade, an exchange or track steps went back to 0 whenever any station booked for the team shown (for a
trade, for any team), and a "harvest again?" question went, so the answer tap asked again. Now what the
facilitator has started is kept across a redraw (static/js/console.js), capped at what the team holds.

Needs Playwright and Debian's Chromium; skipped without them.
"""

from __future__ import annotations

import re

import pytest

from needs import module, needs  # noqa: E402
sync_api = module("playwright.sync_api")  # a stand-in without Playwright: pytestmark skips the tests
from browserkit import log_in_to, page_opener, started_bank  # noqa: E402

pytestmark = needs("playwright", "chromium")
expect = sync_api.expect


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    app, url = started_bank(tmp_path_factory.mktemp("another_station"))
    for team in ("blue", "red", "green", "yellow"):  # tokens to trade and raise tracks with
        app.extensions["terrabank"].bank.execute({"id": f"count-{team}", "type": "inventory", "team": team, "reason": "count",
                                                  "counted": {"water": 9, "energy": 9, "dioxygen": 9, "flora": 9}})
    return app, url


@pytest.fixture
def console(chromium, server):
    """The console under test, and another station's console (its own log-in) that books beside it."""
    app, url = server
    with page_opener(chromium) as open_page:
        pages = []
        for _ in range(2):
            page = open_page(viewport={"width": 1280, "height": 720})
            log_in_to(page, url, "/console")
            expect(page.locator("#conn-badge")).to_have_class(re.compile("badge-live"))
            pages.append(page)
        yield app, pages[0], pages[1]


def pick(page, team: str, tab: str):
    page.locator(f'#team-picker [data-team="{team}"]').first.click()
    page.click(f'#tabs [data-tab="{tab}"]')


def amount(panel, resource: str):
    return panel.locator(f'.amount-row[data-resource="{resource}"] input')


def redrawn(page, station, tab: str, command: dict):
    """The other station books `command` through its own page; the page under test has drawn its open panel again."""
    body = f'[data-panel="{tab}"] [data-body]'
    before = page.eval_on_selector(body, "b => b.dataset.print")
    assert station.evaluate("c => TB.command(c).then(r => r.ok)", command), command
    page.wait_for_function("([sel, was]) => document.querySelector(sel).dataset.print !== was", arg=[body, before])


def harvest(team: str, card: str = "harvester-2") -> dict:
    return {"type": "harvest", "team": team, "card": card, "resource": "flora"}


def test_amounts_typed_for_a_trade_stay_when_another_station_books(console):
    app, page, station = console
    pick(page, "blue", "trade")
    panel = page.locator('[data-panel="trade"]')
    gives = panel.locator(".amounts").nth(0)
    takes = panel.locator(".amounts").nth(1)
    amount(gives, "water").fill("2")
    amount(takes, "energy").fill("1")
    amount(takes, "energy").focus()
    redrawn(page, station, "trade", harvest("green"))  # a trade's panel shows every team: any booking redraws it
    redrawn(page, station, "trade", harvest("blue"))   # the merchant's own stock changed
    assert amount(gives, "water").input_value() == "2"
    assert amount(takes, "energy").input_value() == "1"
    assert page.evaluate("document.activeElement.getAttribute('aria-label')") == "Énergie", "the field typed in lost its focus"
    page.keyboard.type("2")  # the tablet's keyboard is still on the field: typing goes on where it was
    assert amount(takes, "energy").input_value() == "12"
    amount(takes, "energy").fill("1")
    seq = app.extensions["terrabank"].bank.last_seq
    panel.locator("button.btn-big").click()
    expect(page.locator("#banner")).to_have_class(re.compile("banner-ok"))
    assert app.extensions["terrabank"].bank.last_seq == seq + 1
    # Booked: the panel starts again from 0, so a second tap cannot book the same trade again.
    expect(amount(gives, "water")).to_have_value("0")
    expect(amount(takes, "energy")).to_have_value("0")


def test_a_harvest_again_question_stays_when_another_station_books_and_its_answer_books(console):
    app, page, station = console
    pick(page, "red", "harvest")
    water = page.locator('[data-panel="harvest"] [data-resource="water"]')
    bank = app.extensions["terrabank"].bank
    water.click()
    expect(page.locator("#banner")).to_have_class(re.compile("banner-ok"))
    page.wait_for_timeout(800)  # past a double tap: the same card again is a question
    start = bank.last_seq
    # The question's 5 s are held open: on a loaded machine the other station's booking and the redraw took
    # longer, and the answer tap found the button itself again (a new question, nothing booked).
    page.evaluate("W.ASK_FOR_MS = 60000")
    water.click()
    expect(water).to_have_text(re.compile(r"Récolté il y a \d+ s : encore \?"))
    redrawn(page, station, "harvest", harvest("red", "harvester-1"))  # the team's stock changed: the panel is drawn again
    expect(water).to_have_text(re.compile(r"Récolté il y a \d+ s : encore \?"))
    assert bank.last_seq == start + 1  # the other station's harvest only
    # An answer within 700 ms of the question is a double tap, not an answer (a fast machine redraws sooner).
    page.wait_for_function("() => { const b = document.querySelector('[data-panel=\"harvest\"] [data-resource=\"water\"]');"
                           " return b && b.dataset.armed && Date.now() - Number(b.dataset.armed) > 800; }")
    water.click()  # the answer, a moment after the question: booked, once
    expect(page.locator("#banner")).to_contain_text(f"écriture {start + 2}")
    assert bank.last_seq == start + 2


def test_track_steps_typed_stay_and_follow_the_tracks_when_another_team_raises_them(console):
    app, page, station = console
    pick(page, "yellow", "tracks")
    panel = page.locator('[data-panel="tracks"]')
    first = panel.locator(".steps-row input").first
    first.fill("2")
    expect(panel.locator(".sum-line")).not_to_have_text("")
    track = panel.locator(".steps-row").first.get_attribute("data-track")
    redrawn(page, station, "tracks", {"type": "raise_tracks", "team": "green", "steps": {track: 1}})
    assert first.input_value() == "2"
    expect(panel.locator(".sum-line")).not_to_have_text("")  # the total follows the kept number
    expect(panel.locator("button.btn-big")).to_be_enabled()
