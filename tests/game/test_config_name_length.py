"""A team name's 30 characters are counted as a reader counts them (bank/game/graphemes.py).

The limit counted code points: "Zoé et Ève" with its accents typed apart (e + U+0301, as a Mac's file
names give it), a family emoji (seven code points), a thumb with its skin tone or a flag (two) made a
name of 30 characters "31 to 40 characters long", refused, and the suggested cut could end inside an
emoji (a lone joiner, half a flag). Now each letter with its accents, each emoji with its joiners is
one, the name is kept composed (NFC) for every page and sheet, and the cut never splits one.
"""

from __future__ import annotations

import ast
import unicodedata

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from print_names_kit import config_text_with_teams

from bank.errors import ConfigError
from bank.game.config import parse_config
from bank.game.config_sections import TEAM_NAME_MAX
from bank.game.graphemes import graphemes as seen

# Each one character to a reader, one to five code points.
SEEN = ["a", "W", "é", "e\u0301", "E\u0300", "n\u0308", "œ", " ", "-", "’", "🌱", "👍🏽", "🇫🇷", "👨\u200d👩\u200d👧",
        "🏳️\u200d🌈", "❤️", "🐦\u200d🔥"]


def config_named(name: str):
    return parse_config(config_text_with_teams([(name, "Blues"), ("Rouges", "Reds")]), "config.toml")


@settings(max_examples=30, deadline=None)
@given(st.lists(st.sampled_from(SEEN), min_size=TEAM_NAME_MAX - 2, max_size=TEAM_NAME_MAX + 3))
def test_a_name_is_as_long_as_its_characters_seen_and_cut_between_them(chars):
    name = "Z" + "".join(chars) + "z"  # no space at either end: the name is kept as written
    count = len(chars) + 2
    if count <= TEAM_NAME_MAX:
        label = config_named(name).teams["blue"].label["fr"]
        assert label == unicodedata.normalize("NFC", name) and len(seen(label)) == count
        return
    with pytest.raises(ConfigError) as refused:
        config_named(name)
    said = str(refused.value)
    assert f"is {count} characters long" in said
    example = said.split("e.g. ")[1]
    cut = ast.literal_eval(example)  # the suggestion: the name's first 30 characters, composed, none split
    composed = unicodedata.normalize("NFC", name)
    assert composed.startswith(cut) and cut == "".join(seen(composed)[:TEAM_NAME_MAX]).strip()
    assert len(seen(cut)) <= TEAM_NAME_MAX


def test_a_mac_s_decomposed_name_of_thirty_letters_is_accepted_composed():
    name = unicodedata.normalize("NFD", "L'Équipe des Ébènes Éléphantes")  # 30 letters, 35 code points
    assert len(name) == 35
    assert config_named(name).teams["blue"].label["fr"] == "L'Équipe des Ébènes Éléphantes"
