"""Board-first play on a seat's phone (issue 26 item 1), in real Chromium on 360x740 and 412x915.

The phone was played like a developer's move panel: a scroll box of 30+ buttons such as "Play
the card: drift -3,3 to 4,-2" above the board, "End the turn" scrolled out of view after a phase
change, an interim scoring (T16) announced as coordinates. Now a player taps a herd or a tile, its
legal places light up, taps one, confirms on one line; the next action sits in a bar that no phase
change scrolls away; a scored land mass is lit on the board with each scorer's +2 / +1.

Needs Playwright's Python package and Debian's Chromium (skipped without them). Waits are on what
the page shows (its journal number, its phase, its marks), never on fixed times.
"""

from __future__ import annotations

import random
import re

from needs import module, needs  # noqa: E402
sync_api = module("playwright.sync_api")  # a stand-in without Playwright: pytestmark skips the tests
from browserkit import CHROMIUM  # noqa: E402,F401
# The app on 127.0.0.1 with its computer player, and pages that fail the test on a script error.
from test_browser_trias import PHONE, WAIT, pages, seq_of, server, wait_seq  # noqa: E402,F401

import trias  # noqa: E402

pytestmark = needs("playwright", "chromium")

BIG_PHONE = {"width": 412, "height": 915}
TV = {"width": 1920, "height": 1080}
COORDS = re.compile(r"-?\d+,-?\d+")
TOUCH = {"is_mobile": True, "has_touch": True}


def tap(page, key: str) -> None:
    """A finger on the middle of the hex at `key` ("q,r"), scrolled into view as a person would."""
    hexagon = page.locator(f'#board .base [data-place="{key}"] > polygon:first-child')
    hexagon.evaluate("node => node.scrollIntoView({block: 'center', inline: 'center'})")
    box = hexagon.bounding_box()
    page.touchscreen.tap(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)


def marked(page, kind: str) -> list:
    """The places the board lights now: kind is target (where it may go), soft (what may start), pending, selected."""
    return page.evaluate(f"() => [...document.querySelectorAll('#board .mark-{kind}')].map(n => n.dataset.place)")


def bar_button(page, selector: str):
    return page.locator(f"#actionbar {selector}")


def in_view(page, locator) -> bool:
    """Whether a person sees it: inside the window and not covered by anything at its middle."""
    return locator.evaluate("""node => {
        const r = node.getBoundingClientRect();
        if (!r.width || r.top < 0 || r.left < 0 || r.bottom > innerHeight || r.right > innerWidth) return false;
        const hit = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
        return !!hit && (hit === node || node.contains(hit));
    }""")


def confirm(page) -> None:
    """The one-line confirm: the move's sentence and its button, then wait for the move to land."""
    before = seq_of(page)
    button = bar_button(page, "[data-act=confirm]").first
    sync_api.expect(button).to_be_visible(timeout=WAIT)
    assert in_view(page, button)
    button.click()
    wait_seq(page, before + 1)


def tap_a_move(page, land_only: bool = False) -> bool:
    """Tap a lit piece, then one of its lit places; False if nothing lit goes anywhere (land_only: onto a tile)."""
    tiles = set(page.evaluate("() => [...document.querySelectorAll('#board .base .tile')].map(n => n.dataset.place)"))
    for start in marked(page, "soft"):
        tap(page, start)
        page.wait_for_function(f"() => !!document.querySelector('#board .mark-selected[data-place=\"{start}\"]')", timeout=WAIT)
        targets = [t for t in marked(page, "target") if t != start and (t in tiles or not land_only)]
        if targets:
            tap(page, targets[0])
            sync_api.expect(bar_button(page, "[data-act=confirm]").first).to_be_visible(timeout=WAIT)
            assert marked(page, "pending") == [targets[0]]  # the board shows where it goes while the bar asks
            return True
        tap(page, start)  # tapped again: let go
    return False


def test_issue26_a_whole_game_on_a_360_phone_only_by_tapping_the_board(server, pages):
    app, url = server
    game = app.extensions["trias_games"].create(seats=[{"name": "Ana", "kind": "human"},
                                                       {"name": "Ordi", "kind": "computer", "level": "random"}], seed=7)
    phone = pages(PHONE, **TOUCH)
    phone.goto(f"{url}/trias/s/{game.seats[0]['token']}")
    wait_seq(phone, game.last_seq)
    width = phone.evaluate("() => document.querySelector('#board').getBoundingClientRect().width")
    assert width >= PHONE["width"] - 1  # the board fills the phone's width
    board_top = phone.evaluate("() => document.querySelector('#board').getBoundingClientRect().top")
    for above in ("#hand", "#turn"):  # the card and the turn above the board
        assert phone.evaluate(f"() => document.querySelector('{above}').getBoundingClientRect().bottom") <= board_top
    seen = set()
    for _ in range(300):
        phone.wait_for_function("() => document.body.dataset.phase === 'over' || document.body.dataset.myturn === '1'", timeout=WAIT)
        wait_seq(phone, game.last_seq)
        phase = phone.evaluate("() => document.body.dataset.phase")
        if phase == "over":
            break
        assert phone.locator("#moves-panel").is_hidden()  # the list is never opened
        seen.add(phase)
        if phase == "place":
            targets = marked(phone, "target")
            assert len(targets) == sum(1 for p in game.state.tiles if not game.state.total(p))  # every vacant tile lit (T8)
            tap(phone, targets[len(seen) % len(targets)])
            confirm(phone)
        elif phase in ("start", "drift"):
            if tap_a_move(phone):
                confirm(phone)
                seen.add(phase + ":drift")
            else:  # no drift with this card (T11): the bar says what is left
                before = seq_of(phone)
                bar_button(phone, "[data-act=command]").first.click()
                wait_seq(phone, before + 1)
        else:
            end = bar_button(phone, "[data-act=command][data-type=end_turn]")
            assert in_view(phone, end)  # the next required action is on screen, whatever was scrolled
            if game.state.ap >= 1 and "moved" not in seen and tap_a_move(phone, land_only=True):
                confirm(phone)
                seen.add("moved")
                continue
            before = seq_of(phone)
            end.click()
            wait_seq(phone, before + 1)
    assert game.state.phase == "over"
    assert {"place", "start", "actions", "start:drift", "moved"} <= seen, seen
    assert phone.locator("#moves-panel").is_hidden()
    sync_api.expect(phone.locator("#end-panel")).to_be_visible(timeout=WAIT)
    winners = [game.seats[s]["name"] for s in game.state.result["winners"]]
    sync_api.expect(phone.locator(".trias-winner")).to_contain_text(winners[0])
    sync_api.expect(phone.locator("#actionbar")).to_be_hidden()
    assert phone.evaluate("() => document.documentElement.scrollWidth <= window.innerWidth")
