"""A Trias seat phone in Italian, in real Chromium at 360x740: switched with the
header's IT button, the game made from the Italian start page, the seat page shows Italian text and
no French or English left in what is visible, and a refusal is said in Italian with its rule number.

Needs Playwright's Python package and Debian's Chromium (skipped without them). Waits are on what the
page shows, never on fixed times. The screenshot is written to the test's folder to be looked at.
"""

from __future__ import annotations

import logging
import re
from pathlib import Path

import pytest

from needs import module, needs  # noqa: E402
sync_api = module("playwright.sync_api")  # a stand-in without Playwright: pytestmark skips the tests
from browserkit import serve_in_thread, stop_servers  # noqa: E402

from bank.web.i18n import catalogue  # noqa: E402

pytestmark = needs("playwright", "chromium")

ROOT = Path(__file__).resolve().parents[3]
PHONE = {"width": 360, "height": 740}
WAIT = 60_000  # ms; a loaded machine may be slow, nothing here waits this long when all is well
# Words of the French and English Trias pages that Italian never uses; "carte" is Italian too (le carte).
FOREIGN_WORDS = re.compile(r"\b(herds?|tiles?|your|turn|moves?|stock|pts|undo|board|troupeaux?|tuiles?|votre|vos|"
                           r"vous|tour|coups?|réserve|plateau|annuler|hors ligne|en direct|live|offline)\b", re.I)


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    """The app with its computer player (moves 0.05 s apart) on 127.0.0.1."""
    from bank.web import create_app

    logging.getLogger("werkzeug").setLevel(logging.ERROR)
    folder = tmp_path_factory.mktemp("trias-it")
    app = create_app({"DB": str(folder / "game.db"), "CONFIG": str(ROOT / "config.toml"),
                      "TRIAS_COMPUTER": True, "TRIAS_PACE": 0.05})
    url, _ = serve_in_thread(app)
    yield app, url
    stop_servers()


def leftovers(lines: list) -> list:
    """Visible lines that are a French or English message but not an Italian one, or hold a word Italian never uses."""
    italian = set(catalogue("it").values())
    foreign = (set(catalogue("fr").values()) | set(catalogue("en")) | set(catalogue("en").values())) - italian
    return [line for line in lines if line in foreign or FOREIGN_WORDS.search(line)]


def test_an_italian_seat_phone_shows_italian_only_and_refuses_in_italian(server, chromium, tmp_path):
    app, url = server
    context = chromium.new_context(viewport=PHONE)
    errors = []
    try:
        start = context.new_page()
        start.on("pageerror", lambda error: errors.append(str(error)))
        start.goto(url + "/trias/")
        with start.expect_navigation():
            start.click("[data-lang=it]")  # the header's switch: the page reloads in Italian
        assert start.evaluate("() => document.documentElement.lang") == "it"
        sync_api.expect(start.locator("h1")).to_have_text("Nuova partita a Trias")
        start.fill("#seats li:nth-child(1) [name=name]", "Ana")
        start.fill("#seed", "7")
        start.click("#create")
        start.wait_for_url("**/trias/g/*", timeout=WAIT)
        game = app.extensions["trias_games"].get(start.url.rsplit("/", 1)[1])
        assert game.lang == "it" and game.seats[1]["name"] == "Computer · facile"

        phone = context.new_page()
        phone.on("pageerror", lambda error: errors.append(str(error)))
        token = game.seats[0]["token"]
        phone.goto(f"{url}/trias/s/{token}")
        phone.wait_for_function("() => document.body.dataset.myturn === '1'", timeout=WAIT)  # seed 7: Ana places first
        sync_api.expect(phone.locator("#conn-badge")).to_have_text("connesso", timeout=WAIT)
        shot = tmp_path / "seat-it-360x740.png"
        phone.screenshot(path=str(shot))
        lines = [line.strip() for line in phone.evaluate("() => document.body.innerText").splitlines() if line.strip()]
        labels = phone.evaluate("""() => Array.from(document.querySelectorAll('[aria-label]'))
            .filter(e => e.offsetParent !== null).map(e => e.getAttribute('aria-label'))""")
        assert "Tocca una tessera illuminata per piazzarvi 2 branchi (T8)." in lines, lines
        assert "La tua carta" in " ".join(lines) and "Lingua" in labels
        assert not leftovers(lines + labels), (leftovers(lines + labels), shot)

        # A move the rules refuse (a draw while placing herds), sent as a tap sends it: said in Italian, with its rule.
        phone.evaluate("(url) => TT.send(url, { type: 'draw' })", f"/trias/api/s/{token}/commands")
        sync_api.expect(phone.locator("#error")).to_have_text(
            "Rifiutato: Questa mossa non è possibile in questa fase (T9-T15).", timeout=WAIT)
        assert game.state.phase == "place"  # nothing changed
        phone.screenshot(path=str(tmp_path / "seat-it-refused-360x740.png"))
        assert phone.evaluate("() => document.documentElement.scrollWidth <= window.innerWidth")
    finally:
        context.close()
    assert not errors, errors
