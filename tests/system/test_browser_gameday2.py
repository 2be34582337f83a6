"""Game day II, as the field sees it in Chromium: a double tap books
once on every booking surface and the buttons stay under the finger; the same card harvesting
again at once asks first; a session ended is a break, not a pause, on every screen; an old refusal
goes when the clock changes; Back to the log-in page says who is logged in; team names stay whole
on the 768 px fight page; a fight that starts a wait again says so.

Needs Playwright and Debian's Chromium; skipped without them. The tests share one game and run
in file order (the session tests come last). Screenshots go to /tmp/gameday2_shots.
"""

from __future__ import annotations

import itertools
import re
from pathlib import Path

import pytest

from needs import module, needs  # noqa: E402
sync_api = module("playwright.sync_api")  # a stand-in without Playwright: pytestmark skips the tests
from browserkit import log_in_through_the_form, log_in_to, page_opener, started_bank  # noqa: E402

pytestmark = needs("playwright", "chromium")
expect = sync_api.expect
SIZES = {"phone": {"width": 360, "height": 740}, "projector": {"width": 1280, "height": 720}}
SHOTS = Path("/tmp/gameday2_shots")
BREAK_FR = "Pause entre les sessions · la session 2 commence quand l'animateur la lance"
_ids = itertools.count(1)


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    """The app with Socket.IO on 127.0.0.1, a lead facilitator and a started game."""
    return started_bank(tmp_path_factory.mktemp("gameday2"))


def run(app, **command):
    return app.extensions["terrabank"].bank.execute({"id": f"gameday2-{next(_ids)}", **command})


def live(page, **command):
    """Book through the page's API, as another facilitator would: the pages hear of it at once."""
    assert page.evaluate("c => TB.command(c).then(r => r.ok)", command), command


def bank(app):
    return app.extensions["terrabank"].bank


@pytest.fixture
def open_page(chromium):
    with page_opener(chromium) as open_page:
        def _open(size, **options):
            viewport = SIZES[size] if isinstance(size, str) else size
            phone = viewport["width"] < 500
            return open_page(viewport=viewport, has_touch=phone, is_mobile=phone, **options)
        yield _open


def facilitator(open_page, url, size, path="/console"):
    page = open_page(size)
    log_in_to(page, url, path)
    expect(page.locator("#conn-badge")).to_have_class(re.compile("badge-live"))
    return page


def shot(page, name):
    SHOTS.mkdir(exist_ok=True)
    page.screenshot(path=str(SHOTS / f"{name}.png"))


def box(locator):
    b = locator.bounding_box()
    return (round(b["x"]), round(b["y"]), round(b["width"]), round(b["height"]))


def double_tap(page, locator, watch):
    """Two taps 250 ms apart where the finger was (not where the button went): the boxes of `watch`
    before the first tap and just before the second, which must be the same."""
    locator.scroll_into_view_if_needed()
    b = locator.bounding_box()
    x, y = b["x"] + b["width"] / 2, b["y"] + b["height"] / 2
    before = [box(w) for w in watch]
    tap = page.touchscreen.tap if page.viewport_size["width"] < 500 else page.mouse.click
    tap(x, y)
    page.wait_for_timeout(250)
    between = [box(w) for w in watch]
    tap(x, y)
    page.wait_for_timeout(900)
    return before, between


# ---- item 1: a double tap books once -------------------------------------------------------------

@pytest.mark.serial("two taps 250 ms apart and the buttons' boxes between them: beside four workers one run found a button not drawn")
@pytest.mark.parametrize("size,team", [("phone", "blue"), ("projector", "yellow")])
def test_a_double_tap_on_a_harvest_books_once_and_the_buttons_stay_put(server, open_page, size, team):
    app, url = server
    page = facilitator(open_page, url, size)
    page.locator(f'#team-picker [data-team="{team}"]').first.click()
    page.click('#tabs [data-tab="harvest"]')
    energy = page.locator('[data-panel="harvest"] [data-resource="energy"]')
    resources = page.locator('[data-panel="harvest"] .res-btn')
    watch = [resources.nth(i) for i in range(resources.count())]
    start = bank(app).last_seq
    before, between = double_tap(page, energy, watch)
    expect(page.locator("#banner")).to_have_class(re.compile("banner-ok"))
    assert bank(app).last_seq == start + 1, "a double tap booked twice"
    assert before == between, f"the buttons moved under the finger: {before} -> {between}"
    assert [box(w) for w in watch] == before, "the result pushed the buttons"
    expect(page.locator('#journal li').first).to_contain_text("Énergie")
    shot(page, f"console-double-tap-{size}")


