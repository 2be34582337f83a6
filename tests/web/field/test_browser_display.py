"""The big screen read from 5 m at 1280x720, and no page scrolling sideways.

A projector at 1280x720 showed events, deadlines, track icons and chart axes at 12-14 px; the
bonus icons had no legend; the chart's lines had no names and teams tied at 0 hid each other.
Here Chromium measures the computed size of every text the screen shows, finds a legend for
every kind of bonus, a team name at the end of every line, and tied lines side by side. The
last test walks every page at six screen sizes: none may scroll sideways.

Needs Playwright and Debian's Chromium; skipped without them. The tests share one game and run
in file order: the last ones end it.
"""

from __future__ import annotations

import itertools
import logging
import re
from pathlib import Path

import pytest

from needs import module, needs  # noqa: E402
sync_api = module("playwright.sync_api")  # a stand-in without Playwright: pytestmark skips the tests
from browserkit import CHROMIUM, log_in_to, serve_in_thread  # noqa: E402

pytestmark = needs("playwright", "chromium")
ROOT = Path(__file__).resolve().parents[3]
expect = sync_api.expect
SIZES = [(360, 740), (390, 844), (1024, 768), (1366, 768), (1280, 720), (1920, 1080)]
MIN_PX = 24
_ids = itertools.count(1)

# Every text node the page shows inside the screen, with its computed font size (SVG text too).
VISIBLE_TEXT = """() => {
  const out = [], walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  for (let n = walker.nextNode(); n; n = walker.nextNode()) {
    const e = n.parentElement, text = n.textContent.trim();
    if (!text || !e || e.closest('script, style, title, .hidden')) continue;
    const r = e.getBoundingClientRect(), cs = getComputedStyle(e);
    if (!r.width || !r.height || cs.visibility === 'hidden' || r.bottom <= 0 || r.top >= innerHeight || r.right <= 0 || r.left >= innerWidth) continue;
    let hidden = false;
    for (let p = e; p; p = p.parentElement) { const s = getComputedStyle(p); if (s.display === 'none' || s.opacity === '0') { hidden = true; break; } }
    if (!hidden) out.push({size: parseFloat(cs.fontSize), text: text.slice(0, 40), where: e.tagName + '.' + (e.getAttribute('class') || '')});
  }
  return out;
}"""


def run(app, **command):
    return app.extensions["terrabank"].bank.execute({"id": f"display-{next(_ids)}", "actor": "lea", **command})


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    """A game an hour in: blue and green tied at 0, an open event with rewards, a pirate waiting."""
    from bank.web import create_app

    logging.getLogger("werkzeug").setLevel(logging.ERROR)
    folder = tmp_path_factory.mktemp("display")
    app = create_app({"DB": str(folder / "game.db"), "CONFIG": str(ROOT / "config.toml"), "PASSWORD_HASH": "pbkdf2:sha256:1000"})
    app.extensions["terrabank"].access.add_user("lea", "password1", "lead")
    run(app, type="start_clock")
    run(app, type="award", team="red", points=7, reason="fair play")
    run(app, type="award", team="yellow", points=3, reason="help")
    run(app, type="open_event", title="Sécheresse : l'eau manque !", accepts=["water"],
        rewards=[{"points": 5}, {"jokers": 2}], target=20, deadline_minutes=20)
    run(app, type="fight", attacker_team="red", attacker_card="pirate-1", defender_team="blue",
        defender_card="harvester-1", winner="defender", tokens={})
    url, _ = serve_in_thread(app)
    return app, url


@pytest.fixture
def screen(chromium, server):
    """The big screen at 1280x720, live; fails the test on any script error."""
    context = chromium.new_context(viewport={"width": 1280, "height": 720})
    page, errors = context.new_page(), []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.goto(server[1] + "/display")
    expect(page.locator("#conn-badge")).to_have_class(re.compile("badge-live"))
    page.locator("#chart .line-label").first.wait_for()
    yield page
    context.close()
    assert not errors, errors


def _too_small(page) -> list:
    texts = page.evaluate(VISIBLE_TEXT)
    assert len(texts) > 40  # the measure saw the page, not an empty shell
    return [t for t in texts if t["size"] < MIN_PX]


def test_no_text_on_the_big_screen_is_under_24_px_at_1280x720(screen):
    assert _too_small(screen) == []


