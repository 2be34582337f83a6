#!/usr/bin/env python3
"""Screenshots of the bank counter, a team phone and the big screen, for docs/screenshots/.

Starts the real server on a scratch game (a free local port, a temporary database),
plays a short morning of the game so the pages have something to show, and saves
console.png (1280x800), team.png (360x740) and display.png (1920x1080), then the console, fight,
admin, team and big-screen pages at a phone's size and at 1280x720 ({page}-phone.png, {page}-1280x720.png),
the admin page's team links and its "paper takes over" panel (admin-links-*, admin-paper-*; at 1280x720
with a re-entry batch sent: one line booked, one refused), and a team phone's own feed (team-feed-phone.png).

    .venv/bin/python bench/web/field/screenshots.py [--out docs/screenshots] [--serve]

Needs Playwright's Python package and a Chromium (Debian: apt-get install chromium).
--serve keeps the seeded server running (prints its address) instead of taking pictures.
"""

from __future__ import annotations

import argparse
import itertools
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))  # teams_kit: the game day's six long, accented, emoji team names

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync"]
USER, PASSWORD = "lea", "password1"


def start_server(folder: Path):
    """The real app on `terrabank serve`'s server (bank/web/serving/server.py), in a thread of this process: (app, base URL)."""
    from bank.web import create_app
    from bank.web.serving import thread as serving_thread

    from teams_kit import LONG_NAMES, config_file

    # The names a game day brought: what the pages must hold, not the four short defaults.
    app = create_app({"DB": str(folder / "terrabank.db"), "CONFIG": config_file(folder, LONG_NAMES)})
    app.extensions["terrabank"].access.add_user(USER, PASSWORD, "lead")
    return app, serving_thread.serve_in_thread(app).url


def as_served(app) -> None:
    """From now on as under `terrabank serve` (TICKER): game time passes on the server, and the bank writes
    the game state to disk by itself, a first file at once, so the admin page's paper panel lists one."""
    from bank.web.field import paper_writer
    from bank.web.push.ticker import start_ticker

    app.config["TICKER"] = True  # after the seed: its commands are dated in the past, which a running clock refuses
    start_ticker(app)
    writer = paper_writer.of(app)
    writer.start()
    writer.look()


def seed(app) -> None:
    """A plausible game an hour in: harvests, buildings, track steps, an event, a fight."""
    bank = app.extensions["terrabank"].bank
    ids = itertools.count(1)
    start = time.time() - 3600

    def run(command, at=None):
        return bank.execute({"id": f"seed-{next(ids)}", "actor": USER, **command}, now=at or time.time())

    run({"type": "start_clock"}, start)
    for i in range(8):
        for n, team in enumerate(("blue", "yellow", "red", "green")):
            for k, resource in enumerate(("water", "energy", "dioxygen", "flora")):
                run({"type": "harvest", "team": team, "card": f"harvester-{1 + k % 2}", "resource": resource},
                    start + 60 + i * 300 + n * 10 + k)
    for team in ("blue", "yellow", "red"):
        run({"type": "build", "team": team, "building": "power_plant_1"}, start + 2700)
    run({"type": "raise_tracks", "team": "green", "steps": {"phytosphere": 2}}, start + 2800)
    run({"type": "raise_tracks", "team": "blue", "steps": {"hydrosphere": 1}}, start + 2900)
    run({"type": "open_event", "title": "Sécheresse : l'eau manque !", "accepts": ["water"],
         "rewards": [{"points": 5}, {"jokers": 2}], "target": 20, "deadline_minutes": 20}, start + 3000)
    run({"type": "contribute", "event": "ev1", "team": "blue", "tokens": {"water": 2}}, start + 3100)
    run({"type": "contribute", "event": "ev1", "team": "yellow", "tokens": {"water": 2}}, start + 3200)
    run({"type": "award", "team": "green", "points": 3, "reason": "fair play"}, start + 3300)
    run({"type": "fight", "attacker_team": "red", "attacker_card": "pirate-1", "defender_team": "blue",
         "defender_card": "harvester-1", "winner": "defender", "tokens": {}})
    run({"type": "fight", "attacker_team": "yellow", "attacker_card": "pirate-1", "defender_team": "blue",
         "defender_card": "builder-1", "winner": "attacker", "tokens": {"energy": 1}})
    # A correction with its reason, as the feeds show it: points given to the wrong team.
    wrong = run({"type": "award", "team": "red", "points": 2, "reason": "défi relevé"})
    run({"type": "reverse", "seq": wrong.seq, "reason": "mauvaise équipe"})


def login(page, url: str) -> None:
    page.goto(url + "/login")
    page.fill("#username", USER)
    page.fill("#password", PASSWORD)
    page.click("#login-submit")
    page.wait_for_url("**/console")


# Each page at a phone's size and at a projector's: {page}-phone.png, {page}-1280x720.png.
SIZES = {"phone": {"width": 360, "height": 740}, "1280x720": {"width": 1280, "height": 720}}


def _console(page, url: str) -> None:
    page.click('#team-picker [data-team="blue"]')
    page.click('[data-panel="harvest"] [data-resource="water"]')
    page.wait_for_selector("#banner.banner-ok")


