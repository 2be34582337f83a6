"""Trias score sheet (final scoring to fill by hand, T18-T19) and the one-page player aid (T7-T21).

The table of shares is computed by the engine's own `mass_points`, so the
paper and the app cannot disagree on a rounding.
"""

from __future__ import annotations

from .fonts import width as stringWidth

from trias.scoring import mass_points

from .drawing import BOLD, FONT, GREY, INK, LIGHT, PT, finish, new_canvas, page, paragraph, text
from .geometry import Box, landscape, paper_size
from .trias_words import w

SAFE_MARGIN = 10.0  # a home printer's unprintable edge plus a cut-safe border
MASS_ROWS = 10      # land masses A-J: more than most games end with
SHARE_SIZES = range(1, 17)
# (column key, herd counts giving that share): the counts are fed to mass_points, never hand-computed.
SHARE_COLUMNS = (("col_first", lambda n: mass_points(n, [2, 1])[0]),
                 ("col_second", lambda n: mass_points(n, [2, 1])[1]),
                 ("col_2nd2", lambda n: mass_points(n, [2, 1, 1])[1]),
                 ("col_2nd3", lambda n: mass_points(n, [2, 1, 1, 1])[1]),
                 ("col_1st2", lambda n: mass_points(n, [1, 1])[0]),
                 ("col_1st3", lambda n: mass_points(n, [1, 1, 1])[0]),
                 ("col_1st4", lambda n: mass_points(n, [1, 1, 1, 1])[0]))


def clip(value: str, font: str, size: float, width: float) -> str:
    """`value` cut with an ellipsis to fit `width` at `size`: a long seat name never shrinks under 8 pt."""
    if stringWidth(value, font, size) <= width:
        return value
    while value and stringWidth(value + "…", font, size) > width:
        value = value[:-1]
    return value.rstrip() + "…"


def share_table() -> list:
    """[N, first, second, each of 2 tied seconds, 3 tied seconds, 2/3/4 tied firsts] for N = 1..16 (T18)."""
    return [[n] + [share(n) for _, share in SHARE_COLUMNS] for n in SHARE_SIZES]


def _grid(c, x0: float, top: float, widths: list, heights: list) -> None:
    """Thin lines around every cell of a table."""
    c.setStrokeColor(GREY)
    c.setLineWidth(0.25)
    right, bottom = x0 + sum(widths), top - sum(heights)
    y = top
    for h in [0] + heights:
        y -= h
        c.line(x0, y, right, y)
    x = x0
    for wd in [0] + widths:
        x += wd
        c.line(x, top, x, bottom)


