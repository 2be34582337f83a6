""""Finir la session" is offered only when the bank would do it (R34).

During the break between sessions the button stayed enabled and a tap was refused
("no session is under way to end"); in the last session it was refused too ("end the game
instead"). The admin page now offers it only while a session that is not the last is under way.
"""

from __future__ import annotations

import re

import pytest

from needs import module, needs  # noqa: E402
sync_api = module("playwright.sync_api")  # a stand-in without Playwright: pytestmark skips the tests
from browserkit import log_in_to, started_bank  # noqa: E402

pytestmark = needs("playwright", "chromium")
expect = sync_api.expect


@pytest.fixture
def admin(chromium, tmp_path):
    app, url = started_bank(tmp_path)
    context = chromium.new_context(viewport={"width": 1280, "height": 800})
    errors = []
    page = context.new_page()
    page.on("pageerror", lambda error: errors.append(str(error)))
    log_in_to(page, url, "/admin")
    expect(page.locator("#conn-badge")).to_have_class(re.compile("badge-live"))
    yield app, page
    context.close()
    assert not errors, errors


def live(page, **command):
    """Book through the page's API, as the lead's tap would: every page hears of it at once."""
    assert page.evaluate("c => TB.command(c).then(r => r.ok)", command), command


def test_r34_end_session_is_offered_in_a_session_not_in_the_break_nor_the_last(admin):
    app, page = admin
    bank = app.extensions["terrabank"].bank
    end_session, resume = page.locator('[data-clock="end_session"]'), page.locator('[data-clock="resume"]')
    end_game = page.locator('[data-clock="end_game"]')
    expect(end_session).to_be_enabled()  # session 1 running
    live(page, type="end_session")
    expect(resume).to_be_enabled()  # the break: the lead starts the next session
    expect(end_session).to_be_disabled()
    expect(end_game).to_be_enabled()
    live(page, type="resume")
    assert bank.state.clock["session"] == bank.config.sessions  # the last session (2 in config.toml)
    expect(resume).to_be_disabled()
    expect(end_session).to_be_disabled()  # the bank would refuse: end the game instead
    expect(end_game).to_be_enabled()
