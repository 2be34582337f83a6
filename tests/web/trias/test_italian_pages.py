"""Trias in Italian over HTTP: the pages, the refusals with their rule numbers,
the score page's arithmetic and a new game's computer names speak Italian; a field-game page asked
in Italian falls back to the game's language (French by default) and never offers Italian.

The Italian catalogue's coverage of every Trias message is checked with the other catalogues in
tests/web/field/test_pages.py; the Italian printables in tests/printables/test_italian_print.py.
"""

from __future__ import annotations

import itertools
import re

import pytest

from bank.web.i18n import catalogue, translate
from trias_kit import trias_web_app

HUMAN, HARD = {"kind": "human", "name": "Ana"}, {"kind": "computer", "level": "hard", "name": "Bot"}


@pytest.fixture
def app(tmp_path, config):
    with trias_web_app(tmp_path / "web.db", config) as made:
        yield made


class Phone:
    """A browser with its cookie and CSRF token, switched to a language as the header's buttons do."""

    def __init__(self, app):
        self.app, self.client = app, app.test_client()
        self.csrf = self.client.get("/api/csrf").get_json()["csrf"]
        self.keys = itertools.count(1)

    def post(self, url, body=None):
        return self.client.post(url, json=body if body is not None else {},
                                headers={"X-CSRF-Token": self.csrf, "Idempotency-Key": f"k{next(self.keys)}"})

    def speak(self, code: str):
        reply = self.post(f"/api/lang/{code}")
        assert reply.status_code == 200, reply.get_json()

    def page(self, path: str) -> str:
        reply = self.client.get(path)
        assert reply.status_code == 200, path
        return reply.get_data(as_text=True)


@pytest.fixture
def phone(app):
    return Phone(app)


def strings(html: str) -> dict:
    """The JSON strings a page gives its scripts (as tests/web/field/test_pages.py reads them)."""
    from words_kit import strings as page_strings

    return page_strings(html)


def switcher(html: str) -> list:
    """The languages the header's switch offers, and which one is pressed."""
    return re.findall(r'data-lang="(\w+)" aria-pressed="(\w+)"', html)


def test_a_trias_seat_page_asked_in_italian_speaks_italian_with_the_rules_terms(app, phone):
    phone.speak("it")
    game = app.extensions["trias_games"].create([HUMAN, HARD], 7, "play", "it")
    html = phone.page(f"/trias/s/{game.seats[0]['token']}")
    assert '<html lang="it">' in html
    assert ("it", "true") in switcher(html) and [code for code, _ in switcher(html)] == ["fr", "en", "it"]
    said = strings(html)
    # The Italian rules' own words: tessera, branco, continente, deriva, riserva, Impatto del meteorite.
    assert said["landscape.woods"] == "Bosco" and said["landscape.steppe"] == "Steppa"
    assert said["landscape.meteorite"] == "Impatto del meteorite"
    assert said["phase.drift"] == "fase 1: deriva con la carta pescata (T9, T10)"
    assert said["bar.place"] == "Tocca una tessera illuminata per piazzarvi 2 branchi (T8)."
    assert said["your_turn"] == "Tocca a te!" and said["offline"] == "non connesso"
    for visible in ("La tua carta", "Le tue mosse", "Mosse in elenco", "Punteggi", "in riserva"):
        assert visible in html
    for leftover in ("Votre carte", "Your card", "Your moves", "Vos coups", "en réserve", "in stock"):
        assert leftover not in html


@pytest.mark.parametrize("path", ["/trias/", "/trias/score", "board"])
def test_every_trias_page_is_italian_and_offers_the_three_languages(app, phone, path):
    phone.speak("it")
    if path == "board":
        path = "/trias/g/" + app.extensions["trias_games"].create([HUMAN, HARD], 7, "play", "it").id
    html = phone.page(path)
    assert '<html lang="it">' in html and [code for code, _ in switcher(html)] == ["fr", "en", "it"]
    assert 'aria-label="Lingua"' in html


