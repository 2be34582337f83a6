"""A team's name in a narrow box of the stock sheet, by one rule: never drawn past the box, never cut
without saying so, never split inside a character a reader sees as one (an emoji with its modifiers,
a letter with its accent).

The name wraps as drawing.wrap does it: at its spaces; a word wider than the box breaks after a
dash if it has one ("Mégalosaure-" / "Anticonstitutionné"), else at the last character that fits.
When the lines allowed are full, the last one ends with "…" where the name is cut: the re-entry
form reads the name back from what is left (bank/game/typed_names.py), so `copied` gives the text
a banker copies.
"""

from __future__ import annotations

from bank.game.graphemes import graphemes

from .drawing import stringWidth, wrap  # the print fonts' widths: an emoji measured in the font that draws it

ELLIPSIS = "…"
def name_lines(name: str, font: str, size: float, width: float, lines: int = 2) -> list:
    """The lines the box draws of `name` at `size` in `width` (mm, as the sheets measure), at most `lines`:
    drawing.wrap's rule (spaces, else after a dash, else where the width is reached), then the cut."""
    drawn = wrap(name.strip(), font, size, width, "any")
    if len(drawn) <= lines:
        return drawn
    pieces = graphemes(" ".join(drawn[lines - 1:]))
    while pieces and stringWidth("".join(pieces) + ELLIPSIS, font, size) > width + 1e-6:
        pieces.pop()
    return drawn[:lines - 1] + ["".join(pieces).rstrip() + ELLIPSIS]


def fit_name(name: str, font: str, sizes: tuple, width: float, lines: int = 2) -> tuple:
    """(size, lines) at the first of `sizes` (largest first) where the name is drawn whole, else cut at the last."""
    for size in sizes:
        drawn = name_lines(name, font, size, width, lines)
        if not drawn[-1].endswith(ELLIPSIS) or size == sizes[-1]:
            return size, drawn
    raise ValueError("no size given")


def copied(name: str, lines: list) -> str:
    """The name as a banker copies it from these lines: whole when it is all drawn (a word broken
    across lines is written whole), else what the lines show of it, then the cut mark."""
    if not lines or not lines[-1].endswith(ELLIPSIS):
        return name.strip()
    shown = "".join(lines)[:-len(ELLIPSIS)].replace(" ", "")
    taken, count = 0, 0
    for ch in name.strip():
        if count >= len(shown):
            break
        taken += 1
        count += ch != " "
    return name.strip()[:taken].rstrip() + ELLIPSIS
