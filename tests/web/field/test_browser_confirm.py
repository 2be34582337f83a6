"""A double click cannot end the game: the "tap again" of irreversible buttons needs a real second tap.

A double tap on "Finir la partie" ended the game for good, because both
clicks of a double click landed before anyone could read "tap again". Needs Playwright and
Debian's Chromium; skipped without them.
"""

from __future__ import annotations

import logging
from pathlib import Path

import pytest

from needs import module, needs  # noqa: E402
sync_api = module("playwright.sync_api")  # a stand-in without Playwright: pytestmark skips the tests
from browserkit import CHROMIUM, log_in_to, serve_in_thread  # noqa: E402

pytestmark = needs("playwright", "chromium")
ROOT = Path(__file__).resolve().parents[3]
expect = sync_api.expect


def test_r35_a_double_click_on_end_the_game_does_not_end_it_a_second_tap_does(chromium, tmp_path):
    from bank.web import create_app

    logging.getLogger("werkzeug").setLevel(logging.ERROR)
    app = create_app({"DB": str(tmp_path / "game.db"), "CONFIG": str(ROOT / "config.toml"),
                      "PASSWORD_HASH": "pbkdf2:sha256:1000"})
    bank = app.extensions["terrabank"].bank
    app.extensions["terrabank"].access.add_user("lea", "password1", "lead")
    bank.execute({"id": "go", "type": "start_clock", "actor": "lea"})
    url, _ = serve_in_thread(app)
    context = chromium.new_context(viewport={"width": 1280, "height": 900})
    try:
        page = context.new_page()
        log_in_to(page, url, "/admin")
        end = page.locator('[data-clock="end_game"]')
        expect(end).to_be_enabled()
        end.dblclick()
        page.wait_for_timeout(1000)
        assert bank.state.clock["status"] == "running"  # the double click only armed it
        expect(end).not_to_have_text("Finir la partie")  # it now asks for a second tap
        end.click()  # a real second tap, a moment later
        expect(end).to_be_disabled()
        assert bank.state.clock["status"] == "ended"
    finally:
        context.close()