def _score_table(c, box: Box, players: int, names: list, lang: str) -> None:
    """Rows: land masses A-J, then totals and the T19 tie-breaks. Columns: herds and points per player."""
    first, tiles_w = 22.0, 13.0
    per = (box.w - first - tiles_w) / players
    head_h, sub_h = 9.0, 6.0
    y = box.top
    text(c, w(lang, "mass"), box.x + 1.5, y - 6, 9 * PT, BOLD, width=first - 3)
    text(c, w(lang, "tiles"), box.x + first + tiles_w / 2, y - 6, 9 * PT, BOLD, align="centre", width=tiles_w - 2)
    for p in range(players):
        x = box.x + first + tiles_w + p * per
        label = names[p] if p < len(names) and names[p] else w(lang, "player", n=p + 1)
        text(c, clip(label, BOLD, 9 * PT, per - 3), x + 1.5, y - 4, 9 * PT, BOLD, GREY if p >= len(names) else INK)
        c.setStrokeColor(GREY)
        c.line(x + 1.5, y - 7.5, x + per - 1.5, y - 7.5)  # the line to write a name or colour on
        text(c, w(lang, "herds"), x + per / 4, y - head_h - 4.3, 8 * PT, FONT, GREY, "centre", width=per / 2 - 1)
        text(c, w(lang, "points"), x + 3 * per / 4, y - head_h - 4.3, 8 * PT, BOLD, INK, "centre", width=per / 2 - 1)
    rows = [chr(ord("A") + i) for i in range(MASS_ROWS)]
    extra = [w(lang, "total"), w(lang, "stock"), w(lang, "presence"), w(lang, "winner")]
    row_h = (box.h - head_h - sub_h) / (1 + MASS_ROWS + len(extra))  # rows as tall as the page allows
    y = box.top - head_h - sub_h
    c.setFillColor(LIGHT)
    c.rect(box.x, y - row_h, box.w, row_h, stroke=0, fill=1)
    text(c, w(lang, "main_row"), box.x + 1.5, y - row_h / 2 - 1, 9 * PT, FONT, INK, width=box.w - 3)
    y -= row_h
    for name in rows:
        text(c, name, box.x + 3, y - row_h / 2 - 1.5, 12 * PT, BOLD)
        y -= row_h
    c.setFillColor(LIGHT)
    c.rect(box.x, y - row_h, box.w, row_h, stroke=0, fill=1)
    for i, name in enumerate(extra):
        paragraph(c, name, Box(box.x + 1.5, y - row_h + 0.5, first + tiles_w - 3, row_h - 1), 9 * PT,
                  BOLD if i in (0, 3) else FONT, smallest=8 * PT, middle=True)
        y -= row_h
    cells = [per / 2] * (2 * players)
    masses_top = box.top - head_h - sub_h - row_h  # the pole's row spans the table: nothing to write there
    _grid(c, box.x, box.top - head_h - sub_h, [box.w], [row_h])
    _grid(c, box.x, masses_top, [first, tiles_w] + cells, [row_h] * MASS_ROWS)
    _grid(c, box.x, masses_top - MASS_ROWS * row_h, [first + tiles_w] + cells, [row_h] * len(extra))
    _grid(c, box.x + first + tiles_w, box.top, [per] * players, [head_h + sub_h])
    c.setLineWidth(0.8)
    c.setStrokeColor(INK)
    for p in range(players + 1):  # heavier lines between players so a row is read in pairs
        x = box.x + first + tiles_w + p * per
        c.line(x, box.top, x, box.top - head_h - sub_h)
        c.line(x, masses_top, x, y)
    c.line(box.x, masses_top - MASS_ROWS * row_h, box.right, masses_top - MASS_ROWS * row_h)


def _shares(c, box: Box, lang: str) -> float:
    """The table of shares for N = 1..16; returns its height."""
    text(c, w(lang, "table_title"), box.x, box.top - 4, 10 * PT, BOLD)
    heads = ["col_n"] + [key for key, _ in SHARE_COLUMNS]
    widths = [8.0] + [(box.w - 8.0) / len(SHARE_COLUMNS)] * len(SHARE_COLUMNS)
    row_h, top = 4.6, box.top - 6.5
    x = box.x
    for key, wd in zip(heads, widths):
        text(c, w(lang, key), x + wd / 2, top - 3.4, 8 * PT, BOLD, align="centre", width=wd - 1)
        x += wd
    for i, row in enumerate(share_table()):
        y = top - (i + 1) * row_h
        if i % 2:
            c.setFillColor(LIGHT)
            c.rect(box.x, y - row_h, box.w, row_h, stroke=0, fill=1)
        x = box.x
        for j, (value, wd) in enumerate(zip(row, widths)):
            text(c, str(value), x + wd / 2, y - 3.4, 8.5 * PT, BOLD if j < 2 else FONT, align="centre")
            x += wd
    _grid(c, box.x, top, widths, [row_h] * (len(SHARE_SIZES) + 1))
    return 6.5 + row_h * (len(SHARE_SIZES) + 1)


def draw_score_sheet(c, size: tuple, players: int, names: list, lang: str) -> None:
    """Landscape A4: the table to fill on the left, how to count on the right."""
    content = Box(0, 0, *size).inset(SAFE_MARGIN)
    text(c, w(lang, "score_title"), content.x, content.top - 6, 16 * PT, BOLD, width=content.w * 0.62)
    text(c, w(lang, "game_line"), content.right, content.top - 6, 9 * PT, FONT, GREY, "right", width=content.w * 0.36)
    side = 92.0
    table = Box(content.x, content.y, content.w - side - 6, content.h - 12)
    _score_table(c, table, players, names, lang)
    right = Box(content.right - side, content.y, side, content.h - 12)
    used = _shares(c, right, lang)
    y = right.top - used - 5
    text(c, w(lang, "how_title"), right.x, y, 10 * PT, BOLD)
    y -= 2
    for line in [*w(lang, "how"), w(lang, "example")]:
        y -= paragraph(c, "– " + line, Box(right.x, right.y, right.w, y - right.y), 8.5 * PT, smallest=8 * PT) + 1