@pytest.mark.parametrize("size", SIZES)
def test_the_same_card_harvesting_again_at_once_asks_first(server, open_page, size):
    app, url = server
    team = {"phone": "red", "projector": "green"}[size]
    page = facilitator(open_page, url, size)
    page.locator(f'#team-picker [data-team="{team}"]').first.click()
    page.click('#tabs [data-tab="harvest"]')
    water = page.locator('[data-panel="harvest"] [data-resource="water"]')
    start = bank(app).last_seq
    water.click()
    expect(page.locator("#banner")).to_have_class(re.compile("banner-ok"))
    page.wait_for_timeout(900)  # past the double tap: a second trip, or a slip?
    where = box(water)
    water.click()
    expect(water).to_have_text(re.compile(r"Récolté il y a \d+ s : encore \?"))
    expect(water).to_have_class(re.compile("btn-confirm"))
    assert box(water) == where, "the question moved the button"
    shot(page, f"console-harvest-again-{size}")
    page.wait_for_timeout(300)
    assert bank(app).last_seq == start + 1, "the second harvest was booked without asking"
    page.wait_for_timeout(500)
    water.click()  # the answer, a moment after the question
    expect(page.locator("#banner")).to_contain_text(f"écriture {start + 2}")
    assert bank(app).last_seq == start + 2


@pytest.mark.parametrize("size,attacker,defender", [("phone", "red", "blue"), ("projector", "yellow", "green")])
def test_a_double_tap_on_record_the_fight_books_once(server, open_page, size, attacker, defender):
    app, url = server
    page = facilitator(open_page, url, size, "/fight")
    page.click(f'#attacker [data-team="{attacker}"]')
    page.click('#attacker [data-card="pirate-1"]')
    page.click(f'#defender [data-team="{defender}"]')
    page.click('#defender [data-card="harvester-2"]')
    page.click("#win-defender")
    start = bank(app).last_seq
    before, between = double_tap(page, page.locator("#record"), [page.locator("#record")])
    expect(page.locator("#banner")).to_have_class(re.compile("banner-ok"))
    assert bank(app).last_seq == start + 1, "a double tap recorded the fight twice"
    assert before == between, f"the record button moved under the finger: {before} -> {between}"
    shot(page, f"fight-double-tap-{size}")


def test_a_double_tap_on_an_admin_award_books_once(server, open_page):
    app, url = server
    page = facilitator(open_page, url, "projector", "/admin")
    form = page.locator("#award-form")
    form.locator('select[name="team"]').select_option("blue")
    form.locator('input[name="points"]').fill("1")
    form.locator('input[name="reason"]').fill("tidy camp")
    start = bank(app).last_seq
    double_tap(page, form.locator("button[type=submit]"), [form.locator("button[type=submit]")])
    expect(page.locator("#banner")).to_have_class(re.compile("banner-ok"))
    assert bank(app).last_seq == start + 1, "a double tap booked the award twice"


# ---- item 5: the smaller ones ----------------------------------------------------------------------

def test_back_to_the_log_in_page_says_who_is_logged_in(server, open_page):
    app, url = server
    page = open_page("projector")
    log_in_through_the_form(page, url)  # the log-in page in the page's history, as a facilitator has it
    expect(page.locator("#conn-badge")).to_have_class(re.compile("badge-live"))
    page.go_back()
    page.wait_for_url("**/login")
    expect(page.locator("#already")).to_contain_text("Déjà connecté en tant que lea.")
    expect(page.locator("#already a")).to_have_attribute("href", re.compile(r"/console$"))
    shot(page, "login-already")


