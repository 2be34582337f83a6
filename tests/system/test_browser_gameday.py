"""Game day as the field sees it: the time left, an event's rewards and
results, when a harvester card last harvested, and the end of the game with the winner and the
ranking, on every kind of page at phone (360x740) and projector (1280x720) sizes.

Needs Playwright and Debian's Chromium; skipped without them. The server runs in a thread on
127.0.0.1. The tests share one game and run in file order: the last one ends it.
"""

from __future__ import annotations

import itertools
import re
from pathlib import Path

import pytest

from needs import module, needs  # noqa: E402
sync_api = module("playwright.sync_api")  # a stand-in without Playwright: pytestmark skips the tests
from browserkit import CHROMIUM, log_in_to, page_opener, started_bank  # noqa: E402

pytestmark = needs("playwright", "chromium")
expect = sync_api.expect
SIZES = {"phone": {"width": 360, "height": 740}, "projector": {"width": 1280, "height": 720}}
FACILITATOR_PAGES = ("/console", "/fight", "/admin")
SHOTS = Path("/tmp/gameday_shots")
_ids = itertools.count(1)


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    """The app with Socket.IO on 127.0.0.1, a lead facilitator and a started game."""
    return started_bank(tmp_path_factory.mktemp("gameday"))


def run(app, **command):
    """Book a command on the bank directly (pages loaded afterwards read it)."""
    return app.extensions["terrabank"].bank.execute({"id": f"gameday-{next(_ids)}", **command})


@pytest.fixture
def open_page(chromium):
    """Opens a page at a size in its own browser context; fails the test on any script error."""
    with page_opener(chromium) as open_page:
        yield lambda size: open_page(viewport=SIZES[size])


def facilitator(open_page, url, size, path):
    page = open_page(size)
    log_in_to(page, url, path)
    expect(page.locator("#conn-badge")).to_have_class(re.compile("badge-live"))
    return page


def phone(open_page, app, url, size, team):
    page = open_page(size)
    page.goto(f"{url}/t/{app.extensions['terrabank'].access.team_tokens()[team]}")
    expect(page.locator("#conn-badge")).to_have_class(re.compile("badge-live"))
    return page


def display(open_page, url, size):
    page = open_page(size)
    page.goto(url + "/display")
    expect(page.locator("#conn-badge")).to_have_class(re.compile("badge-live"))
    return page


def shot(page, name):
    SHOTS.mkdir(exist_ok=True)
    page.screenshot(path=str(SHOTS / f"{name}.png"), full_page=True)


LEFT = re.compile(r"encore \d:\d\d:\d\d dans cette session · encore \d:\d\d:\d\d de partie")


@pytest.mark.parametrize("size", SIZES)
def test_every_page_shows_the_time_left_in_one_format(server, open_page, size):
    app, url = server
    for path in FACILITATOR_PAGES:
        page = facilitator(open_page, url, size, path)
        line = page.locator("#clock-text" if path == "/admin" else "#clock-line")
        expect(line).to_contain_text(LEFT)
        expect(line).to_contain_text(re.compile(r"\d:\d\d:\d\d / 3:00:00"))  # h:mm:ss on both sides
    expect(display(open_page, url, size).locator("#time-left")).to_have_text(LEFT)
    expect(phone(open_page, app, url, size, "blue").locator("#time-left")).to_have_text(LEFT)


@pytest.mark.parametrize("size", SIZES)
def test_the_console_and_the_phone_say_when_a_harvester_last_harvested(server, open_page, size):
    app, url = server
    run(app, type="harvest", team="red", card="harvester-1", resource="water")
    team_phone = phone(open_page, app, url, size, "red")
    expect(team_phone.locator('#harvests [data-card="harvester-1"]')).to_contain_text("vient de récolter")
    expect(team_phone.locator('#harvests [data-card="harvester-2"]')).to_contain_text("pas encore récolté")
    console = facilitator(open_page, url, size, "/console")
    console.locator('#team-picker [data-team="red"]').first.click()
    expect(console.locator('#team-cards [data-card="harvester-1"]')).to_contain_text("vient de récolter")
    shot(console, f"harvest-console-{size}")


