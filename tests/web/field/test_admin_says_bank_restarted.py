"""Nothing on the admin page said the bank had restarted. Now the clock panel says
when this bank opened the game again and how long it can have been down (the journal's last trace).

Needs Playwright and Debian's Chromium; skipped without them.
"""

from __future__ import annotations

import datetime
import logging
import re
import time
from pathlib import Path

import pytest

from needs import module, needs  # noqa: E402
sync_api = module("playwright.sync_api")  # a stand-in without Playwright: pytestmark skips the tests
from browserkit import log_in_to, serve_in_thread  # noqa: E402

pytestmark = needs("playwright", "chromium")
expect = sync_api.expect
CONFIG = Path(__file__).resolve().parents[3] / "config.toml"


def _admin(chromium, app):
    url, _ = serve_in_thread(app)
    context = chromium.new_context(viewport={"width": 1280, "height": 800})
    page = context.new_page()
    log_in_to(page, url, "/admin")
    expect(page.locator("#conn-badge")).to_have_class(re.compile("badge-live"))
    return context, page


def _app(folder):
    from bank.web import create_app

    logging.getLogger("werkzeug").setLevel(logging.ERROR)
    return create_app({"DB": str(folder / "game.db"), "CONFIG": str(CONFIG), "PASSWORD_HASH": "pbkdf2:sha256:1000"})


def test_the_admin_page_says_when_the_bank_restarted_and_how_long_it_was_down(chromium, tmp_path):
    from bank.game.config import load_config
    from bank.services.bank import Bank

    with Bank.create(tmp_path / "game.db", load_config(CONFIG)) as bank:  # a game under way, then the machine stops
        bank.execute({"id": "start", "type": "start_clock"})
        bank.execute({"id": "pause", "type": "pause"})
        bank._journal.save_checkpoint(bank.now(), time.time() - 3700)  # its last trace: 1 h 01 min 40 s ago
    app = _app(tmp_path)
    app.extensions["terrabank"].access.add_user("lea", "password1", "lead")
    context, page = _admin(chromium, app)
    opened = datetime.datetime.fromtimestamp(app.extensions["terrabank"].bank.reopened["at"])
    # Past an hour the minute is rounded up, so that "at most" stays true: 1 h 01 min 40 s is said 1 h 02 min
    # (under an hour the page says minutes and seconds: tests/web/field/test_browser_small_screens.py).
    expect(page.locator("#bank-reopened")).to_have_text(
        f"La banque a redémarré à {opened.hour}:{opened.minute:02d}, après 1 h 02 min d’arrêt au plus.")
    context.close()


def test_a_game_opened_for_the_first_time_says_nothing_of_a_restart(chromium, tmp_path):
    app = _app(tmp_path)
    app.extensions["terrabank"].access.add_user("lea", "password1", "lead")
    context, page = _admin(chromium, app)
    expect(page.locator("#clock-text")).not_to_be_empty()
    expect(page.locator("#bank-reopened")).to_be_hidden()
    context.close()