def test_every_kind_of_track_bonus_has_a_legend(screen, server):
    config = server[0].extensions["terrabank"].config
    kinds = {kind for track in config.tracks.values() for icons in track.icons.values() for kind in icons}
    legend = screen.locator("#bonus-legend")
    assert {item.get_attribute("data-kind") for item in legend.locator(".legend-item[data-kind]").all()} == kinds
    expect(legend).to_contain_text("dés bonus")
    expect(legend).to_contain_text("Faune")
    expect(legend).to_contain_text("animaux dès le niveau 4")


def test_each_chart_line_ends_with_its_team_name(screen, server):
    config = server[0].extensions["terrabank"].config
    for team_id, team in config.teams.items():
        label = screen.locator(f'#chart .line-label[data-team="{team_id}"]')
        expect(label).to_contain_text(team.label["fr"])
        end = screen.evaluate(f"""() => {{ const p = document.querySelector('#chart polyline[data-team="{team_id}"]').points;
            return p.getItem(p.numberOfItems - 1).x; }}""")
        assert abs(float(label.get_attribute("x")) - end) < 20  # at the line's end, not in a legend elsewhere
    expect(screen.locator('#chart .line-label[data-team="red"]')).to_have_text("Rouges 7")


def test_teams_tied_at_0_stay_apart(screen):
    ends = screen.evaluate("""() => Object.fromEntries(Array.from(document.querySelectorAll('#chart polyline')).map(l =>
        [l.dataset.team, l.points.getItem(l.points.numberOfItems - 1).y]))""")
    width = float(screen.locator("#chart polyline").first.get_attribute("stroke-width"))
    assert abs(ends["blue"] - ends["green"]) >= width - 0.5  # side by side, both visible
    # Their names too: baselines at least a type size apart, so no letter covers another.
    # Read in one go: the chart is redrawn every few seconds, and a label read after its redraw is detached.
    size, blue, green = screen.evaluate("""() => {
        const label = t => document.querySelector(`#chart .line-label[data-team="${t}"]`);
        return [parseFloat(getComputedStyle(label('blue')).fontSize),
                parseFloat(label('blue').getAttribute('y')), parseFloat(label('green').getAttribute('y'))];
    }""")
    assert abs(blue - green) >= size


def test_the_end_of_the_game_is_readable_from_5_m_too(screen, server):
    run(server[0], type="end_game")
    screen.reload()  # booked on the bank directly: no broadcast, the screen reads it on loading
    expect(screen.locator("#winner")).to_be_visible()
    expect(screen.locator("#winner")).to_contain_text("Rouges")
    assert _too_small(screen) == []


# ---- every page I own, at the six sizes of the issue: nothing scrolls sideways ----

def _overflow(page) -> dict:
    return page.evaluate("""() => ({scroll: document.documentElement.scrollWidth, width: innerWidth,
        wide: Array.from(document.querySelectorAll('main *, header *')).filter(e => { const r = e.getBoundingClientRect();
          return r.width > 0 && r.right > innerWidth + 1 && !e.closest('.hidden, svg'); }).map(e => e.tagName + '.' + e.className).slice(0, 5)})""")


@pytest.fixture(scope="module")
def facilitator_cookies(chromium, server):
    """The lead's session cookies, from one log-in through the log-in page: each size's page takes them
    after its team-phone and big-screen checks instead of logging in again (one log-in per size before)."""
    context = chromium.new_context()
    try:
        log_in_to(context.new_page(), server[1], "/console")
        return context.cookies()
    finally:
        context.close()


@pytest.mark.parametrize("width,height", SIZES)
def test_no_page_scrolls_sideways(chromium, server, facilitator_cookies, width, height):
    app, url = server
    context = chromium.new_context(viewport={"width": width, "height": height})
    page = context.new_page()
    token = app.extensions["terrabank"].access.team_tokens()["blue"]
    page.goto(url + "/display")
    page.locator("#standings .standing").first.wait_for()
    pages = {"/display": _overflow(page)}
    page.goto(f"{url}/t/{token}")
    page.locator("#team-rep").wait_for()
    pages["/t/"] = _overflow(page)
    context.add_cookies(facilitator_cookies)  # logged in from here on, as after the log-in page
    for path, ready in (("/console", ".team-btn"), ("/fight", ".team-btn"), ("/admin", "#links .link-row")):
        page.goto(url + path)
        page.locator(ready).first.wait_for()
        if path == "/console":
            page.click('#team-picker [data-team="blue"]')
            page.click('[data-tab="trade"]')
        pages[path] = _overflow(page)
    context.close()
    wide = {path: seen for path, seen in pages.items() if seen["scroll"] > seen["width"] or seen["wide"]}
    assert not wide, wide
