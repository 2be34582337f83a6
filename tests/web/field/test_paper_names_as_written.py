"""Team, building and animal names read back as people write them (bank/game/typed_names.py).

A game day had teams called "Mégalosaure-Anticonstitutionné", "Les Verts 🌱 qui Poussent Vite" and
"Zoé, Ève, Noël, Anaïs — Équipe": re-entry refused them copied from the state sheet (a box for the
emoji, a name cut by the sheet), typed without the emoji, "Oeufs" for "Œufs", "-" for "—", "Verts"
for "Les Verts"; a fight against a team whose name starts with "Les" could not be typed at all
("bat" skipped the article, then the name did not match). Now every written form of a name books
it, an ambiguous one is refused naming the candidates, and the config refuses two teams that would
be one typed name. The property generates names, builds the config, and types back what the sheets
draw: the ledger's full name and the state sheet's lines (printables/name_lines.py).
"""

from __future__ import annotations

import re
import unicodedata
from pathlib import Path

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from bank.errors import ConfigError
from bank.game.config import parse_config
from bank.game.typed_names import ARTICLES, typed_key, words_of
from bank.web.field.paper_syntax import Grammar, PaperSyntaxError, parse
from conftest import CONFIG_PATH
from printables.name_lines import copied
from printables.state_sheet import team_name_lines

TOML = Path(CONFIG_PATH).read_text(encoding="utf-8")
TEAMS = ("blue", "yellow", "red", "green")
GAME_DAY = ("Mégalosaure-Anticonstitutionné", "Les Verts 🌱 qui Poussent Vite", "Zoé, Ève, Noël, Anaïs — Équipe",
            "Œufs de Pâques")


COLOURS = ("#1f6fd1", "#f2c230", "#d33a2c", "#2e9e44", "#7b3fa0", "#e36b9f")
RESOURCES = ("water", "energy", "dioxygen", "flora", "water", "energy")
TEAM_BLOCK = re.compile(r'\[\[teams\]\]\nid = "\w+"\nlabel = \{[^}]*\}\ncolour = "[^"]*"\nresource = "\w+"\n\n?')


def config_with(names: list):
    """The shipped config.toml with 2 to 6 teams of these names (French and English alike); the teams'
    ids are blue, yellow, red, green, then t5 and t6."""
    blocks = []
    for i, label in enumerate(names):
        escaped = label.replace("\\", "\\\\").replace('"', '\\"')
        team = TEAMS[i] if i < len(TEAMS) else f"t{i + 1}"
        blocks.append(f'[[teams]]\nid = "{team}"\nlabel = {{ fr = "{escaped}", en = "{escaped}" }}\n'
                      f'colour = "{COLOURS[i]}"\nresource = "{RESOURCES[i]}"\n\n')
    first = TEAM_BLOCK.search(TOML)
    text = TOML[:first.start()] + "".join(blocks) + TEAM_BLOCK.sub("", TOML[first.start():])
    return parse_config(text)


def team_of(line: str, grammar) -> str:
    return parse(line, grammar)["team"]


@pytest.fixture(scope="module")
def game_day():
    config = config_with(list(GAME_DAY))
    return config, Grammar(config, {}, "fr")


@pytest.mark.parametrize("written, team", [
    ("Mégalosaure-Anticonstitutionné", "blue"), ("megalosaure anticonstitutionne", "blue"),
    ("Mégalosaure-Anticons", "blue"), ("Mégalosaure-Anticons…", "blue"), ("Mégalosaure", "blue"),
    ("Les Verts 🌱 qui Poussent Vite", "yellow"), ("Les Verts ■ qui Poussent Vite", "yellow"),
    ("Les Verts qui Poussent Vite", "yellow"), ("Verts qui poussent vite", "yellow"), ("Les Verts", "yellow"),
    ("Verts", "yellow"), ("LES VERTS…", "yellow"),
    ("Zoé, Ève, Noël, Anaïs — Équipe", "red"), ("Zoe Eve Noel Anais - Equipe", "red"), ("zoé, ève, noël, anaïs – équipe", "red"),
    ("Œufs de Pâques", "green"), ("Oeufs de Paques", "green"), ("OEUFS DE PÂQUES", "green"), ("Œufs de…", "green"),
    ("Œufs", "green"),
])
def test_the_game_days_names_as_written(game_day, written, team):
    _, grammar = game_day
    assert team_of(f"{written} récolte eau", grammar) == team
    assert team_of(f"14:02 {written} harvest water 2", grammar) == team