def render_score_sheet(lang: str = "fr", players: int = 5, names: list | None = None, paper: str = "a4") -> bytes:
    """The score sheet as a one-page PDF, one column pair per player (2-5; blank names by default)."""
    if not isinstance(players, int) or not 2 <= players <= 5:
        raise ValueError(f"Trias is for 2 to 5 players, not {players!r}")
    size = landscape(paper_size(paper))  # A4 or US Letter
    c, buf = new_canvas(w(lang, "score_title"))
    with page(c, size):
        draw_score_sheet(c, size, players, list(names or []), lang)
    return finish(c, buf)


class _Column:
    """Text running down a box: headings and paragraphs at readable sizes."""

    def __init__(self, c, box: Box):
        self.c, self.box, self.y = c, box, box.top

    def heading(self, value: str, size: float = 13 * PT) -> None:
        self.y -= 5.5
        text(self.c, value, self.box.x, self.y, size, BOLD, width=self.box.w)
        self.c.setStrokeColor(GREY)
        self.c.setLineWidth(0.3)
        self.c.line(self.box.x, self.y - 1.5, self.box.right, self.y - 1.5)
        self.y -= 3

    def para(self, value: str, size: float = 10.5 * PT, font: str = FONT, indent: float = 0) -> None:
        room = Box(self.box.x + indent, self.box.y, self.box.w - indent, self.y - self.box.y)
        self.y -= paragraph(self.c, value, room, size, font, smallest=8 * PT) + 1.2


def _actions(col: _Column, lang: str) -> None:
    """The four actions of T12 as a small table: cost on the left, what it does on the right."""
    c = col.c
    for key in ("drift", "move", "rescue", "reproduce"):
        cost = w(lang, f"cost_{key}")
        top = col.y
        text(c, cost, col.box.x + 9, top - 3.8, 12 * PT, BOLD, align="centre", width=17)
        col.para(w(lang, f"act_{key}"), 10.5 * PT, indent=20)
        c.setStrokeColor(LIGHT)
        c.line(col.box.x, col.y, col.box.right, col.y)
        col.y -= 0.8


def draw_aid(c, size: tuple, lang: str) -> None:
    """Portrait A4: set-up, the four phases with the action costs, scoring, the end."""
    content = Box(0, 0, *size).inset(SAFE_MARGIN + 2)
    text(c, w(lang, "aid_title"), content.x, content.top - 7, 20 * PT, BOLD)
    col = _Column(c, Box(content.x, content.y, content.w, content.h - 10))
    col.para(w(lang, "aid_goal"), 11.5 * PT)
    col.heading(w(lang, "aid_setup"))
    col.para(w(lang, "aid_setup_text"))
    col.heading(w(lang, "aid_turn"), 14 * PT)
    col.para(w(lang, "aid_p1"), 12 * PT, BOLD)
    col.para(w(lang, "aid_p1_text"))
    col.para(w(lang, "aid_meteor"), 10.5 * PT, BOLD)
    col.para(w(lang, "aid_p2"), 12 * PT, BOLD)
    col.para(w(lang, "aid_p2_text", ap=4))
    _actions(col, lang)
    col.para(w(lang, "aid_capacity"), 10.5 * PT, BOLD)
    col.para(w(lang, "aid_p3"), 12 * PT, BOLD)
    col.para(w(lang, "aid_p3_text"))
    col.para(w(lang, "aid_p4"), 12 * PT, BOLD)
    col.para(w(lang, "aid_p4_text"))
    col.heading(w(lang, "aid_interim"))
    col.para(w(lang, "aid_interim_text"))
    col.heading(w(lang, "aid_end"))
    col.para(w(lang, "aid_end_text"))
    col.heading(w(lang, "aid_two").split(":")[0].strip())
    col.para(w(lang, "aid_two").split(":", 1)[1].strip())


def render_aid(lang: str = "fr", paper: str = "a4") -> bytes:
    """The player aid as a one-page A4 (or Letter) PDF in `lang`."""
    c, buf = new_canvas(w(lang, "aid_title"))
    with page(c, paper_size(paper)):
        draw_aid(c, paper_size(paper), lang)
    return finish(c, buf)
