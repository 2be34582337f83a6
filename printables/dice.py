"""The bonus die (R15): cube nets to cut and glue, and stickers for a blank wooden die, from [dice] faces."""

from __future__ import annotations

from reportlab.lib.colors import white

from .drawing import BOLD, FONT, INK, LIGHT, PT, finish, new_canvas, page, ruler, text
from .geometry import Box, paper_size
from .icons import token
from .labels import check_language, short, t, typo

FACE = 22.0  # mm: a die a child's hand rolls easily
STICKER = 16.0  # mm: the face of a common 18-20 mm blank wooden die, with a margin
W = {
    "fr": {"title": "Dé bonus", "net": "Découpez le contour, pliez sur les pointillés, collez les languettes.",
           "cut": "trait plein : couper", "fold": "pointillés : plier",
           "stickers": "Autocollants pour un dé vierge de 18 à 20 mm : un jeu de 6 faces par dé.",
           "glue": "colle"},
    "en": {"title": "Bonus die", "net": "Cut round the outline, fold on the dashed lines, glue the tabs.",
           "cut": "solid line: cut", "fold": "dashed line: fold",
           "stickers": "Stickers for an 18-20 mm blank die: one set of 6 faces per die.", "glue": "glue"},
}
NET = ((1, 0), (0, 1), (1, 1), (2, 1), (3, 1), (1, 2))  # a cross: (column, row from the top) of each face


FOLD_DASH = (2.0, 1.5)  # mm on, mm off: a fold line, never mistaken for a cut
TAB = 5.0  # mm: a glue tab's depth; its free end is 2 mm shorter at each side


def face(c, config, kind: str, box: Box, lang: str, outline: bool = True) -> None:
    """One face: the token's icon and its name, on white (outlined: a sticker cut on its square)."""
    c.setFillColor(white)
    c.setStrokeColor(INK)
    c.setLineWidth(0.4)
    c.rect(box.x, box.y, box.w, box.h, stroke=int(outline), fill=1)
    token(c, config, kind, box.x + box.w / 2, box.y + box.h * 0.58, box.w * 0.27)
    text(c, short(config.resources[kind].label, lang), box.x + box.w / 2, box.y + box.h * 0.1, 8 * PT, BOLD,
         INK, "centre", width=box.w - 1.5)


TABS = ((0, 1, "top"), (0, 1, "bottom"), (2, 1, "top"), (2, 1, "bottom"), (3, 1, "top"), (3, 1, "bottom"),
        (3, 1, "right"))


def _tab(x: float, top: float, col: int, row: int, side: str) -> list:
    """A glue tab's corners, from the face edge it folds on to its free end."""
    bx, by, f = x + col * FACE, top - (row + 1) * FACE, FACE
    return {"top": [(bx, by + f), (bx + 2, by + f + TAB), (bx + f - 2, by + f + TAB), (bx + f, by + f)],
            "bottom": [(bx, by), (bx + 2, by - TAB), (bx + f - 2, by - TAB), (bx + f, by)],
            "right": [(bx + f, by), (bx + f + TAB, by + 2), (bx + f + TAB, by + f - 2), (bx + f, by + f)]}[side]


def net_lines(x: float, top: float) -> tuple:
    """(cuts, folds): the segments of a cube net at (x, top); folds are the edges two parts share.

    Every edge between two faces, or between a face and its glue tab, is a fold; the
    outline left (free face edges and the tabs' three free sides) is the cut.
    """
    faces = set(NET)
    tabbed = {(col, row, side) for col, row, side in TABS}
    cuts, folds = [], []
    for col, row in NET:
        bx, by = x + col * FACE, top - (row + 1) * FACE
        edges = {"top": ((bx, by + FACE), (bx + FACE, by + FACE), (col, row - 1)),
                 "bottom": ((bx, by), (bx + FACE, by), (col, row + 1)),
                 "left": ((bx, by), (bx, by + FACE), (col - 1, row)),
                 "right": ((bx + FACE, by), (bx + FACE, by + FACE), (col + 1, row))}
        for side, (a, b, neighbour) in edges.items():
            if neighbour in faces:
                if (col, row) < neighbour:  # each shared edge once
                    folds.append((a, b))
            elif (col, row, side) in tabbed:
                folds.append((a, b))
                corners = _tab(x, top, col, row, side)
                cuts += list(zip(corners, corners[1:]))
            else:
                cuts.append((a, b))
    return cuts, folds


