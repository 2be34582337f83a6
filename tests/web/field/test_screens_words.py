"""The words a game day read wrong: an exchange under the rate, the bank-down page's
bankers, and the API's refusals of an unknown address and of the replay without a key in the game's language.

An exchange of 7 tokens at 8 for 1 was refused with "donnez-en 8 ou 8"; the bank-down page said "les
bancaires continuent sur papier"; GET /api/nowhere and the replay's 403 carried only English in a French game.
"""

from __future__ import annotations

import re

import pytest
from hypothesis import given, settings, strategies as st

from bank.errors import RuleError
from bank.web import refusal_text
from play import Game

GIVE = {"fr": re.compile(r"donnez-en (\d+)(?: ou (\d+))?\."), "en": re.compile(r"give (\d+)(?: or (\d+))?\.")}


@settings(max_examples=60, deadline=None)
@given(rate=st.integers(2, 12), points=st.integers(1, 3), total=st.integers(1, 40), lang=st.sampled_from(["fr", "en"]))
def test_an_exchange_off_the_rate_names_amounts_that_are_multiples_around_it(rate, points, total, lang):
    if total % rate == 0:
        return
    game = Game()
    if (rate, points) != (10, 1):
        game.do(type="set_rate", tokens=rate, points=points)
    game.give("blue", water=total)
    with pytest.raises(RuleError) as refused:
        game.do(type="exchange", team="blue", tokens={"water": total})
    sentence = refusal_text.text(refused.value.to_dict(), game.config, lang)
    found = GIVE[lang].search(sentence)
    assert found, sentence
    amounts = [int(n) for n in found.groups() if n]
    assert len(set(amounts)) == len(amounts), sentence  # never "8 ou 8"
    assert all(n % rate == 0 and n > 0 for n in amounts), sentence
    assert max(amounts) > total and (len(amounts) == 1) == (total < rate), sentence
    numbers = re.findall(r"give ([\d or]+)", refused.value.message)[0].split(" or ")
    assert len(set(numbers)) == len(numbers), refused.value.message  # the English message for logs too


def test_the_bank_down_page_says_the_bankers_go_on_on_paper():
    from printables.state_procedure import STEPS

    assert "bancaires" not in STEPS["fr"]["intro"] and "les banquiers continuent sur papier" in STEPS["fr"]["intro"]


@pytest.mark.parametrize("lang, words", [("fr", ("Il n’y a rien à cette adresse", "grand écran ouvert avec son propre lien")),
                                         ("en", ("There is nothing at this address", "big screen opened with its own link"))])
def test_an_unknown_api_address_and_the_replay_without_a_key_answer_in_the_game_language(web, lang, words):
    client = web()
    if lang != "fr":
        client.client.post(f"/api/lang/{lang}", headers={"X-CSRF-Token": client.csrf})
    unknown, replay = client.client.get("/api/nowhere"), client.client.get("/api/replay")
    assert unknown.status_code == 404 and unknown.get_json()["error"]["code"] == "unknown_address"
    assert replay.status_code == 403 and replay.get_json()["error"]["code"] == "screen_key_needed"
    assert words[0] in unknown.get_json()["error"]["text"], unknown.get_json()
    assert words[1] in replay.get_json()["error"]["text"], replay.get_json()
