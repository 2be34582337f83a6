"""Every page of both games checked by axe-core at WCAG 2.2 AA, in a real browser.

A game day's audit found colour contrast under 4.5:1 on the admin and fight pages (white on the green
team's colour) and no level-one heading on the console, admin, fight page and big screen. Here
axe-core (the axe.min.js that axe-playwright-python ships, no network) runs on every page of the
field game (log-in, console, fight, admin with its paper section, big screen, team phone, the 404
notice) and of Trias (start, table, TV, seat, score calculator), with 2 short-named French teams and
with 6 long, accented, emoji-named English ones, during play and after the end: no violation.

The rules: the tags wcag2a, wcag2aa, wcag21a, wcag21aa and wcag22aa, plus axe's
page-has-heading-one (a best practice, which the audit counted).

Needs Playwright, axe-playwright-python and Debian's Chromium (skipped without them).
"""

from __future__ import annotations


import pytest

from needs import module, needs  # noqa: E402
sync_api = module("playwright.sync_api")  # a stand-in without Playwright: pytestmark skips the tests
from browserkit import CHROMIUM, log_in_to, serve_in_thread  # noqa: E402,F401
from teams_kit import LONG_NAMES, game_with_names  # noqa: E402

pytestmark = needs("playwright", "chromium", "axe_playwright_python")

TAGS = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "wcag22aa"]
# One axe run per page: the WCAG tags, and page-has-heading-one (not in those tags) enabled by name, which axe
# runs beside a tag selection (a rule's `enabled` overrides the tags). Two runs injected axe twice and checked twice.
OPTIONS = {"runOnly": {"type": "tag", "values": TAGS}, "rules": {"page-has-heading-one": {"enabled": True}},
           "resultTypes": ["violations"]}

GAMES = {
    "2-teams-fr": (("Bleus", "Jaunes"), "fr"),
    "6-long-emoji-en": (LONG_NAMES, "en"),
}


def violations(page) -> list:
    """axe-core's violations on the page as it is now: the WCAG tags and one level-one heading."""
    from axe_playwright_python.sync_playwright import Axe

    found = Axe().run(page, options=OPTIONS).response["violations"]
    return [f"{v['id']} ({v['impact']}): " + "; ".join(" ".join(n["target"]) + " " + n.get("failureSummary", "")[:160]
                                                         for n in v["nodes"][:4]) for v in found]


@pytest.fixture(scope="module", params=list(GAMES), ids=list(GAMES))
def game(request, tmp_path_factory):
    """A field game under way (a fight waiting, an open event, points) and a Trias game, served."""
    names, lang = GAMES[request.param]
    app, services, teams, run = game_with_names(tmp_path_factory.mktemp("a11y"), names, lang)
    run(type="start_clock")
    for n, team in enumerate(teams):
        run(type="award", team=team, points=3 * n + 1, reason="set-up")
    run(type="open_event", title="Sécheresse", accepts=["water"], rewards=[{"points": 5}], target=20, deadline_minutes=20)
    run(type="fight", attacker_team=teams[1], attacker_card="pirate-1", defender_team=teams[0],
        defender_card="harvester-1", winner="defender", tokens={})
    trias_game = app.extensions["trias_games"].create(
        seats=[{"name": "Ana 🌱", "kind": "human"}, {"name": "Bénédicte", "kind": "human"}], seed=1, mode="play")
    url, _ = serve_in_thread(app)
    return {"app": app, "url": url, "run": run, "lang": lang, "teams": teams, "trias": trias_game}


@pytest.fixture(scope="module")
def logged_in(chromium, game):
    """A 1280x800 page, the facilitator logged in once per game (each test goes to its own pages), and
    the script errors it meets."""
    context = chromium.new_context(viewport={"width": 1280, "height": 800}, locale=game["lang"])
    page, errors = context.new_page(), []
    page.on("pageerror", lambda error: errors.append(str(error)))
    log_in_to(page, game["url"], "/console")
    yield page, errors
    context.close()


@pytest.fixture
def browser_page(logged_in):
    """The logged-in page; fails the test on any script error met during it."""
    page, errors = logged_in
    errors.clear()
    yield page
    assert not errors, errors


def _check(page, url: str, wait: str | None = None) -> list:
    page.goto(url)
    if wait:
        page.wait_for_selector(wait, state="attached")
    page.wait_for_load_state("networkidle")
    page.wait_for_timeout(300)  # the live picture drawn
    return violations(page)


