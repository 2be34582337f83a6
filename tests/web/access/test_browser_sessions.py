"""Real pages when a session or a link ends under them: the phone says its link was replaced, a
facilitator's tablet goes back to the log-in form and says why.

Needs Playwright and Debian's Chromium; skipped without them. The server runs in a thread on 127.0.0.1.
"""

from __future__ import annotations

import logging
import re
from pathlib import Path

import pytest

from needs import module, needs  # noqa: E402
sync_api = module("playwright.sync_api")  # a stand-in without Playwright: pytestmark skips the tests
from browserkit import CHROMIUM, page_opener, serve_in_thread  # noqa: E402

pytestmark = needs("playwright", "chromium")
ROOT = Path(__file__).resolve().parents[3]
expect = sync_api.expect


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    """The app with Socket.IO on 127.0.0.1 and two facilitators."""
    from bank.web import create_app

    logging.getLogger("werkzeug").setLevel(logging.ERROR)
    folder = tmp_path_factory.mktemp("sessions")
    app = create_app({"DB": str(folder / "game.db"), "CONFIG": str(ROOT / "config.toml"), "PASSWORD_HASH": "pbkdf2:sha256:1000"})
    access = app.extensions["terrabank"].access
    access.add_user("lea", "password1", "lead")
    access.add_user("ben", "password2", "banker")
    url, _ = serve_in_thread(app)
    return app, url


@pytest.fixture
def pages(chromium):
    """Opens pages in their own browser contexts (own cookies); fails the test on any script error."""
    with page_opener(chromium) as open_page:
        yield lambda: open_page(viewport={"width": 1280, "height": 800})


def log_in(page, url, user, password, lands="**/console"):
    page.goto(url + "/login")
    page.fill("#username", user)
    page.fill("#password", password)
    page.click("#login-submit")
    page.wait_for_url(lands)
    expect(page.locator("#conn-badge")).to_have_class(re.compile("badge-live"))


def test_the_phone_says_its_link_was_replaced(server, pages):
    app, url = server
    access = app.extensions["terrabank"].access
    phone = pages()
    phone.goto(f"{url}/t/{access.team_tokens()['green']}")
    expect(phone.locator("#conn-badge")).to_have_class(re.compile("badge-live"))
    lead = pages()
    log_in(lead, url, "lea", "password1")
    token = lead.locator("meta[name=csrf-token]").get_attribute("content")
    reply = lead.request.post(f"{url}/api/teams/green/rotate", headers={"X-CSRF-Token": token})
    assert reply.ok
    expect(phone.locator("#unknown")).to_be_visible()
    expect(phone.locator("#unknown-why")).to_contain_text("a remplacé ce lien d’équipe")  # French: the game's language
    expect(phone.locator("#team-root")).to_be_hidden()


def test_log_out_everywhere_sends_the_other_tablet_to_the_log_in_form(server, pages):
    _, url = server
    banker = pages()
    log_in(banker, url, "ben", "password2")
    lead = pages()
    log_in(lead, url, "lea", "password1")
    lead.goto(url + "/admin")
    expect(lead.locator("#sessions")).to_contain_text("ben")  # and any earlier test's tablets
    lead.click("#end-all")
    lead.wait_for_timeout(800)  # a second tap counts only a moment after the first (no double click)
    lead.click("#end-all")  # the second tap confirms
    banker.wait_for_url("**/login?ended=1")
    expect(banker.locator("#login-error")).to_contain_text("Vous avez été déconnecté")
    expect(lead.locator("#sessions .link-row")).to_have_count(1)


def test_ones_own_log_out_shows_no_warning(server, pages):
    _, url = server
    banker = pages()
    log_in(banker, url, "ben", "password2")
    banker.click("[data-logout]")
    banker.wait_for_url(re.compile(r".*/login$"))
    expect(banker.locator("#login-error")).to_be_hidden()