def _net(c, config, x: float, top: float, lang: str, w: dict) -> None:
    """A cube net with its faces in [dice] order, a glue tab on each free edge that meets another,
    solid lines where to cut and dashed ones where to fold."""
    for (col, row), kind in zip(NET, list(config.dice_faces)):
        face(c, config, kind, Box(x + col * FACE, top - (row + 1) * FACE, FACE, FACE), lang, outline=False)
    for col, row, side in TABS:
        corners = _tab(x, top, col, row, side)
        path = c.beginPath()
        path.moveTo(*corners[0])
        for corner in corners[1:]:
            path.lineTo(*corner)
        path.close()
        c.setFillColor(LIGHT)
        c.drawPath(path, stroke=0, fill=1)
        if side != "right":
            xs = [p[0] for p in corners]
            ys = [p[1] for p in corners]
            text(c, w["glue"], sum(xs) / 4, min(ys) + 1.4, 8 * PT, FONT, INK, "centre")
    cuts, folds = net_lines(x, top)
    _segments(c, cuts, None)
    _segments(c, folds, FOLD_DASH)


def _segments(c, segments: list, dash) -> None:
    """Lines at 0.4 mm, solid or dashed."""
    c.saveState()
    c.setStrokeColor(INK)
    c.setLineWidth(0.4)
    if dash:
        c.setDash(list(dash))
    for (x1, y1), (x2, y2) in segments:
        c.line(x1, y1, x2, y2)
    c.restoreState()


def _legend(c, x: float, y: float, w: dict) -> None:
    """What a solid and a dashed line mean, beside a sample of each."""
    for i, (key, dash) in enumerate((("cut", None), ("fold", FOLD_DASH))):
        left = x + i * 70
        _segments(c, [((left, y + 1), (left + 14, y + 1))], dash)
        text(c, w[key], left + 17, y, 10 * PT, BOLD, INK)


def render_dice(config, lang: str | None = None, paper: str = "a4") -> bytes:
    """Page 1: three die nets; page 2: sticker sets. Both with a 100 mm ruler to check the scale."""
    lang = check_language(lang or config.language)
    w = {k: typo(lang, v) for k, v in W[lang].items()}
    size = paper_size(paper)
    height = size[1]
    c, buf = new_canvas(w["title"])
    with page(c, size):
        text(c, w["title"], 15, height - 20, 18 * PT, BOLD)
        text(c, w["net"], 15, height - 27, 10 * PT, FONT)
        _legend(c, 15, height - 35, w)
        step = min(80.0, (height - 40 - 3 * FACE - 30) / 2)  # the last net clears the ruler
        for k in range(3):
            _net(c, config, 25 + (k % 2) * 70, height - 40 - k * step, lang, w)
        ruler(c, 95, 22, t(lang, "ruler"))
    with page(c, size):
        text(c, w["title"], 15, height - 20, 18 * PT, BOLD)
        text(c, w["stickers"], 15, height - 27, 10 * PT, FONT)
        faces = list(config.dice_faces)
        for row in range(1 + int((height - 55 - 30) // (STICKER + 3))):
            for col, kind in enumerate(faces):
                face(c, config, kind, Box(20 + col * (STICKER + 12), height - 55 - row * (STICKER + 3), STICKER, STICKER), lang)
        ruler(c, 55, 22, t(lang, "ruler"))
    return finish(c, buf)
