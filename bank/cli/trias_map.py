"""The Trias board as text: a grid with q across and r down (both labelled), and the land masses by letter."""

from __future__ import annotations

from bank.cli.trias_words import say
from trias.hexes import label

LETTER = {"mountain": "M", "steppe": "S", "woods": "W", "pole": "P"}
LETTERS = {"fr": dict(LETTER, woods="F"), "it": dict(LETTER, woods="B")}  # forêt, Bosco


def _grid(places, cell, lang="en") -> list:
    """Rows r, columns q (axial coordinates, so the tile q,r sits in column q of row r); `cell` gives 1-2 chars."""
    qs = [q for q, _ in places]
    rs = [r for _, r in places]
    columns = range(min(qs), max(qs) + 1)
    lines = ["   q " + "".join(f"{q:>3}" for q in columns) + say(lang, "touches")]
    for r in range(min(rs), max(rs) + 1):
        lines.append(f"r{r:>3} " + "".join(f"{cell((q, r)):>3}" for q in columns).rstrip())
    return lines


def board_map(state, names: list, lang="en") -> list:
    """The map (a letter per tile, its herds' total, ~ for swimmers), then each place's herds per seat."""
    places = set(state.tiles) | set(state.herds)
    if not places:
        return []

    letter = LETTERS.get(lang, LETTER)

    def cell(place):
        total = state.total(place)
        if place in state.tiles:
            return letter[state.tiles[place]] + (str(total) if total else "")
        return f"~{total}" if total else "."

    lines = [say(lang, "map_legend")] + _grid(places, cell, lang)
    herds = []
    for place in sorted(state.herds, key=lambda p: (p[1], p[0])):
        # The count in brackets: a seat named "Computer · easy 2" with 3 herds would read "Computer · easy 2 3".
        who = ", ".join(f"{names[i]} ({k})" for i, k in enumerate(state.herds[place]) if k)
        where = letter.get(state.tiles.get(place), say(lang, "swimming"))
        herds.append(f"{label(place)} {where}: {who}")
    if herds:
        lines.append(say(lang, "herds", list="; ".join(herds)))
    return lines


def mass_letters(state) -> dict:
    """Each tile's land mass: A, B, C... in the order of the final table (trias/scoring.py sorts the masses
    by their tiles' labels), '*' for the main land mass (the pole's, not scored at T18)."""
    geo = state.geometry()
    others = sorted((sorted(label(p) for p in mass), i) for i, mass in enumerate(geo.masses) if i != geo.main)
    letter_of = {i: chr(ord("A") + k) if k < 26 else "?" for k, (_, i) in enumerate(others)}
    return {p: letter_of.get(i, "*") for i, mass in enumerate(geo.masses) for p in mass}


def masses_map(state, lang="en") -> list:
    """The land masses lettered on the same grid as the map."""
    letters = mass_letters(state)
    if not letters:
        return []
    return [say(lang, "masses_legend")] + _grid(set(letters), lambda p: letters.get(p, ""), lang)