def test_a_fight_against_a_team_called_les_is_typed(game_day):
    _, grammar = game_day
    for defender in ("Les Verts 🌱 qui Poussent Vite", "les Verts", "Verts"):
        for verb in ("bat", "perd contre"):
            fight = parse(f"Œufs de Pâques pirate 1 {verb} {defender} récolteur 1", grammar)
            assert fight["defender_team"] == "yellow" and fight["attacker_team"] == "green"
    fight = parse("Les Verts pirate 1 bat Mégalosaure-Anticons récolteur 1 prend 2 eau", grammar)
    assert (fight["attacker_team"], fight["defender_team"], fight["tokens"]) == ("yellow", "blue", {"water": 2})


def test_an_ambiguous_name_is_refused_naming_the_candidates():
    config = config_with(["Les Verts Foncés", "Les Verts Clairs", "Rouges", "Bleus"])
    grammar = Grammar(config, {}, "fr")
    with pytest.raises(PaperSyntaxError) as refused:
        parse("Les Verts récolte eau", grammar)
    assert refused.value.code == "paper_ambiguous"
    assert refused.value.params["candidates"] == "Les Verts Foncés, Les Verts Clairs"
    assert team_of("Verts Cla récolte eau", grammar) == "yellow"
    with pytest.raises(PaperSyntaxError) as building:  # "Centrale" starts both power plants
        parse("Rouges construit Centrale", grammar)
    assert building.value.code == "paper_ambiguous" and building.value.params["candidates"] == "Centrale I, Centrale II"


@pytest.mark.parametrize("names, why", [
    (["Les Verts", "Verts", "Rouges", "Bleus"], "cannot tell them apart"),
    (["Écureuils 🐿", "ecureuils", "Rouges", "Bleus"], "cannot tell them apart"),
    (["🌱🌱", "Verts", "Rouges", "Bleus"], "no letter or digit"),
    (["#Verts", "Jaunes", "Rouges", "Bleus"], "as a note"),  # the line was skipped as a note, nothing said
    (["Feuille 7", "Jaunes", "Rouges", "Bleus"], "sheet's id"),  # read as a sheet's header, the move refused
])
def test_the_config_refuses_names_paper_cannot_tell_apart(names, why):
    with pytest.raises(ConfigError, match=why):
        config_with(names)


# Names as a game day writes them: accents, ligatures, dashes, emoji, articles, up to 30 characters; an
# accent typed apart (e + U+0301, as a Mac's file names give it), one that composes with no letter (n̈,
# q̃: the word was cut in two at the mark, and "Spinal" written by hand was no team), a soft hyphen.
SYLLABLE = st.sampled_from(["ma", "ré", "zo", "œu", "lu", "ti", "vè", "ne", "ka", "ço", "bri", "dan", "gué", "pâ",
                            "ïs", "ro", "sa", "mi", "fê", "tor", "æl", "vil", "no", "ë", "ne\u0301", "n\u0308a",
                            "q\u0303o", "ga\u00adla"])
WORD = st.lists(SYLLABLE, min_size=1, max_size=4).map("".join).map(lambda w: w[:1].upper() + w[1:])
GLUE = st.sampled_from([" ", " ", "-", " — ", ", ", " 🌱 ", " 🦖 ", " 👨‍👩‍👧 ", " 🇫🇷 ", "’"])
ARTICLE = st.sampled_from(["", "", "Les ", "Le ", "La ", "L'", "The ", "La Ferme ", "Option ", "Rate "])


@st.composite
def team_name(draw):
    words = draw(st.lists(WORD, min_size=1, max_size=4))
    name = words[0]
    for word in words[1:]:
        name += draw(GLUE) + word
    name = (draw(ARTICLE) + name + draw(st.sampled_from(["", "", " 🌱", "!"]))).strip()
    assume(len(name) <= 30)
    return name


def bare(text: str) -> str:
    return "".join(c for c in unicodedata.normalize("NFD", text) if unicodedata.category(c) != "Mn")


def flags_as_drawn(name: str, glue: str = " ") -> str:
    """The name as the print pack draws it: ReportLab sets no text, so a flag is its two letters ("Les F R Bleus"),
    copied apart or together ("Les FR Bleus")."""
    return re.sub("[\U0001f1e6-\U0001f1ff]{2}", lambda flag: f" {glue.join(chr(ord(ch) - 0x1F1E6 + 65) for ch in flag.group(0))} ", name)