def test_an_event_shows_its_rewards_then_its_results(server, open_page):
    app, url = server
    run(app, type="open_event", title="Fête de l'eau", accepts=["water"], rewards=[{"points": 5}, {"jokers": 2}],
        deadline_minutes=30)
    event = max(app.extensions["terrabank"].bank.state.events)
    for size in SIZES:
        for page in (display(open_page, url, size), phone(open_page, app, url, size, "blue")):
            card = page.locator(f'#events [data-event="{event}"]')
            expect(card).to_contain_text("1er : 5 pts · 2e : 2 jokers")
            expect(card).to_contain_text(re.compile(r"encore 0:(29|30):\d\d"))
    run(app, type="contribute", event=event, team="blue", tokens={"water": 3})
    run(app, type="contribute", event=event, team="red", tokens={"water": 1})
    run(app, type="close_event", event=event)
    for size in SIZES:
        big = display(open_page, url, size)
        results = big.locator(f'#events .event-results[data-event="{event}"]')
        expect(results).to_contain_text("Résultats")
        expect(results.locator('[data-team="blue"]')).to_contain_text(re.compile(r"1er.*3 donnés.*\+5 pts"))
        expect(results.locator('[data-team="red"]')).to_contain_text(re.compile(r"2e.*\+2 jokers"))
        shot(big, f"event-results-display-{size}")
        mine = phone(open_page, app, url, size, "red")
        expect(mine.locator(f'#events .event-results[data-event="{event}"] li.mine')).to_contain_text("+2 jokers")
        shot(mine, f"event-results-phone-{size}")


def test_the_end_shows_the_winner_and_the_ranking_everywhere(server, open_page):
    app, url = server
    run(app, type="award", team="green", points=9, reason="fair play")
    run(app, type="award", team="yellow", points=7, reason="fair play")
    run(app, type="open_event", title="Dernier défi", accepts=[], rewards=[{"points": 3}], deadline_minutes=20)
    event = max(app.extensions["terrabank"].bank.state.events)
    run(app, type="contribute", event=event, team="green", tokens={"flora": 1})
    run(app, type="end_game")  # closes the open event first: green's 3 points count (R33, R35)
    for size in SIZES:
        for path in FACILITATOR_PAGES:
            page = facilitator(open_page, url, size, path)
            banner = page.locator("#ended-banner")
            expect(banner).to_be_visible()
            expect(banner).to_contain_text("Vert")
            expect(banner.locator('.final-ranking [data-team="green"]')).to_contain_text("1er")
            if path == "/console":
                expect(page.locator("#clock-warning")).to_be_hidden()  # no more "start the clock"
            shot(page, f"end{path.replace('/', '-')}-{size}")
        big = display(open_page, url, size)
        expect(big.locator("#winner")).to_contain_text("Victoire")
        expect(big.locator('#winner .final-ranking [data-team="yellow"]')).to_contain_text("2e")
        results = big.locator(f'#events .event-results[data-event="{event}"]')  # closed, no countdown left
        expect(results).to_contain_text("Résultats")
        expect(results.locator('[data-team="green"]')).to_contain_text(re.compile(r"1er.*\+3 pts"))
        shot(big, f"end-display-{size}")
        loser = phone(open_page, app, url, size, "yellow")
        expect(loser.locator("#winner")).to_contain_text("Votre équipe est 2e sur 4")
        expect(loser.locator("#winner")).not_to_contain_text("Victoire")
        shot(loser, f"end-phone-loser-{size}")
        winner = phone(open_page, app, url, size, "green")
        expect(winner.locator("#winner .w-title")).to_have_text("Victoire !")
        expect(winner.locator("#winner")).to_contain_text("Votre équipe est 1er sur 4")


def test_a_losing_phone_reads_its_rank_in_english_too(server, open_page):
    app, url = server
    if not app.extensions["terrabank"].bank.state.ended:
        run(app, type="award", team="green", points=9, reason="fair play")
        run(app, type="award", team="yellow", points=7, reason="fair play")
        run(app, type="end_game")
    loser = phone(open_page, app, url, "phone", "yellow")
    loser.click("#winner")  # the overlay steps aside so the header's language switch can be tapped
    loser.click("[data-lang=en]")
    expect(loser.locator("#winner")).to_contain_text("Your team is 2nd of 4")
    expect(loser.locator("#winner .w-label")).to_have_text("Winner:")  # the big chip is the winner's, not this team's
    expect(loser.locator("#winner .w-title")).to_have_text("Game over")
    expect(loser.locator("#winner .final-ranking")).to_contain_text("1st")
    expect(loser.locator("#events .event-results").last).to_contain_text("Results")
    shot(loser, "end-phone-loser-english")


def test_an_english_page_gives_its_own_sentence_for_a_refusal_not_the_banks_message(server, open_page):
    """The bank's messages are English but name things by their ids ("yellow harvester-1 ... (R14)");
    an English page shows its own sentence for the refusal's code, as a French page does."""
    _, url = server
    page = open_page("phone")
    page.goto(url + "/login")
    page.click("[data-lang=en]")
    expect(page.locator("#login-submit")).to_have_text("Log in")
    page.fill("#username", "lea")
    page.fill("#password", "not her password")
    page.click("#login-submit")
    expect(page.locator("#login-error")).to_have_text("Wrong username or password.")  # the bank says "wrong username or password"