def _fight(page, url: str) -> None:
    page.click('#attacker [data-team="green"]')
    page.click('#attacker [data-card="pirate-1"]')
    page.click('#defender [data-team="yellow"]')
    page.click('#defender [data-card="harvester-1"]')
    page.click("#win-attacker")


def _scroll_to(page, selector: str) -> None:
    """`selector`'s top at the top of the window (scroll_into_view_if_needed stops at its bottom edge)."""
    page.locator(selector).evaluate("node => node.scrollIntoView({block: 'start'})")
    page.wait_for_timeout(400)


# Two lines of a paper ledger typed back: one booked, one refused with its reason.
PAPER_LINES = "green récolte flore 1\nyellow construit serre"  # by id: the long names are the paper's own matter


def _paper_batch(page) -> None:
    """The admin page's "Re-entry from paper" form, filled and sent, its answer on screen."""
    page.fill("#paper-form textarea", PAPER_LINES)
    page.click('#paper-form button[type="submit"]')
    page.wait_for_function("() => document.querySelector('#paper-result').textContent.trim() !== ''", timeout=60_000)
    page.wait_for_timeout(400)


def shoot(url: str, app, out: Path) -> None:
    """console.png, team.png and display.png for the README, then every page at both sizes."""
    from playwright.sync_api import sync_playwright

    out.mkdir(parents=True, exist_ok=True)
    token = app.extensions["terrabank"].access.team_tokens()["red"]  # red's pirate is waiting after a fight
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        console = browser.new_page(viewport={"width": 1280, "height": 800})
        login(console, url)
        _console(console, url)
        console.wait_for_timeout(600)
        console.screenshot(path=str(out / "console.png"))
        team = browser.new_page(viewport={"width": 360, "height": 740}, is_mobile=True, has_touch=True)
        team.goto(f"{url}/t/{token}")
        team.wait_for_selector(".badge-live")
        team.wait_for_timeout(600)
        team.screenshot(path=str(out / "team.png"))
        display = browser.new_page(viewport={"width": 1920, "height": 1080})
        display.goto(url + "/display")
        display.wait_for_selector(".badge-live")
        display.wait_for_timeout(600)
        display.screenshot(path=str(out / "display.png"))
        for size, viewport in SIZES.items():
            phone = size == "phone"
            page = browser.new_page(viewport=viewport, is_mobile=phone, has_touch=phone)
            page.goto(f"{url}/t/{token}")
            page.wait_for_selector(".badge-live")
            page.wait_for_timeout(600)
            page.screenshot(path=str(out / f"team-{size}.png"))
            if phone:  # the team's own latest bookings, a correction with its reason among them
                _scroll_to(page, "#feed-panel")
                page.screenshot(path=str(out / "team-feed-phone.png"))
            page.goto(url + "/display")
            page.wait_for_selector(".badge-live")
            page.wait_for_timeout(900)
            page.screenshot(path=str(out / f"display-{size}.png"))
            login(page, url)
            for name, prepare in (("console", _console), ("fight", _fight), ("admin", None)):
                page.goto(f"{url}/{name}")
                page.wait_for_selector(".badge-live")
                page.wait_for_timeout(400)
                if prepare:
                    prepare(page, url)
                page.wait_for_timeout(600)
                page.screenshot(path=str(out / f"{name}-{size}.png"))
            page.locator("#links .link-qr").first.scroll_into_view_if_needed()  # the team links and their QR codes
            page.wait_for_timeout(400)
            page.screenshot(path=str(out / f"admin-links-{size}.png"))
            if not phone:  # books the batch: once only, and after every other page's picture
                _paper_batch(page)
            page.locator("#paper").screenshot(path=str(out / f"admin-paper-{size}.png"))  # the whole panel, as laid out
            page.close()
        # The end: the winner over the big screen, and a team's phone opening on the results.
        app.extensions["terrabank"].bank.execute({"id": "shots-end", "actor": USER, "type": "end_game"})
        display = browser.new_page(viewport=SIZES["1280x720"])
        display.goto(url + "/display")
        display.wait_for_selector("#winner:not(.hidden)")
        display.wait_for_timeout(900)
        display.screenshot(path=str(out / "display-end-1280x720.png"))
        team = browser.new_page(viewport=SIZES["phone"], is_mobile=True, has_touch=True)
        team.goto(f"{url}/t/{token}")
        team.wait_for_selector("#winner:not(.hidden)")
        team.wait_for_timeout(600)
        team.screenshot(path=str(out / "team-end-phone.png"))
        browser.close()


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=ROOT / "docs" / "screenshots")
    parser.add_argument("--serve", action="store_true", help="keep the seeded server running instead")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="terrabank-") as folder:
        app, url = start_server(Path(folder))
        seed(app)
        as_served(app)
        if args.serve:
            print(f"{url}  (user {USER} / {PASSWORD}; blue team: {url}/t/{app.extensions['terrabank'].access.team_tokens()['blue']})", flush=True)
            try:
                while True:
                    time.sleep(3600)
            except KeyboardInterrupt:
                return 0
        shoot(url, app, args.out)
        print(f"saved console.png, team.png, display.png and each page at {', '.join(SIZES)} in {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
