"""On a phone the console's result banner lay over the resource buttons.

The console on a phone scrolls inside its body, which ends where the banner's strip begins while the
banner shows (static/css/terrabank.css, static/js/banner_place.js): the buttons never move when it
comes (a second tap lands where the first did), no part of a button that shows lies under it, and
every button can still be scrolled into full view above it. Checked over phone sizes, French and
English, the game day's six long emoji team names (a taller banner), and the resource grid scrolled
high, midway and to the screen's bottom, tapping a button of that part.

Needs Playwright and Debian's Chromium; skipped without them.
"""

from __future__ import annotations

import logging
import re

import pytest

from needs import module, needs  # noqa: E402
sync_api = module("playwright.sync_api")  # a stand-in without Playwright: pytestmark skips the tests
from browserkit import choose_language, log_in_to, serve_in_thread  # noqa: E402
from print_names_kit import GAME_DAY_NAMES, IDS, config_text_with_teams  # noqa: E402

pytestmark = needs("playwright", "chromium")
expect = sync_api.expect
PHONES = [{"width": 320, "height": 568}, {"width": 360, "height": 640}, {"width": 360, "height": 740},
          {"width": 412, "height": 915}]
GRID = '[data-panel="harvest"] .res-btn'

# Every control's part that shows (cut by each box that clips it and by the screen), the banner's box,
# and the resource buttons' boxes as laid out (not cut): what a tap may change.
MEASURE = """() => {
    const banner = document.getElementById('banner'), b = banner.getBoundingClientRect();
    const shown = el => {
        const r = el.getBoundingClientRect();
        let box = [r.left, r.top, r.right, r.bottom];
        for (let p = el.parentElement; p; p = p.parentElement) {
            if (!/(auto|scroll|hidden|clip)/.test(getComputedStyle(p).overflowY)) continue;
            const c = p.getBoundingClientRect();
            box = [Math.max(box[0], c.left), Math.max(box[1], c.top), Math.min(box[2], c.right), Math.min(box[3], c.bottom)];
        }
        return [Math.max(box[0], 0), Math.max(box[1], 0), Math.min(box[2], innerWidth), Math.min(box[3], innerHeight)];
    };
    const controls = Array.from(document.querySelectorAll('button, a[href], input, select, textarea, [role="button"]'))
        .filter(el => !banner.contains(el) && el.getClientRects().length)
        .map(el => [el.id || el.dataset.resource || el.dataset.team || el.textContent.trim().slice(0, 20), shown(el)]);
    const body = document.body;
    return {banner: [b.left, b.top, b.right, b.bottom], controls,
            body: [body.scrollTop, body.scrollHeight, body.clientHeight, document.scrollingElement.scrollTop],
            grid: Array.from(document.querySelectorAll('""" + GRID + """')).map(el => {
                const r = el.getBoundingClientRect(); return [r.left, r.top, r.right, r.bottom]; }),
            grid_shown: Array.from(document.querySelectorAll('""" + GRID + """')).map(shown)};
}"""


# The body's room for the banner is its height as shown (banner_place.js): the layout has settled.
ROOM_SETTLED = """() => { const b = document.getElementById('banner');
    const room = parseFloat(document.body.style.getPropertyValue('--banner-room') || '0');
    return b.classList.contains('hidden') || getComputedStyle(b).position !== 'fixed'
        || Math.abs(room - (Math.ceil(b.getBoundingClientRect().height) + 12)) < 1; }"""


def _area(a, b) -> float:
    """The area two boxes share (0 when they only touch or one is empty)."""
    return max(0.0, min(a[2], b[2]) - max(a[0], b[0])) * max(0.0, min(a[3], b[3]) - max(a[1], b[1]))


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    from bank.web import create_app

    folder = tmp_path_factory.mktemp("phone-banner")
    config = folder / "config.toml"
    config.write_text(config_text_with_teams(GAME_DAY_NAMES), encoding="utf-8")
    logging.getLogger("werkzeug").setLevel(logging.ERROR)
    app = create_app({"DB": str(folder / "game.db"), "CONFIG": str(config), "PASSWORD_HASH": "pbkdf2:sha256:1000"})
    app.extensions["terrabank"].access.add_user("lea", "password1", "lead")
    app.extensions["terrabank"].bank.execute({"id": "started", "type": "start_clock"})
    url, _ = serve_in_thread(app)
    return app, url


