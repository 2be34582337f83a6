"""The paper ledgers' ruled table, shared by the bank sheets' ledger (bank_sheets.py) and the
continuation ledger (state_ledger.py): a header row, '±' / 'total' under each count, a shaded
starting row, then ruled rows shaded every other one, framed in ink with a thin line between a
movement and its running total.

Each ledger keeps its own widths, row height, number of rows and the words it writes in the
starting row; the lines and shading are drawn here once (the two ledgers' pages are the same to
the pixel as when each drew its own: checked with pdftoppm at 150 dpi, fr and en, A4 and Letter).
"""

from __future__ import annotations

from dataclasses import dataclass

from .drawing import BOLD, GREY, INK, LIGHT, PT, text, white


@dataclass(frozen=True)
class LedgerGrid:
    """Where a ledger's table stands: its columns' left edges `xs` (line number, time, move, one pair of
    columns per count, who), its right edge, the width of a count's pair, and its rows below the header at `y0`."""

    xs: list
    right: float
    y0: float
    row_h: float
    pair: float
    counts: int
    rows: int
    first_count: int = 3  # the columns before the counts: the printed line number, the time, the move

    @property
    def x0(self) -> float:
        return self.xs[0]

    @property
    def sub(self) -> float:
        """The top of the '±' / 'total' row."""
        return self.y0 - self.row_h

    @property
    def start_y(self) -> float:
        """The top of the starting stock's row."""
        return self.sub - self.row_h

    @property
    def body_top(self) -> float:
        """The top of the first row to write in."""
        return self.start_y - self.row_h

    @property
    def bottom(self) -> float:
        return self.body_top - self.rows * self.row_h

    def count_x(self, i: int) -> float:
        """The left edge of the i-th count's pair of columns."""
        return self.xs[self.first_count + i]


def draw_heads(c, heads: list, x0: float, y0: float) -> tuple:
    """The header row, one centred label per (label, width) column: (the columns' left edges, the right edge)."""
    xs, x = [], x0
    for label, cw in heads:
        text(c, label, x + cw / 2, y0 - 4.5, 9 * PT, BOLD, INK, "centre", width=cw - 1.5)
        xs.append(x)
        x += cw
    return xs, x


def draw_pair_heads(c, grid: LedgerGrid, move: str, total: str, drop: float) -> None:
    """'±' over the movement and 'total' over the running total of each count, `drop` below the row's top."""
    for i in range(grid.counts):
        text(c, move, grid.count_x(i) + grid.pair / 4, grid.sub - drop, 9 * PT, BOLD, INK, "centre")
        text(c, total, grid.count_x(i) + 3 * grid.pair / 4, grid.sub - drop, 8 * PT, BOLD, INK, "centre")


def shade_start_row(c, grid: LedgerGrid) -> None:
    """The starting stock's row on a light ground (drawn before its words)."""
    c.setFillColor(LIGHT)
    c.rect(grid.x0, grid.start_y - grid.row_h, grid.right - grid.x0, grid.row_h, stroke=0, fill=1)


def rule_rows(c, grid: LedgerGrid, shade_over_rules: bool = False) -> None:
    """Every other row shaded and every row ruled in grey, then the ink frame, the columns and the
    thin line between a movement and its running total.

    The shading goes first, so a grey rule stays whole over it; the bank sheets' ledger has always
    shaded after ruling (`shade_over_rules`: half of each rule's width under the shading), kept so its
    pages stay the same to the pixel.
    """
    if not shade_over_rules:
        _shade_every_other_row(c, grid)
    c.setStrokeColor(GREY)
    c.setLineWidth(0.25)
    for i in range(grid.rows + 1):
        c.line(grid.x0, grid.body_top - i * grid.row_h, grid.right, grid.body_top - i * grid.row_h)
    if shade_over_rules:
        _shade_every_other_row(c, grid)
    _frame(c, grid)


def _shade_every_other_row(c, grid: LedgerGrid) -> None:
    c.setFillColor(LIGHT)
    for i in range(1, grid.rows, 2):
        c.rect(grid.x0, grid.body_top - (i + 1) * grid.row_h, grid.right - grid.x0, grid.row_h, stroke=0, fill=1)


def _frame(c, grid: LedgerGrid) -> None:
    """The ink lines: above the header, the starting row and the body, under the last row; each column."""
    x0, right, body_top = grid.x0, grid.right, grid.body_top
    c.setStrokeColor(INK)
    c.setLineWidth(0.6)
    for y in (grid.y0, grid.start_y, body_top, grid.bottom):
        c.line(x0, y, right, y)
    for x in [*grid.xs, right]:
        c.line(x, grid.y0, x, grid.bottom)
    c.setLineWidth(0.2)
    for i in range(grid.counts):
        c.line(grid.count_x(i) + grid.pair / 2, grid.sub, grid.count_x(i) + grid.pair / 2, grid.bottom)


def number_rows(c, grid: LedgerGrid) -> None:
    """Each row's printed number in the first column: the lead types it before the move, so a line sent
    again from any device is known again (bank/game/paper_sheet.py)."""
    width = grid.xs[1] - grid.xs[0]
    for i in range(grid.rows):
        text(c, str(i + 1), grid.x0 + width / 2, grid.body_top - i * grid.row_h - grid.row_h + 1.9, 8.5 * PT, BOLD, GREY, "centre")


def sheet_tag(c, sheet: str, words: tuple, right: float, top: float, height: float) -> float:
    """The sheet's id in a white box at the right of the ledger's band, with a box for the copy's number
    written by hand (2, 3... on copies of the same sheet); returns the box's left edge.
    `words`: ('Feuille', 'copie') in the sheet's language."""
    label, copy = words
    box_w = 62.0
    left = right - box_w - 1.2
    c.setFillColor(white)
    c.rect(left, top - height + 1.2, box_w, height - 2.4, stroke=0, fill=1)
    text(c, f"{label} {sheet}", left + 2, top - height / 2 - 1.6, 12 * PT, BOLD, INK, width=box_w * 0.58)
    text(c, copy, left + box_w * 0.62, top - height / 2 - 1.4, 8.5 * PT, BOLD, INK)
    c.setStrokeColor(INK)
    c.setLineWidth(0.4)
    c.rect(left + box_w - 13, top - height + 2.2, 11, height - 4.4, stroke=1, fill=0)
    return left
