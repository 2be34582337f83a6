"""The Trias score calculator in Chromium on a 360 px phone: the rules' Example 3 typed in gives
19 / 15 / 15 / 8 (T18, T20); a bad entry gets its sentence next to the field and nothing is counted.

Needs Playwright and Debian's Chromium (skipped without them); the server runs in a thread.
"""

from __future__ import annotations

import logging
from pathlib import Path

import pytest

from browserkit import CHROMIUM, serve_in_thread

from needs import needs  # noqa: E402

pytestmark = needs("playwright", "chromium")

# T20: Example 3: (tiles, herds of Black, White, Cross, Grey) for land masses A to H.
EXAMPLE_3 = [(3, (2, 0, 1, 0)), (4, (0, 1, 1, 1)), (8, (2, 0, 2, 0)), (6, (0, 1, 1, 0)),
             (1, (0, 1, 0, 1)), (5, (1, 0, 0, 2)), (4, (1, 1, 0, 0)), (5, (1, 1, 0, 0))]


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    from bank.web import create_app

    logging.getLogger("werkzeug").setLevel(logging.ERROR)
    folder = tmp_path_factory.mktemp("trias-score")
    app = create_app({"DB": str(folder / "game.db"), "CONFIG": str(Path(__file__).resolve().parents[3] / "config.toml"),
                      "PASSWORD_HASH": "pbkdf2:sha256:1000"})
    url, _ = serve_in_thread(app)
    return url


@pytest.fixture
def phone(chromium, server):
    """A fresh 360 x 740 page on the calculator (empty storage); fails the test on any script error."""
    context = chromium.new_context(viewport={"width": 360, "height": 740})
    page, errors = context.new_page(), []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.goto(server + "/trias/score")
    yield page
    context.close()
    assert not errors, errors


def expect(locator):
    return pytest.importorskip("playwright.sync_api").expect(locator)


def type_example_3(page) -> None:
    for m, (tiles, herds) in enumerate(EXAMPLE_3):
        if m:
            page.click("#add-mass")
        page.fill(f'[data-mass="{m}"][data-field="tiles"]', str(tiles))
        for p, n in enumerate(herds):
            if n:
                page.fill(f'[data-mass="{m}"][data-field="herds"][data-player="{p}"]', str(n))


def wider_than_the_screen(page) -> int:
    return page.evaluate("document.documentElement.scrollWidth - innerWidth")


def test_t18_t20_example_3_through_the_page_gives_19_15_15_8(phone):
    expect(phone.locator("h1")).to_have_text("Calculateur de score Trias")  # French by default
    type_example_3(phone)
    phone.click("#compute")
    expect(phone.locator("#winners")).to_have_text("Vainqueur : Noir")
    for name, total in (("Noir", "19"), ("Blanc", "15"), ("Croix", "15"), ("Gris", "8")):
        expect(phone.locator(f'[data-total="{name}"]')).to_have_text(total)
    arithmetic = phone.locator("#lines li", has_text="F (5 tuiles)")
    expect(arithmetic).to_contain_text("arrondi à 3")  # Black second on F: 5/2 = 2.5, shown and rounded up
    assert wider_than_the_screen(phone) <= 0, "the page scrolls sideways on a 360 px phone"


def test_t18_the_main_land_mass_ticked_is_not_scored(phone):
    type_example_3(phone)
    phone.check('[data-mass="2"][data-field="main"]')  # C: 6 points each to Black and Cross otherwise
    phone.click("#compute")
    expect(phone.locator("#winners")).to_have_text("Vainqueur : Blanc")
    expect(phone.locator('[data-total="Noir"]')).to_have_text("13")
    expect(phone.locator("#points-table tr.is-main")).to_contain_text("principal : ne compte pas")


def test_a_bad_entry_gets_a_sentence_next_to_its_field_and_nothing_is_counted(phone):
    type_example_3(phone)
    phone.fill('[data-mass="1"][data-field="tiles"]', "0")
    phone.fill('[data-field="stock"][data-player="0"]', "12")  # Black: 7 herds on the masses + 12 > 15 (T7)
    phone.click("#compute")
    tiles = phone.locator('[data-mass="1"][data-field="tiles"]')
    expect(tiles).to_have_attribute("aria-invalid", "true")
    beside = phone.locator('label.tscore-field:has([data-mass="1"][data-field="tiles"]) .tscore-msg')
    expect(beside).to_have_text("Tuiles : un nombre entier de 1 à 36.")
    stock = phone.locator('label.tscore-field:has([data-field="stock"][data-player="0"]) .tscore-msg')
    expect(stock).to_contain_text("Noir a 19 troupeaux")
    expect(phone.locator("#result")).to_be_hidden()
    assert wider_than_the_screen(phone) <= 0, "a sentence pushed the page wider than the phone"
    phone.fill('[data-mass="1"][data-field="tiles"]', "4")  # correcting a field clears its sentence
    expect(beside).to_have_text("")


def test_entries_survive_a_reload_and_start_again_clears_them(phone):
    phone.fill('[data-mass="0"][data-field="tiles"]', "3")
    phone.fill('[data-player-name="0"]', "Rouge")
    phone.reload()
    expect(phone.locator('[data-mass="0"][data-field="tiles"]')).to_have_value("3")
    expect(phone.locator('[data-mass="0"][data-player="0"]').locator("xpath=..")).to_contain_text("Rouge")
    phone.click("#clear")
    expect(phone.locator('[data-mass="0"][data-field="tiles"]')).to_have_value("")
