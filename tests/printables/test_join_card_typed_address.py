"""The join card's typing hint matches the address printed under it.

The card said "sur une seule ligne" above an address printed on two lines; a player copying it
could not tell whether the break was part of it. One line says nothing more; several lines
are counted, to be typed one after the other.
"""

from __future__ import annotations

import pytest
from printkit import all_text

from printables.join import render_join

SHORT = "http://10.0.0.1:5000/t/ab"  # fits on one line at the largest size
LONG = "http://192.168.100.123:5000/t/xyj7x6gnzeb9h4tayf9cq2w8e"  # a real field address: two lines


def _words(pdf: bytes) -> str:
    return " ".join(all_text(pdf).split())


@pytest.mark.parametrize("lang, joined, single", [
    ("fr", "ou tapez l'adresse : ses 2 lignes à la suite, sans espace", "ou tapez l'adresse :"),
    ("en", "or type the address: its 2 lines run together, no space", "or type the address:"),
])
def test_the_hint_counts_the_lines_of_the_address_it_sits_above(config, lang, joined, single):
    long_card = _words(render_join(config, {"blue": LONG}, lang))
    assert joined in long_card
    assert "seule ligne" not in long_card and "as one line" not in long_card
    assert "xyj7x6gnzeb9h4tayf9cq2w8e" in long_card.replace(" ", "")  # the token is all there
    short_card = _words(render_join(config, {"blue": SHORT}, lang))
    assert single in short_card and joined not in short_card and "/t/ab" in short_card
