"""`terrabank team NAME` finds a team by its name as a lead types it, not only by its id.

A game's teams are named in config.toml ("L'Équipe des Ébènes", "Les Verts 🌱 qui Poussent Vite"); the
ids (blue, yellow...) are printed nowhere a lead looks on game day. `team "Les Verts"` answered "there
is no team 'Les Verts'; teams: blue, yellow, red, green". Now the name is read as the paper re-entry
reads it (bank/game/typed_names.py: case, accents, emoji, the article, a mark typed apart); a name that
fits two teams is refused naming both, an unknown one names every team with its id.
"""

from __future__ import annotations

import unicodedata

import pytest
from print_names_kit import config_text_with_teams

from bank.cli.main import main

NAMES = [("L'Équipe des Ébènes", "The Ebony Team"), ("Les Verts 🌱 qui Poussent Vite", "The Greens 🌱"),
         ("Spın̈al Tap", "Spın̈al Tap"), ("Les Verts Foncés", "The Dark Greens")]


@pytest.fixture(scope="module")
def game(tmp_path_factory):
    folder = tmp_path_factory.mktemp("named")
    config = folder / "config.toml"
    config.write_text(config_text_with_teams(NAMES), encoding="utf-8")
    args = ["--config", str(config), "--db", str(folder / "g.db")]
    assert main([*args, "init"]) == 0
    return args


@pytest.mark.parametrize("written, shown", [
    ("blue", "L'Équipe des Ébènes (blue)"), ("L'Équipe des Ébènes", "L'Équipe des Ébènes (blue)"),
    ("l'equipe des ebenes", "L'Équipe des Ébènes (blue)"), (unicodedata.normalize("NFD", "Équipe des Ébènes"), "(blue)"),
    ("the ebony team", "(blue)"), ("LES VERTS 🌱 QUI POUSSENT VITE", "(yellow)"), ("verts qui poussent", "(yellow)"),
    ("Spinal Tap", "(red)"), ("Verts Foncés", "(green)")])
def test_a_team_is_found_by_its_name_as_typed(game, capsys, written, shown):
    assert main([*game, "team", written]) == 0
    assert shown in capsys.readouterr().out.splitlines()[0]


def test_a_name_that_fits_two_teams_or_none_is_refused_naming_them(game, capsys):
    assert main([*game, "team", "Les Verts"]) == 2
    said = capsys.readouterr().err
    assert "could be Les Verts 🌱 qui Poussent Vite (yellow), Les Verts Foncés (green)" in said
    assert main([*game, "team", "Les Rouges"]) == 2
    said = capsys.readouterr().err
    assert "there is no team 'Les Rouges'" in said and "L'Équipe des Ébènes (blue)" in said and "Traceback" not in said