def hand_forms(name: str) -> set:
    """How a banker writes a printed name: as printed, lower case, no emoji (or a box), no accents,
    œ as oe, any dash, without its article."""
    no_emoji = re.sub(r"[^\w\s,'’—–-]", "", name).strip()  # the accents typed apart and soft hyphens too
    boxed = "".join(ch if re.match(r"[\w\s,'’—–-]", ch) or unicodedata.category(ch)[0] == "M" or ch == "\u00ad"
                    else "□" for ch in name)  # an emoji copied as a box, an accent as the sheet draws it
    forms = {name, name.lower(), no_emoji, boxed, bare(no_emoji), name.replace("—", "-"),
             no_emoji.replace("œ", "oe").replace("Œ", "Oe").replace("æ", "ae"), name.replace("-", " "),
             flags_as_drawn(name), flags_as_drawn(name, "")}
    first = re.split(r"[\s']", name, maxsplit=1)
    if len(first) == 2 and first[0].lower() in ARTICLES | {"l"} and words_of(first[1]):
        forms.add(first[1])
    return {form for form in forms if words_of(form)}


@st.composite
def shadowed_names(draw):
    """A one-word team whose word starts a word of another team's name ("Ma" and "Les Ma-Mamamama-Mama"),
    among others: the sheet cuts the longer one anywhere, even one letter into that word."""
    short = draw(WORD)
    words = draw(st.lists(WORD, min_size=1, max_size=4))
    at = draw(st.integers(0, len(words) - 1))
    words[at] = short + draw(st.lists(SYLLABLE, max_size=4).map("".join))
    name = words[0]
    for word in words[1:]:
        name += draw(GLUE) + word
    name = (draw(ARTICLE) + name + draw(st.sampled_from(["", " 🌱", "!"]))).strip()
    assume(len(name) <= 30)
    return draw(st.permutations([short, name] + draw(st.lists(team_name(), max_size=4))))


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
@given(st.lists(team_name(), min_size=2, max_size=6))
def test_what_the_sheets_print_is_read_back_and_never_taken_for_another_team(names):
    read_back(names)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
@given(shadowed_names())
def test_a_name_inside_another_is_read_back_too(names):
    read_back(names)


def test_a_name_cut_one_letter_into_a_word_is_read_back():
    """The sheet draws "Les Ma-Mamamama-Mama" as "Les / Ma-Mamamama- M…": the M before the cut mark was
    too short to be read as a cut word, so "Les Ma-Mamamama" was read and "M" was not a move."""
    grammar = Grammar(config_with(["Ma", "Les Ma-Mamamama-Mama"]), {}, "fr")
    assert team_of("Les Ma-Mamamama-M… récolte eau", grammar) == "yellow"
    assert team_of("Ma-Mamamama-M… récolte eau", grammar) == "yellow"
    assert team_of("Ma récolte eau", grammar) == "blue"
    read_back(["Ma", "Les Ma-Mamamama-Mama"])


def read_back(names: list) -> None:
    """Every form the sheets print of each name, and as hand writes it, is that team, or (a cut form
    only) refused naming it among the candidates; and each name is typed as a fight's defender."""
    keys = [typed_key(name) for name in names]
    keys = [typed_key(name) for name in names]
    try:
        config = config_with(names)
    except ConfigError as refused:  # only names paper cannot tell apart are refused
        assert len(set(keys)) < len(keys) and "cannot tell them apart" in str(refused)
        return
    assert len(set(keys)) == len(keys)
    grammar = Grammar(config, {}, "fr")
    ids = list(config.teams)
    assert [config.teams[t].label["fr"] for t in ids] == [unicodedata.normalize("NFC", name) for name in names]
    for team, name in zip(ids, names):
        size, lines = team_name_lines({"fr": name}, "fr")
        drawn = copied(name, lines)  # the state sheet's lines, as a banker copies them
        for written in {drawn} | hand_forms(name):
            try:
                found = team_of(f"{written} récolte eau", grammar)
            except PaperSyntaxError as refused:
                # Only a cut name may fit two teams, and then the refusal names this one among them.
                assert written == drawn and drawn.endswith("…"), (written, refused.code, refused.params)
                assert refused.code == "paper_ambiguous", refused.params
                assert name in refused.params["candidates"]
                continue
            assert found == team, (written, name, names)
        attacker = ids[(ids.index(team) + 1) % len(ids)]
        other = config.teams[attacker].label["fr"]
        fight = parse(f"{other} pirate 1 bat {name} récolteur 1", grammar)
        assert (fight["attacker_team"], fight["defender_team"]) == (attacker, team)
        fight = parse(f"{name} pirate 2 perd contre {other} constructeur 1", grammar)  # the name before a role
        assert (fight["attacker_team"], fight["defender_team"]) == (team, attacker)
        trade = parse(f"{other} commerce {name} donne 2 eau reçoit 1 flore", grammar)  # and before "donne"
        assert (trade["merchant_team"], trade["visited_team"]) == (attacker, team)


