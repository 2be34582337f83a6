"""The score calculator (trias/calculator.py): a physical game's final scoring from its land masses (T18, T19)."""

import json

import pytest

from trias.calculator import score_description
from trias.errors import BadCommand
from trias_example_kit import EXAMPLE_3, PLAYERS, example_3


def test_t18_t20_example_3_gives_19_15_15_8():
    result = score_description(example_3())
    assert result["totals"] == {"Black": 19, "White": 15, "Cross": 15, "Grey": 8}
    assert result["winners"] == ["Black"]
    for name, (_, _, points) in EXAMPLE_3.items():
        assert result["points"][name] == {p: k for p, k in zip(PLAYERS, points) if k}
    assert result["points"]["Pole"] == {}  # T18: the main land mass is not scored
    json.dumps(result)


def test_t18_lines_show_the_arithmetic_per_land_mass():
    lines = score_description(example_3())["lines"]
    assert lines[0] == "A (3 tiles): Black 2, Cross 1; Black first: 3; Cross second: 1.5, rounded up to 2 (T18)"
    assert "tie for first and share first and second place, 5 + 2.5: 7.5 / 2 = 3.75, rounded up to 4 each" in lines[7]
    assert "the main land mass is not scored" in lines[8]
    assert lines[-2] == "Totals: Black 19, Cross 15, White 15, Grey 8"  # players in order of appearance
    assert lines[-1] == "Black wins with 19 points (T19)"
    french = score_description(example_3(), lang="fr")["lines"]
    assert french[0].startswith("A (3 tuiles) : Black 2, Cross 1; Black premier : 3; Cross deuxième : 1,5, arrondi à 2")


def test_t19_tie_on_points_goes_to_herds_in_stock_then_presence():
    tied = {"land_masses": [{"name": "A", "tiles": 4, "herds": {"Ana": 1, "Ben": 1}}]}
    assert score_description(tied)["winners"] == ["Ana", "Ben"]  # all tied players win
    result = score_description(dict(tied, stock={"Ben": 3, "Ana": 2}))
    assert result["winners"] == ["Ben"]
    assert result["lines"][-1] == "Ana and Ben tie on 3 points; herds in stock: Ana 2, Ben 3: Ben wins (T19)"
    with_main = dict(tied, land_masses=tied["land_masses"] + [{"name": "M", "tiles": 5, "main": True, "herds": {"Ana": 1}}])
    assert score_description(with_main)["winners"] == ["Ana"]  # presence counts the main land mass too


def test_t16_interim_points_are_added_to_the_totals():
    result = score_description(example_3(interim={"Grey": 12}))
    assert result["totals"]["Grey"] == 20 and result["winners"] == ["Grey"]


@pytest.mark.parametrize("data, sentence", [
    ([], "the description must be a JSON object"),
    ({"land_masses": []}, "land_masses must be a non-empty list"),
    ({"land_masses": [{"name": "A", "tiles": 3, "herds": {"Ana": 1}}, {"name": "B", "tiles": 0, "herds": {}}]},
     "land_masses[1].tiles must be a whole number from 1 to 36"),
    ({"land_masses": [{"name": "A", "tiles": "3", "herds": {"Ana": 1}}]}, "land_masses[0].tiles must be a whole number"),
    ({"land_masses": [{"name": "A", "tiles": 3, "herds": {"Ana": -1}}]}, "land_masses[0].herds.Ana must be a whole number from 0 to 15"),
    ({"land_masses": [{"name": "A", "tiles": 3, "herds": [1, 2]}]}, "land_masses[0].herds must be an object"),
    ({"land_masses": [{"name": "A", "tiles": 1, "herds": {"Ana": 3, "Ben": 2}}]}, "5 herds on 1 tiles"),
    ({"land_masses": [{"name": "A", "tiles": 3, "herds": {"Ana": 1}}, {"name": "A", "tiles": 2, "herds": {}}]},
     "already the name of another land mass"),
    ({"land_masses": [{"name": "A", "tiles": 3, "main": "yes", "herds": {"Ana": 1}}]}, "land_masses[0].main must be true or false"),
    ({"land_masses": [{"name": "A", "tiles": 3, "herds": {"Ana": 1}}], "stock": {"Ana": 15}}, "Ana has 16 herds"),
    ({"land_masses": [{"name": "A", "tiles": 3, "herds": {}}]}, "no player has a herd anywhere"),
    ({"land_masses": [{"name": "A", "tiles": 3, "herds": {"Ana": 1}, "tile": 2}]}, "unknown key 'tile'"),
])
def test_a_malformed_description_gets_one_sentence_naming_the_problem(data, sentence):
    with pytest.raises(BadCommand) as err:
        score_description(data)
    assert sentence in err.value.message
    assert err.value.message.count(". ") == 0  # one sentence
