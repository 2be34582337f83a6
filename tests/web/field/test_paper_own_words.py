"""Paper re-entry takes the ledger's own words.

"Rouge construit centrale 1" was refused "centrale n'est pas un bâtiment de cette partie": the
cards, the boards and the state sheet print "Centrale I", and only "centrale I" booked. The
refusal did not list the names it accepts, and "the number of tokens must be a multiple of the
rate" did not say the rate. Every name the paper prints now reads back as printed, in any case,
with or without accents, singular or plural, with Arabic or Roman numerals; a refused name lists
the accepted ones; a refusal gives the numbers it depends on.
"""

from __future__ import annotations

import re
import unicodedata

import pytest
from play import DEFAULT_CONFIG

from bank.game.config import load_config
from bank.web.field.paper_syntax import ROMAN, Grammar, PaperSyntaxError, parse

CONFIG = load_config(DEFAULT_CONFIG)
ARABIC = {v: k.upper() for k, v in ROMAN.items()}
VERB = {"fr": {"building": "construit", "animal": "achète", "track": "piste"},
        "en": {"building": "build", "animal": "buy", "track": "track"}}
FIELD = {"building": "building", "animal": "animal"}


def grammar(lang="fr"):
    return Grammar(CONFIG, {"ev1": {"title": "Sécheresse"}}, lang)


def bare(text: str) -> str:
    return "".join(c for c in unicodedata.normalize("NFD", text) if unicodedata.category(c) != "Mn")


def numerals_swapped(text: str) -> str:
    """'Centrale I' <-> 'Centrale 1', 'Power plant 2' <-> 'Power plant II'."""
    def swap(match):
        word = match.group(0)
        return ROMAN.get(word.lower(), ARABIC.get(word, word))
    return re.sub(r"\b([IVXivx]{1,4}|\d{1,2})\b", swap, text)


def written_forms(label: str) -> set:
    """How a banker copies a printed name back: as printed, any case, no accents, plural, numerals swapped."""
    forms = {label, label.lower(), label.upper(), bare(label), bare(label).lower(), numerals_swapped(label),
             numerals_swapped(label).lower(), bare(numerals_swapped(label)).upper()}
    words = label.split(" ")
    if not words[-1][-1:].isdigit() and words[-1].upper() not in ARABIC.values():
        forms.add(label + "s")
    return forms


def printed_names():
    for kind, things in (("building", CONFIG.buildings), ("animal", CONFIG.animals), ("track", CONFIG.tracks)):
        for thing in things.values():
            for lang, label in thing.label.items():
                for form in sorted(written_forms(label)):
                    yield pytest.param(kind, thing.id, lang, form, id=f"{kind}-{lang}-{form}")


@pytest.mark.parametrize("kind, expected, lang, written", list(printed_names()))
def test_every_printed_name_reads_back_as_the_paper_shows_it(kind, expected, lang, written):
    team = CONFIG.teams["red"].label[lang]
    command = parse(f"{team} {VERB[lang][kind]} {written}", grammar(lang))
    if kind == "track":
        assert command["steps"] == {expected: 1}
    else:
        assert command[FIELD[kind]] == expected


@pytest.mark.parametrize("line, building", [
    ("Rouge construit centrale 1", "power_plant_1"),
    ("Rouges construit Centrale I", "power_plant_1"),
    ("rouge construit CENTRALE II", "power_plant_2"),
    ("Red build power plant 2", "power_plant_2"),
    ("Red build Power Plant II", "power_plant_2"),
])
def test_the_field_days_lines_book(line, building):
    assert parse(line, grammar())["building"] == building


def test_roman_numerals_also_name_a_harvesters_card():
    assert parse("Bleu récolte eau II", grammar())["card"] == "harvester-2"


@pytest.mark.parametrize("lang, word, listed", [
    ("fr", "usine", ["Centrale I", "Centrale II", "Serre", "Laboratoire"]),
    ("en", "plant", ["Power plant I", "Greenhouse", "Laboratory"]),
])
def test_a_refused_building_lists_the_names_it_accepts_in_the_pages_language(lang, word, listed):
    team = CONFIG.teams["red"].label[lang]
    with pytest.raises(PaperSyntaxError) as refused:
        parse(f"{team} {VERB[lang]['building']} {word} 7", grammar(lang))
    assert refused.value.code == "paper_unknown_building"
    assert all(name in refused.value.params["known"] for name in listed)
    assert all(name in refused.value.message for name in listed)


def test_a_refused_animal_and_resource_list_theirs():
    with pytest.raises(PaperSyntaxError) as animal:
        parse("Bleu achète licorne", grammar())
    assert "Mouton" in animal.value.params["known"] and "Renard" in animal.value.params["known"]
    with pytest.raises(PaperSyntaxError) as resource:
        parse("Bleu récolte charbon 2", grammar())
    assert "Eau" in resource.value.params["known"] and "Énergie" in resource.value.params["known"]
