"""A hosted game in the browser (bank/web/serving/hosting.py): its pages, API calls and live socket
all work under /g/<name>/ on the production server, and its phones hear only their own game.

Needs Playwright's Python package and Debian's Chromium; skipped without them.
"""

from __future__ import annotations

import logging
import os
import time
from pathlib import Path

import pytest

from needs import module, needs  # noqa: E402
sync_api = module("playwright.sync_api")  # a stand-in without Playwright: pytestmark skips the tests
from browserkit import CHROMIUM, serve_in_thread  # noqa: E402

pytestmark = needs("playwright", "chromium")

ROOT = Path(__file__).resolve().parents[3]
PHONE = {"width": 390, "height": 844}
SHOTS = os.environ.get("TERRABANK_SHOT")  # a path: the panel is saved there, to look at


@pytest.fixture(scope="module")
def hosted(tmp_path_factory):
    from bank.web import create_app
    from bank.web.serving.hosting import prepare_hosted

    logging.getLogger("werkzeug").setLevel(logging.ERROR)
    folder = tmp_path_factory.mktemp("hosting")
    app = create_app({"DB": str(folder / "host.db"), "CONFIG": str(ROOT / "config.toml"),
                      "PASSWORD_HASH": "pbkdf2:sha256:1000", "GAMES_DIR": str(folder / "games"),
                      "PREPARE_HOSTED": prepare_hosted})
    app.extensions["terrabank"].access.add_user("boss", "correct horse", "lead")
    url, _ = serve_in_thread(app)
    return app, url


def _wait(condition, what: str, timeout: float = 15.0) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, f"never happened: {what}"
        time.sleep(0.05)


def _water(page) -> int:
    return page.evaluate("() => +document.querySelector('#stock .stock-item[data-resource=water] .n').textContent")


def test_the_hosts_lead_creates_a_game_whose_lead_and_phones_play_under_its_path(chromium, hosted):
    app, url = hosted
    errors = []
    # The host's lead creates the game on the admin page and reads its lead's password there.
    host_tab = chromium.new_context().new_page()
    host_tab.on("pageerror", lambda error: errors.append(str(error)))
    host_tab.goto(f"{url}/login")
    host_tab.fill("#username", "boss")
    host_tab.fill("#password", "correct horse")
    host_tab.click("#login-submit")
    host_tab.wait_for_url(f"{url}/console")
    host_tab.goto(f"{url}/admin")
    host_tab.fill("#host-form input[name=name]", "camp")
    host_tab.click("#host-form button[type=submit]")
    host_tab.wait_for_selector("#host-made:not(.hidden)")
    made = host_tab.text_content("#host-made")
    assert f"{url}/g/camp/" in made
    password = host_tab.text_content("#host-made code")
    host_tab.wait_for_selector("#host-list li[data-game=camp]")
    if SHOTS:
        host_tab.set_viewport_size({"width": 1280, "height": 900})
        host_tab.locator("#host-games").screenshot(path=SHOTS)

    # The camp's lead logs in at the camp's address and lands on the camp's console, live.
    camp = app.extensions["terrabank_hosted"].app("camp")
    lead = chromium.new_context().new_page()
    lead.on("pageerror", lambda error: errors.append(str(error)))
    lead.goto(f"{url}/g/camp/login")
    lead.fill("#username", "lead")
    lead.fill("#password", password)
    lead.click("#login-submit")
    lead.wait_for_url(f"{url}/g/camp/console")
    lead.wait_for_selector("#conn-badge.badge-live")

    # A phone of the camp and a phone of the host's game.
    tokens = camp.extensions["terrabank"].access.team_tokens()
    phone = chromium.new_context(viewport=PHONE).new_page()
    phone.on("pageerror", lambda error: errors.append(str(error)))
    phone.goto(f"{url}/g/camp/t/{tokens['blue']}")
    phone.wait_for_selector("#conn-badge.badge-live")
    other = chromium.new_context(viewport=PHONE).new_page()
    other.goto(f"{url}/t/{app.extensions['terrabank'].access.team_tokens()['blue']}")
    other.wait_for_selector("#conn-badge.badge-live")
    _wait(lambda: _water(phone) >= 0 and _water(other) >= 0, "both phones show their stock")
    before, other_before = _water(phone), _water(other)

    # The camp's lead books through the camp's API (the console's own fetch, under its path).
    booked = lead.evaluate("""async () => {
      var r = await TB.api("POST", "/api/commands", {type: "start_clock"}, {key: TB.uuid()});
      if (!r.ok) return r.error;
      r = await TB.api("POST", "/api/commands", {type: "harvest", team: "blue", card: "harvester-1",
                                                 resource: "water"}, {key: TB.uuid()});
      return r.ok ? "ok" : r.error; }""")
    assert booked == "ok"
    _wait(lambda: _water(phone) == before + 1, "the camp's phone shows the harvest")
    assert camp.extensions["terrabank"].bank.state.balance("team:blue", "water") == before + 1
    time.sleep(0.5)
    assert _water(other) == other_before, "the host game's phone saw nothing of the camp's harvest"
    assert app.extensions["terrabank"].bank.last_seq < camp.extensions["terrabank"].bank.last_seq
    assert not errors


def test_a_game_another_server_holds_is_listed_with_the_reason(chromium, hosted):
    """The host's lead sees every game of the list, and why one cannot be served here
    (another server without a queue holds it), instead of an empty list."""
    app, url = hosted
    games = app.extensions["terrabank_hosted"]
    games.create("moor")
    games._apps.pop("moor")  # as a process that has not opened it yet
    held = games.registry.hold("moor", "terrabank serve", False)
    games.holder = "terrabank serve --games"  # this process holds what it opens, as `serve` does
    try:
        tab = chromium.new_context().new_page()
        tab.goto(f"{url}/login")
        tab.fill("#username", "boss")
        tab.fill("#password", "correct horse")
        tab.click("#login-submit")
        tab.wait_for_url(f"{url}/console")
        tab.goto(f"{url}/admin")
        tab.wait_for_selector("#host-list li[data-game=moor] .host-unavailable")
        listed = tab.text_content("#host-list li[data-game=moor]")
        assert "Un autre serveur de la banque fait tourner cette partie" in listed, listed  # in the page's French
        if SHOTS:
            tab.set_viewport_size({"width": 1280, "height": 900})
            tab.locator("#host-games").screenshot(path=SHOTS)
    finally:
        games.holder = None
        held.close()
