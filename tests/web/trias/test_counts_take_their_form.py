"""Trias's counts take their language's form at 0, 1, 2 and 5 (fr, en, it).

Before: the end's button said "Montrer les 1 continents (1 sans point)" when the only land mass had
no points, and "0 cartes dans la pioche", "(0 troupeaux)" in French, whose singular covers 0.
Now each is one plural entry (ngettext) in the catalogues; the page's script picks the form.
"""

from __future__ import annotations

import pytest
from words_kit import COUNTS, WRONG_COUNT, js_t, template_strings

WANT = {
    "fr": {("deck_left", 0): "0 carte dans la pioche", ("deck_left", 1): "1 carte dans la pioche",
           ("deck_left", 2): "2 cartes dans la pioche", ("herds_n", 0): "0 troupeau", ("herds_n", 1): "1 troupeau",
           ("herds_n", 5): "5 troupeaux"},
    "en": {("deck_left", 0): "0 cards in the deck", ("deck_left", 1): "1 card in the deck",
           ("herds_n", 1): "1 herd", ("herds_n", 2): "2 herds"},
    "it": {("deck_left", 1): "1 carta nel mazzo", ("deck_left", 2): "2 carte nel mazzo",
           ("herds_n", 1): "1 branco", ("herds_n", 0): "0 branchi"},
}


@pytest.fixture
def trias_words(app):
    return {lang: template_strings(app, "trias/_head.html", lang, path="/trias/") for lang in WANT}


@pytest.mark.parametrize("lang", sorted(WANT))
def test_counts_read_right_at_0_1_2_5(trias_words, lang):
    said = trias_words[lang]
    assert {key: js_t(said, lang, key[0], n=key[1]) for key in WANT[lang]} == WANT[lang]
    for n in COUNTS:
        for key in ("deck_left", "herds_n"):
            assert not WRONG_COUNT.search(js_t(said, lang, key, n=n))


@pytest.mark.parametrize("lang", sorted(WANT))
@pytest.mark.parametrize("n, k", [(1, 1), (2, 1), (2, 2), (5, 2), (5, 5)])
def test_show_all_land_masses_button(trias_words, lang, n, k):
    """k of the n land masses scored nothing: the button that shows them says so in words that agree."""
    button = js_t(trias_words[lang], lang, "masses_all", n=n, k=k)
    assert not WRONG_COUNT.search(button), button
    assert ("les 1 " not in button) and ("all 1 " not in button) and ("tutti i 1 " not in button), button
    assert (str(n) in button) == (n > 1), button  # "the only land mass" needs no number
