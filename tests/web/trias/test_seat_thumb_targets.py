"""Targets a thumb can hit on a seat's phone, in real Chromium at 360x740.

A 4-player game was played on a phone by tapping: hexes had a median of 35.9 px (29.7 px at
least), the 5-player map 32.9 px, the herd counters about 12 px; once zoomed, the - and +
buttons sat under the board, off screen. A tap on a tile holding the player's herd lit its herd
moves and some 25 drift places in one colour, and the confirm said "(3 points)", which reads
like points of the score. Here every place a tap starts or ends a move at, and every herd of the
player, is measured on the screen (at least 44 px, and a thumb's contact round its middle lands
on it), the zoom controls stay in view, and one tap lights one kind of move, named with its
cost in action points.

Needs Playwright's Python package and Debian's Chromium (skipped without them).
"""

from __future__ import annotations

import os
import random
import re
import tempfile
from pathlib import Path

import pytest

from needs import module, needs  # noqa: E402
sync_api = module("playwright.sync_api")  # a stand-in without Playwright: pytestmark skips the tests
from browserkit import CHROMIUM  # noqa: E402,F401
from test_browser_trias import PHONE, WAIT, pages, seq_of, server, wait_seq  # noqa: E402,F401
from test_browser_trias_board import tap  # noqa: E402

import trias  # noqa: E402

pytestmark = needs("playwright", "chromium")

TOUCH = {"is_mobile": True, "has_touch": True}
THUMB = 44  # px: the smallest target a thumb hits without a second try (WCAG 2.5.5, Apple's 44 pt)
BUTTON = 48  # px: the height of a button
SHOTS = Path(os.environ.get("TRIAS_SHOTS") or tempfile.mkdtemp(prefix="trias-thumb-"))
SHOTS.mkdir(parents=True, exist_ok=True)

# For each place: its hex scrolled into view as a finger would bring it, its size on the screen,
# and where a thumb's contact lands: the middle and 8 points 18 px round it must reach that place
# (not a neighbour, not a button or the bar laid over it).
MEASURE = """keys => keys.map(key => {
    const hex = document.querySelector(`#board .base [data-place="${key}"] > polygon`);
    hex.scrollIntoView({block: 'center', inline: 'center'});
    const r = hex.getBoundingClientRect(), x = r.left + r.width / 2, y = r.top + r.height / 2;
    const herd = document.querySelector(`#board .herds[data-place="${key}"]`);
    const h = herd ? herd.getBoundingClientRect() : null;
    const missed = [];
    for (let i = -1; i < 8; i++) {
        const a = i * Math.PI / 4, px = i < 0 ? x : x + 18 * Math.cos(a), py = i < 0 ? y : y + 18 * Math.sin(a);
        const hit = document.elementFromPoint(px, py), at = hit && hit.closest('[data-place]');
        if (!at || at.dataset.place !== key || !hit.closest('#board')) missed.push(i);
    }
    return {key, w: r.width, h: r.height, herd: h && {w: h.width, h: h.height}, missed};
})"""


def game_of(app, players: int, seed: int):
    return app.extensions["trias_games"].create(seats=[{"name": f"P{i + 1}", "kind": "human"} for i in range(players)], seed=seed)


def open_seat(pages, url, game, seat: int):
    phone = pages(PHONE, **TOUCH)
    phone.goto(f"{url}/trias/s/{game.seats[seat]['token']}")
    wait_seq(phone, game.last_seq)
    phone.wait_for_timeout(100)  # fonts and layout settled
    return phone


def marked(page, kind: str) -> list:
    return page.evaluate(f"() => [...document.querySelectorAll('#board .mark-{kind}')].map(n => n.dataset.place)")


def measure(page, keys) -> list:
    return page.evaluate(MEASURE, sorted(set(keys)))


def too_small(found: list) -> list:
    """The places a thumb may miss: under 44 px, or its contact lands elsewhere; herds measured by their tap target."""
    bad = [m for m in found if min(m["w"], m["h"]) < THUMB or m["missed"]]
    bad += [m for m in found if m["herd"] and min(m["herd"]["w"], m["herd"]["h"]) < THUMB]
    return bad