@pytest.mark.parametrize("lang", ["fr", "en"])
@pytest.mark.parametrize("phone", PHONES, ids=lambda p: f"{p['width']}x{p['height']}")
def test_the_banner_covers_no_button_and_every_button_stays_in_reach(chromium, server, phone, lang):
    app, url = server
    bank = app.extensions["terrabank"].bank
    context = chromium.new_context(viewport=phone, has_touch=True, is_mobile=True)
    errors = []
    page = context.new_page()
    page.on("pageerror", lambda error: errors.append(str(error)))
    try:
        choose_language(context, url, lang)  # kept by the log-in: the console opens in it, loaded once
        log_in_to(page, url, "/console")
        expect(page.locator("#conn-badge")).to_have_class(re.compile("badge-live"))
        assert page.evaluate("document.documentElement.lang") == lang
        # The grid's first button high on the screen, the grid midway, and the grid's last button at the bottom.
        height = phone["height"]
        for step, (team, where, tap) in enumerate([(IDS[0], 40, 0), (IDS[3], height // 3, 2), (IDS[5], None, 4)]):
            page.locator(f'#team-picker [data-team="{team}"]').first.click()
            page.click('#tabs [data-tab="harvest"]')
            _hide_banner(page)
            page.evaluate("""([grid, y]) => { const all = document.querySelectorAll(grid);
                const target = y === null ? innerHeight - 8 - all[all.length - 1].getBoundingClientRect().bottom
                                          : all[0].getBoundingClientRect().top - y;
                let s = all[0].parentElement;  // whatever scrolls the console: on a phone its body
                while (s && !(s.scrollHeight > s.clientHeight && /(auto|scroll)/.test(getComputedStyle(s).overflowY))) s = s.parentElement;
                (s || document.scrollingElement).scrollBy(0, y === null ? -target : target); }""", [GRID, where])
            before = page.evaluate(MEASURE)
            seq = bank.last_seq
            page.locator(GRID).nth(tap).tap()
            expect(page.locator("#banner")).to_have_class(re.compile("banner-ok"))
            assert bank.last_seq == seq + 1
            page.wait_for_function(ROOM_SETTLED)  # the strip's room follows the banner's size (a ResizeObserver)
            after = page.evaluate(MEASURE)
            state = (phone, lang, step)
            banner = after["banner"]
            assert 0 <= banner[1] and banner[3] <= height, ("the banner is off the screen", state, banner)
            covered = [(name, box) for name, box in after["controls"] if _area(box, banner) > 0]
            assert not covered, ("under the banner", state, banner, covered)
            assert after["grid"] == before["grid"], ("the buttons moved", state)
            for i in range(5):  # each resource button can be brought into full view above the banner
                box, shown, seen = _scrolled_to(page, i)
                assert all(abs(a - b) < 0.5 for a, b in zip(box, shown)), ("cannot be seen whole", state, i, box, shown, seen["body"])
                assert _area(box, seen["banner"]) == 0, ("under the banner once scrolled to", state, i)
    finally:
        context.close()
    assert not errors, errors


def _scrolled_to(page, i: int) -> tuple:
    """Button i scrolled into view as a thumb would bring it: (its box, the part of it shown, the measures).
    Tried again while the banner's room is still following the banner's size (a late line of text)."""
    for _ in range(10):
        page.wait_for_function(ROOM_SETTLED)
        page.locator(GRID).nth(i).evaluate("el => el.scrollIntoView({block: 'nearest'})")
        page.evaluate("() => new Promise(done => requestAnimationFrame(() => requestAnimationFrame(done)))")
        seen = page.evaluate(MEASURE)
        box, shown = seen["grid"][i], seen["grid_shown"][i]
        if all(abs(a - b) < 0.5 for a, b in zip(box, shown)):
            break
        page.wait_for_timeout(200)
    return box, shown, seen


def _hide_banner(page) -> None:
    """The last result's banner put away, as its own timer does: the next tap starts from no banner."""
    page.evaluate("() => { const b = document.getElementById('banner'); if (!b.classList.contains('hidden')) b.classList.add('hidden'); }")
    page.wait_for_timeout(100)