def test_team_names_stay_whole_on_the_768px_fight_page(server, open_page):
    app, url = server
    page = facilitator(open_page, url, {"width": 768, "height": 1024}, "/fight")
    lines = page.evaluate("""() => Array.from(document.querySelectorAll('#attacker .team-btn, #defender .team-btn')).map(b => {
        const r = document.createRange(); r.selectNodeContents(b);
        return [b.textContent, new Set(Array.from(r.getClientRects()).map(x => Math.round(x.top))).size];
      })""")
    assert len(lines) == 8 and all(n == 1 for _, n in lines), lines
    shot(page, "fight-768")


def test_a_fight_that_starts_a_wait_again_says_so(server, open_page):
    """The page still showed the pirate waiting (its count lags the bank's by a moment, or the card
    was scanned): the result says his wait starts again, instead of the timer jumping back silently."""
    app, url = server
    page = facilitator(open_page, url, "phone", "/fight")
    for card in ("terrabank:card:blue:pirate-1", "terrabank:card:red:harvester-1"):
        page.fill("#scan", card)
        page.press("#scan", "Enter")
    page.click("#win-defender")
    page.evaluate("() => { TB.clock.base.cooldowns = Object.assign({}, TB.clock.base.cooldowns, {blue: {'pirate-1': 20}}); }")
    page.click("#record")
    expect(page.locator("#banner")).to_have_class(re.compile("banner-ok"))
    expect(page.locator("#banner .waits-again")).to_have_text("Bleus Pirate 1 : son attente recommence : 1:00")
    shot(page, "fight-waits-again")


def test_an_old_refusal_goes_when_the_clock_changes(server, open_page):
    app, url = server
    page = facilitator(open_page, url, "projector")
    page.locator('#team-picker [data-team="blue"]').first.click()
    page.click('#tabs [data-tab="harvest"]')
    live(page, type="pause")
    expect(page.locator("#clock-line")).to_contain_text("en pause")
    page.click('[data-panel="harvest"] [data-resource="flora"]')
    expect(page.locator("#banner")).to_have_class(re.compile("banner-error"))
    live(page, type="resume")
    expect(page.locator("#banner")).to_be_hidden()


# ---- item 3: a session ended is a break, not a pause (last: it ends the first session) -----------

@pytest.mark.parametrize("size", SIZES)
def test_a_session_ended_reads_as_a_break_on_every_screen(server, open_page, size):
    app, url = server
    if bank(app).state.clock["status"] == "running":
        run(app, type="end_session")
    token = app.extensions["terrabank"].access.team_tokens()["blue"]
    team = open_page(size)
    team.goto(f"{url}/t/{token}")
    expect(team.locator("#time-left")).to_contain_text(BREAK_FR)
    expect(team.locator("#time-left")).not_to_contain_text("dans cette session")
    shot(team, f"team-break-{size}")
    screen = open_page(size)
    screen.goto(url + "/display")
    expect(screen.locator("#paused")).to_have_text(BREAK_FR)
    expect(screen.locator("#time-left")).not_to_contain_text("dans cette session")
    shot(screen, f"display-break-{size}")
    for path in ("/console", "/fight"):
        page = facilitator(open_page, url, size, path)
        expect(page.locator("#clock-line")).to_contain_text(BREAK_FR)
        expect(page.locator("#clock-line")).not_to_contain_text("en pause")
        shot(page, f"{path[1:]}-break-{size}")


def test_a_pause_still_reads_as_a_pause(server, open_page):
    app, url = server
    if bank(app).state.clock["status"] == "paused":
        run(app, type="resume")  # the second session starts
    run(app, type="pause")
    token = app.extensions["terrabank"].access.team_tokens()["blue"]
    team = open_page("phone")
    team.goto(f"{url}/t/{token}")
    expect(team.locator("#time-left")).to_contain_text(re.compile(r"^en pause · encore \d:\d\d:\d\d dans cette session"))
    expect(team.locator("#time-left")).not_to_contain_text("Pause entre")