def in_view(page, selector: str) -> bool:
    """Inside the window and not covered by anything at its middle."""
    return page.locator(selector).evaluate("""node => {
        const r = node.getBoundingClientRect();
        if (!r.width || r.top < 0 || r.left < 0 || r.bottom > innerHeight || r.right > innerWidth) return false;
        const hit = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
        return !!hit && (hit === node || node.contains(hit));
    }""")


def to_actions_with_both_kinds(game, rng):
    """Moves drawn at random until the seat to play is in phase 2 (T12) with a tile holding its herd
    from which both a herd may move and the tile may drift: that tile."""
    while game.state.phase != "over":
        legal = trias.legal_actions(game.state)
        if game.state.phase == "actions":
            moves = {tuple(c["from"]) for c in legal if c["type"] == "move"}
            drifts = {tuple(c["tile"]) for c in legal if c["type"] == "drift"}
            both = sorted(moves & drifts)
            if both:
                return both[0]
            command = next(c for c in legal if c["type"] == "end_turn")
        else:
            command = rng.choice(legal)
        game.execute(command, f"r{game.last_seq}", f"seat:{game.state.current}")
    raise AssertionError("no such position in this game")


@pytest.mark.parametrize("players,seed", [(4, 12), (5, 4)], ids=["4-players", "5-players"])
def test_every_place_and_herd_a_phone_taps_is_at_least_44_px(server, pages, players, seed):
    app, url = server
    game = game_of(app, players, seed)
    phone = open_seat(pages, url, game, game.state.current)
    # Placing herds (T8): every vacant tile is lit.
    placing = marked(phone, "target")
    assert len(placing) == sum(1 for p in game.state.tiles if not game.state.total(p))  # every vacant tile (T8)
    found = measure(phone, placing)
    phone.screenshot(path=str(SHOTS / f"seat-placing-{players}p.png"))
    assert not too_small(found), sorted(too_small(found), key=lambda m: m["w"])[:5]
    # Phase 2 (T12): every piece that may start a move, every herd of the seat, and every place a piece may go.
    tile = to_actions_with_both_kinds(game, random.Random(seed))
    seat = game.state.current
    phone = open_seat(pages, url, game, seat)
    starts = marked(phone, "soft")
    herds = [f"{p[0]},{p[1]}" for p, counts in game.state.herds.items() if counts[seat]]
    assert starts and herds
    found = measure(phone, starts + herds)
    assert all(m["herd"] for m in found if m["key"] in herds)
    assert not too_small(found), sorted(too_small(found), key=lambda m: m["w"])[:5]
    key = f"{tile[0]},{tile[1]}"
    tap(phone, key)
    phone.wait_for_function(f"() => !!document.querySelector('#board .mark-selected[data-place=\"{key}\"]')", timeout=WAIT)
    found = measure(phone, marked(phone, "target"))
    phone.screenshot(path=str(SHOTS / f"seat-actions-{players}p.png"))
    assert found and not too_small(found), sorted(too_small(found), key=lambda m: m["w"])[:5]


def test_the_zoom_controls_stay_in_view_and_are_48_px(server, pages):
    app, url = server
    game = game_of(app, 5, 4)
    phone = open_seat(pages, url, game, game.state.current)
    controls = ("#zoom-in", "#zoom-out")
    for _ in range(4):  # zoomed in as far as it goes
        if phone.locator("#zoom-in").is_disabled():
            break
        phone.click("#zoom-in")
    sync_api.expect(phone.locator("#zoom-in")).to_be_disabled()
    # Panned to each corner of the board: the controls are where they were, on the screen.
    for corner in ("0, 0", "1e6, 1e6", "1e6, 0", "0, 1e6"):
        phone.evaluate(f"() => document.querySelector('.trias-pan').scrollTo({corner})")
        for selector in controls:
            assert in_view(phone, selector), (selector, corner)
            box = phone.locator(selector).bounding_box()
            assert box["height"] >= BUTTON - 0.5 and box["width"] >= BUTTON - 0.5, (selector, box)
    phone.screenshot(path=str(SHOTS / "seat-zoomed-in-5p.png"))
    phone.click("#zoom-out")
    for selector in controls:
        assert in_view(phone, selector), selector
    # The confirm's buttons, and the list's toggle under the board: 48 px high too.
    tap(phone, marked(phone, "target")[0])
    sync_api.expect(phone.locator("#actionbar [data-act=confirm]")).to_be_visible(timeout=WAIT)
    buttons = phone.locator("#actionbar .btn:visible, #moves-toggle")
    assert buttons.count() >= 3
    for i in range(buttons.count()):
        assert buttons.nth(i).bounding_box()["height"] >= BUTTON - 0.5, buttons.nth(i).inner_text()