def _field_pages(game) -> dict:
    services = game["app"].extensions["terrabank"]
    url, token = game["url"], services.access.team_tokens()[game["teams"][0]]
    return {"console": url + "/console", "fight": url + "/fight", "admin": url + "/admin",
            "big screen": f"{url}/display?key={services.access.display_key()}", "team phone": f"{url}/t/{token}",
            "unknown address": url + "/nowhere", "dead team link": url + "/t/nothing-here"}


def test_every_field_page_has_no_wcag_violation_during_play(game, browser_page):
    found = {name: _check(browser_page, address) for name, address in _field_pages(game).items()}
    assert {name: v for name, v in found.items() if v} == {}, "\n".join(f"{n}: {v}" for n, v in found.items() if v)


def test_the_console_with_a_team_open_has_no_wcag_violation(game, browser_page):
    browser_page.goto(game["url"] + "/console")
    browser_page.locator(f'.team-btn[data-team="{game["teams"][0]}"]').first.click()
    browser_page.wait_for_timeout(300)
    assert violations(browser_page) == []


def test_the_admin_page_listing_a_witness_report_has_no_wcag_violation(game, browser_page):
    """Before, the reports' list carried role=alert itself, which took its items out of a list: axe's 'listitem'
    on the admin page as soon as a phone (or the bank itself) reported a chain it saw no longer held."""
    import time

    services = game["app"].extensions["terrabank"]
    team = f"team:{game['teams'][0]}"
    services.access.witness_reports().add({"saw": {"seq": 1, "hash": "ab" * 32}, "head": {"seq": 2, "hash": "cd" * 32},
                                           "game": services.bank.game_mark(), "at": time.time(), "by": team}, team)
    assert _check(browser_page, game["url"] + "/admin", "#chain-witness li") == []


def test_the_log_in_page_has_no_wcag_violation(game, chromium):
    context = chromium.new_context(locale=game["lang"])
    try:
        assert _check(context.new_page(), game["url"] + "/login") == []
    finally:
        context.close()


def test_every_trias_page_has_no_wcag_violation(game, browser_page):
    url, tg = game["url"], game["trias"]
    pages = {"start": url + "/trias/", "table": f"{url}/trias/g/{tg.id}?t={tg.table_secret}",
             "tv": f"{url}/trias/g/{tg.id}", "seat": f"{url}/trias/s/{tg.seats[0]['token']}", "score": url + "/trias/score"}
    found = {name: _check(browser_page, address) for name, address in pages.items()}
    assert {name: v for name, v in found.items() if v} == {}, "\n".join(f"{n}: {v}" for n, v in found.items() if v)


def test_every_field_page_has_no_wcag_violation_after_the_end(game, browser_page):
    """Last in the module: it ends the game (the end overlay on the big screen, the results on the phone)."""
    game["run"](type="end_game")
    pages = _field_pages(game)
    found = {name: _check(browser_page, pages[name]) for name in ("big screen", "team phone", "console", "admin")}
    assert {name: v for name, v in found.items() if v} == {}, "\n".join(f"{n}: {v}" for n, v in found.items() if v)


def test_text_on_any_team_colour_reads_at_4_5_to_1(game, browser_page):
    """A config may give a team any colour: on 4096 of them (16 steps per channel) the ink and the
    background TB.paint gives reach WCAG's 4.5:1, and a colour that already allows it is kept."""
    steps = [f"{v:02x}" for v in range(0, 256, 17)]
    colours = ["#" + r + g + b for r in steps for g in steps for b in steps]
    bad = browser_page.evaluate("""colours => colours.map(c => [c, TB.paint(c)]).filter(([c, p]) =>
        TB.contrast(p.color, p.background) < 4.5
        || (p.background !== c && Math.max(TB.contrast('#111111', c), TB.contrast('#ffffff', c)) >= 4.6))""", colours)
    assert bad == [], bad[:10]


def test_the_one_axe_run_finds_a_missing_level_one_heading_beside_a_wcag_violation(chromium):
    """The pages above are checked in one axe run (OPTIONS): it must still report a page without a
    level-one heading, which is outside the WCAG tags, as well as a WCAG violation (an image without text)."""
    context = chromium.new_context()
    try:
        page = context.new_page()
        page.set_content("<html lang='en'><head><title>t</title></head><body><main><h2>Bank</h2>"
                         "<img src='data:,'></main></body></html>")
        found = violations(page)
    finally:
        context.close()
    assert sorted(line.partition(" ")[0] for line in found) == ["image-alt", "page-has-heading-one"], found
