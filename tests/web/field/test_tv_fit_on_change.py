"""The big screen lays itself out again when what it shows changes, not every second.

Measured before (bench/web/field/tv_fit_cost.py, docs/PERFORMANCE.md): on a crowded screen the fit ran from
scratch every second, dozens of layouts of the whole page a second; at a TV's 6x slower CPU that was
the whole main thread (the clock and the pages in turns late, tasks of 2-3 s). Now a quiet second only
turns the lists' pages, and the screen still fits itself again after a resize, after a new picture and
when a wait ends (its text changes); the lists in turns still flip every 5 s.

The layouts are counted by Chromium (`Performance.getMetrics`: LayoutCount), not timed: a loaded
machine makes fewer ticks, never more layouts a tick. Needs Playwright and Debian's Chromium.
"""

from __future__ import annotations

import copy
import re
import sys
import time
from pathlib import Path

import pytest

from needs import module, needs  # noqa: E402
sync_api = module("playwright.sync_api")  # a stand-in without Playwright: pytestmark skips the tests
from browserkit import serve_in_thread, stop_servers  # noqa: E402

pytestmark = needs("playwright", "chromium")
ROOT = Path(__file__).resolve().parents[3]
sys.path.insert(0, str(ROOT / "bench" / "web" / "field"))
_seq = iter(range(1_000_000, 2_000_000))  # above the real game's: the page keeps the newest picture only


@pytest.fixture(scope="module")
def game(tmp_path_factory):
    """A real game (bench/web/field/tv_fit_cost.py's seed) and its crowded moment: 8 long-named teams, 3 events
    with givers, 12 fighters waiting, 14 bookings."""
    from bank.web import create_app
    from bank.web.field import payloads
    from tv_fit_cost import busy, seed

    folder = tmp_path_factory.mktemp("tvfit")
    app = create_app({"DB": str(folder / "game.db"), "CONFIG": str(ROOT / "config.toml"), "PASSWORD_HASH": "pbkdf2:sha256:1000"})
    seed(app)
    url, _ = serve_in_thread(app)
    ext = app.extensions["terrabank"]
    template = payloads.public(ext.bank, ext.config)
    teams, crowded = busy(template)
    for event in crowded["board"]["events"].values():  # each event fits its panel alone: a fit that has room to give
        event["given"] = dict(list(event["given"].items())[:3])
    yield url, ext.access.display_key(), template, teams, crowded
    stop_servers()
    ext.bank.close()
    ext.access.close()


@pytest.fixture
def screen(chromium, game):
    url, key = game[:2]
    context = chromium.new_context(viewport={"width": 1920, "height": 1080})
    page = context.new_page()
    page.route("**/socket.io/**", lambda route: route.abort())  # the test sends the pictures
    page.goto(f"{url}/display?key={key}")
    page.locator("#standings .standing").first.wait_for()
    yield page
    context.close()


def show(page, teams, picture) -> None:
    page.evaluate("([teams, picture]) => { if (teams) W.config.teams = teams; W.showPicture(picture); }",
                  [teams, {**picture, "seq": next(_seq)}])


def gave_way(page) -> str:
    return page.evaluate("document.body.dataset.fit")


def settled(page, quiet_for: float = 1.0, within: float = 20.0) -> str:
    """What gave way once the screen has made no full fit for `quiet_for` s: on CI's loaded machine the fits after a
    new picture were still going on after the 2.5 s the tests waited, and a test read a fit on its way."""
    deadline, last, since = time.monotonic() + within, None, time.monotonic()
    while time.monotonic() < deadline:
        now = page.evaluate("W.fits || 0")
        if now != last:
            last, since = now, time.monotonic()
        elif time.monotonic() - since >= quiet_for:
            return gave_way(page)
        page.wait_for_timeout(200)
    raise AssertionError(f"the screen was still fitting itself after {within} s ({last} fits)")


def fits(page) -> None:
    trouble = page.evaluate("W.fitTrouble()")
    assert not trouble["left"] and not trouble["right"], trouble