def test_an_italian_refusal_says_why_with_its_rule_number(app, phone):
    """The seat page shows a refusal as its strings say the engine's code: Italian, with the T-number."""
    phone.speak("it")
    game = app.extensions["trias_games"].create([HUMAN, HARD], 7, "play", "it")
    token = game.seats[game.state.current]["token"] if game.seats[game.state.current]["kind"] == "human" else None
    assert token, "seed 7: the person places first"
    reply = phone.post(f"/trias/api/s/{token}/commands", {"type": "draw"})  # a draw while placing herds
    assert reply.status_code == 409 and reply.get_json()["error"]["code"] == "wrong_phase"
    said = strings(phone.page(f"/trias/s/{token}"))
    assert said["refused"] == "Rifiutato:"
    assert said["error.wrong_phase"] == "Questa mossa non è possibile in questa fase (T9-T15)."
    assert game.state.phase == "place"  # refused: nothing changed


def test_the_score_page_counts_in_italian(phone):
    phone.speak("it")
    reply = phone.post("/trias/api/score", {"land_masses": [
        {"name": "A", "tiles": 5, "herds": {"Nero": 3, "Bianco": 1, "Grigio": 1}},
        {"name": "B", "tiles": 9, "main": True, "herds": {"Nero": 2}}]})
    lines = reply.get_json()["lines"]
    assert lines[0] == "A (5 tessere): Nero 3, Bianco 1, Grigio 1; Nero primo: 5; " \
                       "Bianco e Grigio sono secondi a pari merito e se ne dividono la metà: 2,5 / 2 = 1,25, " \
                       "arrotondato a 2 ciascuno (T18)"
    assert "il continente del Polo Sud non conta" in lines[1]
    assert lines[-1] == "Nero vince con 5 punti (T19)"


def test_a_game_made_from_an_italian_page_names_its_computers_in_italian(app, phone):
    phone.speak("it")
    reply = phone.post("/trias/api/games", {"seats": [HUMAN, {"kind": "computer", "level": "hard"}, {"kind": "computer", "level": "hard"}],
                                            "mode": "play", "seed": 3})
    assert reply.status_code == 201, reply.get_json()
    game = app.extensions["trias_games"].get(reply.get_json()["id"])
    assert game.lang == "it"
    assert [s["name"] for s in game.seats] == ["Ana", "Computer · difficile", "Computer · difficile 2"]


def test_a_bank_page_asked_in_italian_falls_back_to_french_and_offers_no_italian(app, phone):
    phone.speak("it")  # chosen on a Trias page; the field game has no Italian
    for path in ("/login", "/display"):
        html = phone.page(path)
        assert '<html lang="fr"' in html, path
        assert switcher(html) == [("fr", "true"), ("en", "false")], path
    html = phone.page("/login")
    assert "Connexion des animateurs" in html and strings(html)["live"] == "en direct"
    assert strings(html)["offline"] == "hors ligne"  # a message Italian has too: French here all the same
    phone.speak("en")
    assert '<html lang="en">' in phone.page("/login")


def test_an_unknown_language_is_refused_and_changes_nothing(phone):
    reply = phone.post("/api/lang/de")
    assert reply.status_code == 400
    assert reply.get_json()["error"]["message"] == "choose fr, en, it"
    assert '<html lang="fr">' in phone.page("/trias/")


def test_a_missing_italian_message_is_said_in_french_never_in_a_third_language():
    from bank.web.i18n import page_language

    assert "Winner!" not in catalogue("it")
    assert translate("it", "Winner!") == translate("fr", "Winner!") == "Victoire !"
    assert translate("it", "Mountain") == "Montagna"
    assert translate("de", "Mountain") == "Montagne"  # an unknown language: the default, French
    assert page_language("it", "fr") == "fr" and page_language("it", "en") == "en"
    assert page_language("it", "fr", trias=True) == "it" and page_language(None, "en", trias=True) == "en"
