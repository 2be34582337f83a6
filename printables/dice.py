"""The bonus die (R15): cube nets to cut and glue, and stickers for a blank wooden die, from [dice] faces."""

from __future__ import annotations

from reportlab.lib.colors import white

from .drawing import BOLD, FONT, INK, PT, dashed_box, finish, new_canvas, page, ruler, text
from .geometry import A4, Box
from .icons import token
from .labels import check_language, short, t, typo

FACE = 22.0  # mm: a die a child's hand rolls easily
STICKER = 16.0  # mm: the face of a common 18-20 mm blank wooden die, with a margin
W = {
    "fr": {"title": "Dé bonus", "net": "Découpez le contour, pliez sur les traits, collez les languettes.",
           "stickers": "Autocollants pour un dé vierge de 18 à 20 mm : un jeu de 6 faces par dé.",
           "glue": "colle"},
    "en": {"title": "Bonus die", "net": "Cut round the outline, fold on the lines, glue the tabs.",
           "stickers": "Stickers for an 18-20 mm blank die: one set of 6 faces per die.", "glue": "glue"},
}
NET = ((1, 0), (0, 1), (1, 1), (2, 1), (3, 1), (1, 2))  # a cross: (column, row from the top) of each face


def face(c, config, kind: str, box: Box, lang: str) -> None:
    """One face: the token's icon and its name, on white."""
    c.setFillColor(white)
    c.setStrokeColor(INK)
    c.setLineWidth(0.4)
    c.rect(box.x, box.y, box.w, box.h, stroke=1, fill=1)
    token(c, config, kind, box.x + box.w / 2, box.y + box.h * 0.58, box.w * 0.27)
    text(c, short(config.resources[kind].label, lang), box.x + box.w / 2, box.y + box.h * 0.1, 8 * PT, BOLD,
         INK, "centre", width=box.w - 1.5)


def _net(c, config, x: float, top: float, lang: str, w: dict) -> None:
    """A cube net with its faces in [dice] order and a glue tab on each free edge that meets another."""
    faces = list(config.dice_faces)
    for (col, row), kind in zip(NET, faces):
        face(c, config, kind, Box(x + col * FACE, top - (row + 1) * FACE, FACE, FACE), lang)
    for col, row, side in ((0, 1, "top"), (0, 1, "bottom"), (2, 1, "top"), (2, 1, "bottom"), (3, 1, "top"),
                           (3, 1, "bottom"), (3, 1, "right")):
        bx, by = x + col * FACE, top - (row + 1) * FACE
        tab = {"top": Box(bx + 2, by + FACE, FACE - 4, 5), "bottom": Box(bx + 2, by - 5, FACE - 4, 5),
               "right": Box(bx + FACE, by + 2, 5, FACE - 4)}[side]
        dashed_box(c, tab, INK)
        if side != "right":
            text(c, w["glue"], tab.x + tab.w / 2, tab.y + 1.4, 8 * PT, FONT, INK, "centre")


def render_dice(config, lang: str | None = None) -> bytes:
    """Page 1: three die nets; page 2: sticker sets. Both with a 100 mm ruler to check the scale."""
    lang = check_language(lang or config.language)
    w = {k: typo(lang, v) for k, v in W[lang].items()}
    c, buf = new_canvas(w["title"])
    with page(c, A4):
        text(c, w["title"], 15, A4[1] - 20, 18 * PT, BOLD)
        text(c, w["net"], 15, A4[1] - 27, 10 * PT, FONT)
        for k in range(3):
            _net(c, config, 25 + (k % 2) * 70, A4[1] - 40 - k * 80, lang, w)
        ruler(c, 95, 22, t(lang, "ruler"))
    with page(c, A4):
        text(c, w["title"], 15, A4[1] - 20, 18 * PT, BOLD)
        text(c, w["stickers"], 15, A4[1] - 27, 10 * PT, FONT)
        faces = list(config.dice_faces)
        for row in range(12):
            for col, kind in enumerate(faces):
                face(c, config, kind, Box(20 + col * (STICKER + 12), A4[1] - 55 - row * (STICKER + 3), STICKER, STICKER), lang)
        ruler(c, 55, 22, t(lang, "ruler"))
    return finish(c, buf)