def test_a_quiet_crowded_screen_is_not_laid_out_again_and_again(screen, game):
    """Nothing new for 6 s: a few layouts a second (the clock, the countdowns, a page turning), not a fit's dozens."""
    teams, crowded = game[3:]
    show(screen, teams, crowded)
    screen.wait_for_timeout(2500)  # the first fits are behind (the curve's box comes after the first)
    fits(screen)
    before = gave_way(screen)
    cdp = screen.context.new_cdp_session(screen)
    cdp.send("Performance.enable")
    count = lambda: {m["name"]: m["value"] for m in cdp.send("Performance.getMetrics")["metrics"]}["LayoutCount"]
    ticks = lambda: screen.evaluate("document.getElementById('clock').textContent")
    first, clock0 = count(), ticks()
    screen.wait_for_timeout(6000)
    layouts, clock1 = count() - first, ticks()
    assert clock1 != clock0  # the clock went on meanwhile
    assert layouts <= 6 * 4, f"{layouts} layouts in 6 s of a screen with nothing new"
    assert gave_way(screen) == before
    fits(screen)


def test_the_screen_fits_itself_again_after_a_resize(screen, game):
    teams, crowded = game[3:]
    show(screen, teams, crowded)
    screen.wait_for_timeout(2500)
    before = screen.evaluate("W.fits")
    screen.set_viewport_size({"width": 1280, "height": 720})
    # Fitted again from scratch (what gave way may come out the same: the type is in rem of the window's size,
    # and the givers of the crowded event show in turns at both sizes).
    screen.wait_for_function(f"W.fits > {before}", timeout=10000)
    fits(screen)
    assert screen.evaluate("document.documentElement.scrollHeight <= innerHeight + 1")


def test_a_new_picture_gives_back_what_gave_way(screen, game):
    """From the crowded moment to the game's own (4 teams, an event): the type grows back, the curve shows."""
    template, teams, crowded = game[2:]
    show(screen, teams, crowded)
    screen.wait_for_timeout(2500)
    assert "fit-no-chart" in gave_way(screen)
    show(screen, {t: {"label": row["label"]["fr"], "colour": row["colour"], "resource": "water"}
                  for t, row in ((r["team"], r) for r in template["standings"])}, template)
    sync_api.expect(screen.locator("body")).not_to_have_attribute("data-fit", "fit-no-chart", timeout=10000)
    assert "fit-no-chart" not in gave_way(screen)
    assert screen.locator("#chart").is_visible()
    fits(screen)


def test_waits_that_end_give_back_their_room(screen, game):
    """The game's own picture with 12 fighters waiting 2 s: once their "may go" is gone (8 s), the screen
    has its room back (what the waiting cards took gave way), with no new picture."""
    template = game[2]
    short = copy.deepcopy(template)
    teams = [row["team"] for row in template["standings"]]
    short["cooldowns"] = {t: {card: 2 for card in ("pirate-1", "pirate-2", "harvester-1")} for t in teams}
    show(screen, None, template)
    quiet = settled(screen)
    show(screen, None, short)
    assert screen.locator("#cooldowns .cooldown").count() == 12
    # The fit follows within a moment (the cards show for 8 s): polled, not read at a fixed 1 s.
    sync_api.expect(screen.locator("body")).not_to_have_attribute("data-fit", quiet, timeout=6000)
    sync_api.expect(screen.locator("#cooldowns .cooldown")).to_have_count(0, timeout=30000)
    sync_api.expect(screen.locator("body")).to_have_attribute("data-fit", quiet, timeout=10000)
    fits(screen)


def test_the_lists_in_turns_still_turn_every_5_s(screen, game):
    """The 12 fighters waiting show a page at a time: "1/3", then "2/3" with other fighters, with no new picture."""
    teams, crowded = game[3:]
    show(screen, teams, crowded)
    settled(screen)  # a fit still going on lays the pages out again: "2/3" could then show what "1/3" showed
    marker = screen.locator("#cooldowns").locator("xpath=..").locator("h2 .in-turns")
    shown = "[...document.querySelectorAll('#cooldowns > *')].filter(e => e.style.display !== 'none').map(e => e.dataset.key).join()"
    # A whole round of pages (4 at 5 s each at 1280x720) may pass before the first comes back.
    sync_api.expect(marker).to_have_text(re.compile(r"^1/\d+$"), timeout=30000)
    first = screen.evaluate(shown)
    sync_api.expect(marker).to_have_text(re.compile(r"^2/\d+$"), timeout=15000)
    second = screen.evaluate(shown)
    assert first and second and first != second
    fits(screen)
