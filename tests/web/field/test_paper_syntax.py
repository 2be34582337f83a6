"""The paper ledgers' moves as typed back: every printed form reads, in French and English,
to the same command; a mistyped line says which word, as typed, and what the bank expected."""

from __future__ import annotations

import pytest
from play import DEFAULT_CONFIG

from bank.game import fields
from bank.game.config import load_config
from bank.web.field.paper_syntax import Grammar, PaperSyntaxError, parse
from printables.state_syntax import forms

FORMS = forms(load_config(DEFAULT_CONFIG))  # the printed examples, in the game's own names


@pytest.fixture(scope="module")
def grammar():
    return Grammar(load_config(DEFAULT_CONFIG), {"ev1": {"title": "Sécheresse"}})


@pytest.mark.parametrize("fr, en, kind", FORMS, ids=[form[1] for form in FORMS])
def test_each_printed_form_reads_the_same_in_both_languages(grammar, fr, en, kind):
    command = parse(fr, grammar)
    assert command == parse(en, grammar) or kind == "award"  # an award keeps its reason as written
    assert command["type"] == kind
    assert not fields.unknown_fields(command)  # what POST /api/commands takes, field for field


@pytest.mark.parametrize("line, command", [
    ("14:32 Bleus récolte Énergie 2", {"type": "harvest", "team": "blue", "card": "harvester-2", "resource": "energy"}),
    ("BLEU RECOLTE EAU", {"type": "harvest", "team": "blue", "card": "harvester-1", "resource": "water"}),
    ("Jaunes construit centre de purification", {"type": "build", "team": "yellow", "building": "purification_centre"}),
    ("Verts construit Centrale II", {"type": "build", "team": "green", "building": "power_plant_2"}),
    ("Rouges piste atmosphère", {"type": "raise_tracks", "team": "red", "steps": {"atmosphere": 1}}),
    ("Bleu contribue Sécheresse 3 eau", {"type": "contribute", "event": "ev1", "team": "blue", "tokens": {"water": 3}}),
    ("Bleu échange eau 5 flore 5", {"type": "exchange", "team": "blue", "tokens": {"water": 5, "flora": 5}}),
    ("Bleu prime 3 Belle équipe", {"type": "award", "team": "blue", "points": 3, "reason": "Belle équipe"}),
])
def test_names_as_people_write_them(grammar, line, command):
    assert parse(line, grammar) == command


@pytest.mark.parametrize("line, code, word", [
    ("Violets récolte eau", "paper_unknown_team", "Violets"),
    ("Bleu mange eau", "paper_unknown_move", "mange"),
    ("Bleu construit Château", "paper_unknown_building", "Château"),
    ("Bleu récolte Sable", "paper_unknown_resource", "Sable"),
    ("Bleu contribue ev9 3 eau", "paper_unknown_event", "ev9"),
    ("Rouge pirate 1 tape Bleu récolteur 1", "paper_fight_result", "tape"),
    ("Bleu jokers", "paper_number_missing", "jokers"),
])
def test_a_mistyped_line_names_the_word_as_typed(grammar, line, code, word):
    with pytest.raises(PaperSyntaxError) as caught:
        parse(line, grammar)
    assert caught.value.code == code and caught.value.params["word"] == word


def test_words_left_over_are_refused_not_ignored(grammar):
    with pytest.raises(PaperSyntaxError) as caught:
        parse("Bleu récolte eau 2 3", grammar)
    assert caught.value.code == "paper_extra_words" and caught.value.params["words"] == "3"


def test_an_event_announced_on_paper_is_refused_saying_to_open_it_in_the_bank_first(grammar):
    """An event announced during the outage has no id in the bank: "Bleus contribue Inondation 3 eau" was
    refused as "not an event: write its number, such as ev1", also in a game with no event at all."""
    none_yet = Grammar(load_config(DEFAULT_CONFIG), {})
    for line, names, code in (("Bleu contribue Inondation 3 eau", none_yet, "paper_no_event"),
                              ("Bleu contribue Inondation 3 eau", grammar, "paper_unknown_event"),
                              ("ferme Inondation", grammar, "paper_unknown_event")):
        with pytest.raises(PaperSyntaxError) as caught:
            parse(line, names)
        assert caught.value.code == code and caught.value.params["word"] == "Inondation", line
        assert "open it under Events first" in caught.value.message
    assert parse("Bleu contribue Sécheresse 3 eau", grammar)["event"] == "ev1"  # once opened, its title names it
