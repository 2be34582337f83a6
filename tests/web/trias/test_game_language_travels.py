"""The table's language travels with the game.

A game made in Italian or English opened in French on every phone that scanned its seat code:
the page spoke the device's choice, else the bank's config language (French), never the game's.
Now a game's pages (its seats' phones, its table) speak the language it was made in, and a
device's own choice still wins for that device.
"""

from __future__ import annotations

import pytest

from needs import module, needs  # noqa: E402
from trias_kit import trias_web_app

sync_api = module("playwright.sync_api")

from browserkit import CHROMIUM  # noqa: E402,F401 (the chromium fixture)
from test_browser_trias import PHONE, WAIT, pages, server  # noqa: E402,F401 (fixtures)
from test_italian_pages import Phone  # noqa: E402

YOUR_CARD = {"fr": "Votre carte", "en": "Your card", "it": "La tua carta"}


@pytest.fixture
def app(tmp_path, config):
    with trias_web_app(tmp_path / "web.db", config) as made:
        yield made


class Device(Phone):
    """A browser with its own cookie (tests/web/trias/test_italian_pages.py's), which also makes Trias games."""

    def new_game(self, app):
        reply = self.post("/trias/api/games", {"seats": [{"name": "Ana", "kind": "human"},
                                                         {"name": "Bea", "kind": "human"}], "seed": 3})
        assert reply.status_code == 201, reply.get_json()
        return app.extensions["trias_games"].get(reply.get_json()["id"])


@pytest.mark.parametrize("lang", ["it", "en"])
def test_a_seat_link_opens_in_the_games_language_on_a_phone_that_never_chose(app, lang):
    maker = Device(app)
    maker.speak(lang)
    game = maker.new_game(app)
    assert game.lang == lang
    phone = Device(app)  # a fresh phone scanning the seat's code: no choice of its own
    page = phone.client.get(f"/trias/s/{game.seats[1]['token']}").get_data(as_text=True)
    assert f'<html lang="{lang}"' in page and YOUR_CARD[lang] in page
    board = phone.client.get(f"/trias/g/{game.id}").get_data(as_text=True)  # the TV, opened by address
    assert f'<html lang="{lang}"' in board


def test_a_phones_own_choice_still_wins_for_that_phone(app):
    maker = Device(app)
    maker.speak("it")
    game = maker.new_game(app)
    phone = Device(app)
    phone.speak("en")
    page = phone.client.get(f"/trias/s/{game.seats[0]['token']}").get_data(as_text=True)
    assert '<html lang="en"' in page and YOUR_CARD["en"] in page
    other = Device(app)  # ... and only for that phone
    assert '<html lang="it"' in other.client.get(f"/trias/s/{game.seats[0]['token']}").get_data(as_text=True)


def test_the_bank_pages_keep_the_field_games_language(app):
    """An Italian Trias game does not turn the field game's pages Italian (Italian is Trias's only)."""
    maker = Device(app)
    maker.speak("it")
    maker.new_game(app)
    assert '<html lang="fr"' in Device(app).client.get("/login").get_data(as_text=True)


@needs("playwright", "chromium")
def test_browser_a_seat_link_of_an_italian_game_opens_in_italian_at_360x740(server, pages):
    app, url = server
    game = app.extensions["trias_games"].create(seats=[{"name": "Ana", "kind": "human"},
                                                      {"name": "Bea", "kind": "human"}], seed=5, lang="it")
    phone = pages(PHONE)
    phone.goto(f"{url}/trias/s/{game.seats[0]['token']}")
    assert phone.evaluate("() => document.documentElement.lang") == "it"
    sync_api.expect(phone.locator("body")).to_contain_text(YOUR_CARD["it"], timeout=WAIT)
    assert YOUR_CARD["fr"] not in phone.inner_text("body")
