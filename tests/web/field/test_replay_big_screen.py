"""The game's story replayed on the big screen: the lead presses "Replay the game on
the big screen" on the admin page once the game has ended, and the big screen opened with its own link
plays the race of points per team, the moments that decided it as captions, then the podium; Skip (or
Escape) goes straight to the podium, and again closes it; the lead can play it again.

The browser tests need Playwright and Debian's Chromium (skipped without them). The replay lasts about
75 s; the big screen's link takes `&replay_seconds=` so the test does not wait that long.
Screenshots go to /tmp/replay_shots (docs/screenshots/replay-*.png are copies of them).
"""

from __future__ import annotations

import logging
import re
from pathlib import Path

import pytest
from printkit import play_sample

from needs import module, needs
sync_api = module("playwright.sync_api")  # a stand-in without Playwright: the browser tests skip
from browserkit import log_in_to, page_opener, serve_in_thread  # noqa: E402

expect = sync_api.expect
SHOTS = Path("/tmp/replay_shots")
PROJECTOR = {"width": 1280, "height": 720}


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    """A served game played to its end (the print tests' sample game, 70 minutes), with a lead lea."""
    from bank.web import create_app

    logging.getLogger("werkzeug").setLevel(logging.ERROR)
    folder = tmp_path_factory.mktemp("replay")
    app = create_app({"DB": str(folder / "game.db"), "CONFIG": str(Path(__file__).resolve().parents[3] / "config.toml"),
                      "PASSWORD_HASH": "pbkdf2:sha256:1000"})
    app.extensions["terrabank"].access.add_user("lea", "password1", "lead")
    bank = app.extensions["terrabank"].bank
    play_sample(bank, t0=bank.now())
    url, _ = serve_in_thread(app)
    return app, url


@pytest.fixture
def pages(chromium):
    with page_opener(chromium) as open_page:
        yield lambda: open_page(viewport=PROJECTOR)


def _admin(page, url):
    log_in_to(page, url, "/admin")
    expect(page.locator("#conn-badge")).to_have_class(re.compile("badge-live"))
    return page


@needs("playwright", "chromium")
def test_the_lead_replays_the_ended_game_on_the_big_screen_race_then_podium(server, pages):
    app, url = server
    SHOTS.mkdir(exist_ok=True)
    key = app.extensions["terrabank"].access.display_key()
    screen = pages()
    screen.goto(f"{url}/display?key={key}&replay_seconds=20")
    expect(screen.locator("#conn-badge")).to_have_class(re.compile("badge-live"))
    expect(screen.locator("#replay")).to_have_count(0)  # nothing over the board until the lead asks

    admin = _admin(pages(), url)
    button = admin.locator("#replay-start")
    expect(button).to_be_enabled()
    button.click()
    expect(admin.locator("#banner")).to_contain_text("La partie rejouée commence sur le grand écran.")

    replay = screen.locator("#replay")
    expect(replay).to_be_visible()
    expect(screen.locator(".replay-row")).to_have_count(4)
    expect(screen.locator("#replay-race")).to_be_visible()
    # The moments that decided the game, as captions, as the race reaches them.
    expect(screen.locator("#replay-captions")).to_contain_text("Verts : premier bâtiment de la partie", timeout=15000)
    screen.wait_for_timeout(3000)
    screen.screenshot(path=str(SHOTS / "replay-race-1280x720.png"))
    expect(screen.locator("#replay-captions")).to_contain_text("gagné par Bleus", timeout=15000)
    podium = screen.locator("#replay-podium")
    expect(podium).to_be_visible(timeout=20000)
    expect(screen.locator(".replay-step-1")).to_contain_text("Verts")
    expect(screen.locator(".replay-step-1")).to_contain_text("14")
    screen.screenshot(path=str(SHOTS / "replay-podium-1280x720.png"))
    expect(replay).to_be_hidden(timeout=15000)  # then the board again, by itself

    # Played again from the admin page, and skipped: straight to the podium, then closed.
    button.click()
    expect(screen.locator("#replay-race")).to_be_visible()
    screen.locator("#replay-skip").click()
    expect(podium).to_be_visible()
    screen.keyboard.press("Escape")
    expect(replay).to_be_hidden()


def test_the_replay_is_only_for_an_ended_game_and_a_screen_with_its_key(web, app):
    lead = web("lead")
    lead.command(type="start_clock")
    before = app.extensions["terrabank"].bank.last_seq
    refused = lead.client.post("/api/replay/start", headers={"X-CSRF-Token": lead.csrf})
    assert refused.status_code == 409 and refused.get_json()["error"]["code"] == "game_not_ended"
    assert "end the game first" in refused.get_json()["error"]["message"]
    assert app.extensions["terrabank"].bank.last_seq == before  # nothing booked
    banker = web("banker")
    assert banker.client.post("/api/replay/start", headers={"X-CSRF-Token": banker.csrf}).status_code == 403
    anonymous = web().client.get("/api/replay")
    assert anonymous.status_code == 403 and "own link" in anonymous.get_json()["error"]["message"]
    assert web().client.get("/api/replay?key=not-the-key").status_code == 403
    key = app.extensions["terrabank"].access.display_key()
    told = web().client.get(f"/api/replay?key={key}").get_json()
    assert set(told["teams"]) == {"blue", "yellow", "red", "green"} and told["podium"]