def test_a_team_whose_name_starts_with_a_moves_word_is_typed():
    """A line's first word "ferme", "taux", "option", "refill"... named a move of the game (close an event, the
    rate, an option, a refill): "Ferme du Lac récolte eau", for "La Ferme du Lac" written without its article,
    was refused ("du" is not an event), and "Rate Busters" could not be typed at all."""
    grammar = Grammar(config_with(["La Ferme du Lac", "Taux Zéro", "Rate Busters", "Option Bio"]), {"e-1": {}}, "fr")
    assert [team_of(f"{name} récolte eau", grammar) for name in ("Ferme du Lac", "taux zero", "Rate Busters",
                                                                 "Option Bio")] == ["blue", "yellow", "red", "green"]
    fight = parse("Ferme du Lac pirate 1 bat Rate Busters récolteur 1", grammar)
    assert (fight["attacker_team"], fight["defender_team"]) == ("blue", "red")
    assert parse("taux 5 1", grammar) == {"type": "set_rate", "tokens": 5, "points": 1}  # the moves as before
    assert parse("ferme 1", grammar) == {"type": "close_event", "event": "e-1"}
    assert parse("option bonus oui", grammar)["type"] == "set_option"
    for line, code in (("taux 5", "paper_rate"), ("option truc oui", "paper_unknown_option"),
                       ("Ferme du Lac récolte or", "paper_unknown_resource")):
        with pytest.raises(PaperSyntaxError) as refused:  # the refusal of the reading the line holds more of
            parse(line, grammar)
        assert refused.value.code == code, line


def test_a_flag_printed_as_its_two_letters_is_read_back():
    """A sheet draws "Les 🇫🇷 Bleus de Łódź" as "Les F R Bleus de Łódź" (no text shaping: a flag is two
    letters): copied so, the name was "Les", not a team of this game."""
    grammar = Grammar(config_with(["Les 🇫🇷 Bleus de Łódź", "Jaunes 🇧🇪🇫🇷", "Rouges", "Verts"]), {}, "fr")
    for written in ("Les F R Bleus de Lodz", "les FR bleus de Łódź", "Les 🇫🇷 Bleus de Łódź", "Bleus de Lodz"):
        assert team_of(f"{written} récolte eau", grammar) == "blue", written
    assert team_of("Jaunes B E F R récolte énergie", grammar) == "yellow"
    fight = parse("Jaunes BE FR pirate 1 bat Les F R Bleus de Lodz récolteur 1", grammar)
    assert (fight["attacker_team"], fight["defender_team"]) == ("yellow", "blue")
    with pytest.raises(ConfigError, match="cannot tell them apart"):  # printed alike: "F R Bleus"
        config_with(["🇫🇷 Bleus", "FR Bleus", "Rouges", "Verts"])


def test_refusals_and_sheets_give_examples_in_the_games_own_names(game_day):
    """Every printed example said "Bleu" even when no team was called so."""
    from printkit import all_text

    from printables.bank_sheets import render_bank_sheets
    from printables.state_procedure import render_bank_down

    config, grammar = game_day
    refused = {}
    for line in ("Bleu récolte eau", "Les Verts pirate 1 tape Mégalosaure récolteur 1", "réapprovisionne 2 eau 3 flore"):
        with pytest.raises(PaperSyntaxError) as caught:
            parse(line, grammar)
        refused[caught.value.code] = caught.value.params["example"]
    assert refused["paper_unknown_team"] == "Mégalosaure-Anticonstitutionné récolte Eau 2"
    assert refused["paper_fight_result"] == "Les Verts 🌱 qui Poussent Vite Pirate 1 bat Mégalosaure-Anticonstitutionné Récolteur 1 prend 2 Eau"
    assert refused["paper_one_resource"] == "réapprovisionne 20 Eau"
    assert all(parse(example, grammar) for example in refused.values())  # each example books as shown
    for lang in ("fr", "en"):
        printed = " ".join(all_text(render_bank_down(config, lang)).split()) + " ".join(all_text(render_bank_sheets(config, lang)).split())
        assert "Mégalosaure-Anticonstitutionné" in printed
        assert not re.search(r"\b(Bleus?|Blue|Rouges?|Red)\b", printed), lang
