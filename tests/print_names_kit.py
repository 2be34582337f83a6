"""Games whose teams carry the names a lead types: long, accented, with emoji, 2 to 6 teams.

`config_with_teams` rewrites the [[teams]] of the repo's config.toml, so every other number of
the game stays the one the pack is printed with.
"""

from __future__ import annotations

import re
from pathlib import Path

from bank.game.config import parse_config

ROOT = Path(__file__).resolve().parents[1]
# (French, English) names of at most 30 characters (a team name's limit), the ones a game day used.
GAME_DAY_NAMES = [
    ("Mégalosaure-Anticonstitutionné", "Megalosaur Anticonstitutional"),
    ("Les Verts 🌱 qui Poussent Vite", "The Greens 🌱 Who Grow Fast"),
    ("Zoé, Ève, Noël, Anaïs — Équipe", "Zoé, Ève, Noël, Anaïs — Team"),
    ("Œufs 🥚 de Dragon Écarlate", "Scarlet 🐉 Dragon Eggs"),
    ("Les Étoiles Filantes ✨🌟", "Shooting Stars ✨🌟 of Łódź"),
    ("Brigade Aquatique 💧 du Lac", "Aquatic 💧 Brigade of the Lake"),
]
COLOURS = ["#1f6fd1", "#f2c230", "#d33a2c", "#2e9e44", "#8e44ad", "#e67e22"]
RESOURCES = ["water", "energy", "dioxygen", "flora", "fauna", "water"]
IDS = ["blue", "yellow", "red", "green", "purple", "orange"]


def _quoted(value: str) -> str:
    return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'


def teams_toml(names: list) -> str:
    """[[teams]] blocks for [(fr, en), ...], ids blue, yellow, red, green, purple, orange."""
    return "".join(f"[[teams]]\nid = \"{IDS[i]}\"\nlabel = {{ fr = {_quoted(fr)}, en = {_quoted(en)} }}\n"
                   f"colour = \"{COLOURS[i]}\"\nresource = \"{RESOURCES[i]}\"\n\n" for i, (fr, en) in enumerate(names))


def config_text_with_teams(names: list) -> str:
    """config.toml's text with its teams replaced by `names`."""
    text = (ROOT / "config.toml").read_text(encoding="utf-8")
    blocks = list(re.finditer(r"\[\[teams\]\]\n(?:[^\[\n].*\n|\n)*", text))
    return text[:blocks[0].start()] + teams_toml(names) + text[blocks[-1].end():]


def config_with_teams(names: list):
    """The repo's game with these teams (2 to 6)."""
    return parse_config(config_text_with_teams(names), "config.toml with the game day's teams")