BARE_POINTS = re.compile(r"\bpoints?\b(?! d'action)")


def test_t12_one_tap_lights_one_kind_of_move_named_with_its_action_points(server, pages):
    app, url = server
    game = game_of(app, 4, 12)
    tile = to_actions_with_both_kinds(game, random.Random(12))
    key = f"{tile[0]},{tile[1]}"
    legal = trias.legal_actions(game.state)
    steps = sorted({f"{c['to'][0]},{c['to'][1]}" for c in legal if c["type"] == "move" and tuple(c["from"]) == tile}
                   | ({key} if any(c["type"] == "reproduce" and tuple(c["at"]) == tile for c in legal) else set()))
    drifts = sorted({f"{c['to'][0]},{c['to'][1]}" for c in legal if c["type"] == "drift" and tuple(c["tile"]) == tile})
    phone = open_seat(pages, url, game, game.state.current)
    before = seq_of(phone)
    tap(phone, key)
    phone.wait_for_function(f"() => !!document.querySelector('#board .mark-selected[data-place=\"{key}\"]')", timeout=WAIT)
    # The first tap: the herd's moves only, in their own colour, and the bar says what they cost.
    assert sorted(marked(phone, "target")) == steps
    assert phone.locator("#board .mark-target.mark-drift").count() == 0
    bar = phone.locator("#bar-text")
    sync_api.expect(bar).to_contain_text("1 point d'action")
    assert not BARE_POINTS.search(bar.inner_text()), bar.inner_text()
    phone.screenshot(path=str(SHOTS / "seat-one-kind-herd.png"))
    # The bar offers the other kind: the tile's drifts, 3 action points (T12), lit in another colour.
    switch = phone.locator("#actionbar [data-act=kind]")
    sync_api.expect(switch).to_contain_text("3 points d'action")
    herd_colour = phone.locator("#board .mark-target").first.evaluate("n => getComputedStyle(n).stroke")
    switch.click()
    sync_api.expect(phone.locator("#board .mark-target.mark-drift").first).to_be_attached(timeout=WAIT)
    assert sorted(marked(phone, "target")) == drifts
    assert phone.locator("#board .mark-target:not(.mark-drift)").count() == 0
    assert phone.locator("#board .mark-target").first.evaluate("n => getComputedStyle(n).stroke") != herd_colour
    sync_api.expect(bar).to_contain_text("3 points d'action")
    assert not BARE_POINTS.search(bar.inner_text()), bar.inner_text()
    phone.screenshot(path=str(SHOTS / "seat-one-kind-drift.png"))
    # The confirm of a drift bought in phase 2 names action points, never bare points.
    tap(phone, drifts[0])
    confirm = phone.locator("#actionbar [data-act=confirm]").first
    sync_api.expect(confirm).to_be_visible(timeout=WAIT)
    sync_api.expect(bar).to_contain_text("3 points d'action")
    assert not BARE_POINTS.search(bar.inner_text()), bar.inner_text()
    phone.screenshot(path=str(SHOTS / "seat-confirm-drift.png"))
    confirm.click()
    wait_seq(phone, before + 1)
    assert game.state.tiles.get(tuple(map(int, drifts[0].split(",")))) is not None
