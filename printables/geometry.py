"""Pure layout of the print pack, in millimetres: sheets, card boxes, cut marks, duplex.

No drawing here (the renderers only draw what these boxes say), so the layout is
tested without a PDF. Origin is the bottom-left corner of the page, as in PDF.
"""

from __future__ import annotations

from dataclasses import dataclass

MM = 72 / 25.4  # PostScript points per millimetre

A4 = (210.0, 297.0)
A3 = (297.0, 420.0)
LETTER = (215.9, 279.4)  # US Letter, 8.5 x 11 in: A4 printed at 100% on it loses 8.8 mm top and bottom
PAPERS = {"a4": A4, "letter": LETTER}


def paper_size(paper: str) -> tuple:
    """The sheet of a paper name ("a4" or "letter"), portrait, in mm."""
    if paper not in PAPERS:
        raise ValueError(f"paper must be one of {', '.join(PAPERS)}, not {paper!r}")
    return PAPERS[paper]

# 63 x 88 mm is the poker playing-card size: "card" laminating pouches and card
# sleeves are sold for it, so a team can protect its cards against rain and grass.
# We prefer it to the 54 x 86 credit-card size because the extra 9 x 2 mm hold
# the fight table and a QR code big enough for a tablet camera at readable sizes.
CARD = (63.0, 88.0)
BLEED = 3.0       # colour printed past the cut line, so a slightly-off cut shows no white edge
SAFE = 4.0        # text and QR codes stay this far inside the cut line
MARGIN = 6.0      # most office printers cannot print the outer 4-5 mm of a sheet
MARK_OFFSET = 1.0  # gap between a cut mark and the printed bleed, so marks never touch the art
MARK_LENGTH = 3.0
# Three rows of 94 mm (88 + 2 bleeds) fill 282 of A4's 297 mm: 7.5 mm are left
# at top and bottom, enough for marks 1-4 mm off the bleed on most printers.
GRID_MARGIN = 7.0
# Many home inkjets cannot print the outer 5-10 mm of a sheet: cut marks stay this far in.
HOME_EDGE = 10.0
# Role cards share their cut lines (no gutter, no bleed between two cards): every card
# of a sheet has the same team colour, so a cut a little off still shows no white, and
# the 3 x 88 mm column leaves 13.5 mm at top and bottom for marks clear of HOME_EDGE.
CARD_MARGIN = 13.5


def landscape(page: tuple) -> tuple:
    """The same page turned sideways (long side horizontal)."""
    return max(page), min(page)


@dataclass(frozen=True)
class Box:
    """A rectangle in millimetres: bottom-left corner, width, height."""

    x: float
    y: float
    w: float
    h: float

    @property
    def right(self) -> float:
        return self.x + self.w

    @property
    def top(self) -> float:
        return self.y + self.h

    def inset(self, d: float) -> Box:
        """The box shrunk by `d` on every side (negative `d` grows it)."""
        return Box(self.x + d, self.y + d, self.w - 2 * d, self.h - 2 * d)

    def contains(self, other: Box, tol: float = 1e-6) -> bool:
        """Whether `other` lies entirely inside this box."""
        return (other.x >= self.x - tol and other.y >= self.y - tol
                and other.right <= self.right + tol and other.top <= self.top + tol)

    def overlaps(self, other: Box, tol: float = 1e-6) -> bool:
        """Whether the two boxes share some area (touching edges, up to rounding, do not count)."""
        return (self.x < other.right - tol and other.x < self.right - tol
                and self.y < other.top - tol and other.y < self.top - tol)

    def mirrored(self, page_w: float) -> Box:
        """The box reflected about the vertical centre line of a page `page_w` wide."""
        return Box(page_w - self.right, self.y, self.w, self.h)

    def flipped(self, page_h: float) -> Box:
        """The box reflected about the horizontal centre line of a page `page_h` high."""
        return Box(self.x, page_h - self.top, self.w, self.h)


@dataclass(frozen=True)
class Slot:
    """One card position on a sheet: its printed area, its cut line, its safe zone."""

    index: int
    col: int
    row: int  # 0 = top row, as people read a sheet
    bleed: Box
    trim: Box
    safe: Box


@dataclass(frozen=True)
class Sheet:
    """A page holding a grid of cards."""

    page: tuple
    cols: int
    rows: int
    slots: tuple

    @property
    def count(self) -> int:
        return len(self.slots)


def fit_count(space: float, item: float, gutter: float) -> int:
    """How many items of size `item`, separated by `gutter`, fit in `space`."""
    if item <= 0 or space < item:
        return 0
    return int((space + gutter) // (item + gutter) + 1e-9)


def impose(page: tuple = A4, card: tuple = CARD, bleed: float = BLEED, gutter: float = 0.0,
           margin: float = GRID_MARGIN, safe: float = SAFE) -> Sheet:
    """As many cards as fit on the page with their bleed, the grid centred, left to right, top down.

    `gutter` is the gap between neighbouring bleed boxes; 0 is fine because every
    card is cut on its own trim line (two cuts, 2 x bleed apart). `margin` keeps
    room around the grid for cut marks inside what a printer can print.
    """
    bw, bh = card[0] + 2 * bleed, card[1] + 2 * bleed
    cols = fit_count(page[0] - 2 * margin, bw, gutter)
    rows = fit_count(page[1] - 2 * margin, bh, gutter)
    grid_w, grid_h = cols * bw + (cols - 1) * gutter, rows * bh + (rows - 1) * gutter
    x0, top = (page[0] - grid_w) / 2, (page[1] + grid_h) / 2
    slots = []
    for row in range(rows):
        for col in range(cols):
            b = Box(x0 + col * (bw + gutter), top - (row + 1) * bh - row * gutter, bw, bh)
            trim = b.inset(bleed)
            slots.append(Slot(len(slots), col, row, b, trim, trim.inset(safe)))
    return Sheet(page, cols, rows, tuple(slots))


def first(sheet: Sheet, n: int) -> Sheet:
    """The sheet with only its first `n` slots in use (so cut marks skip empty places)."""
    return Sheet(sheet.page, sheet.cols, sheet.rows, sheet.slots[:n])


def grid_box(sheet: Sheet) -> Box:
    """The smallest box holding every card's bleed."""
    xs = [s.bleed.x for s in sheet.slots] + [s.bleed.right for s in sheet.slots]
    ys = [s.bleed.y for s in sheet.slots] + [s.bleed.top for s in sheet.slots]
    return Box(min(xs), min(ys), max(xs) - min(xs), max(ys) - min(ys))


def card_sheet(page: tuple = A4) -> Sheet:
    """The role cards' sheet: cards side by side on shared cut lines, outer bleed only."""
    return impose(page, CARD, BLEED, gutter=-2 * BLEED, margin=CARD_MARGIN)


def cut_marks(sheet: Sheet, offset: float = MARK_OFFSET, length: float = MARK_LENGTH,
              edge: float = HOME_EDGE) -> list:
    """Short segments ((x1, y1), (x2, y2)) outside the grid, in line with every cut.

    Marks sit only around the whole grid, never between cards, so they never
    print on a neighbour's bleed. Each is shortened to stay `edge` mm inside the
    sheet (home printers); one left shorter than 1 mm is not drawn.
    """
    if not sheet.slots:
        return []
    g = grid_box(sheet)
    w, h = sheet.page
    xs = sorted({round(v, 4) for s in sheet.slots for v in (s.trim.x, s.trim.right)})
    ys = sorted({round(v, 4) for s in sheet.slots for v in (s.trim.y, s.trim.top)})
    marks = []
    for x in xs:
        marks.append(((x, g.top + offset), (x, min(g.top + offset + length, h - edge))))
        marks.append(((x, g.y - offset), (x, max(g.y - offset - length, edge))))
    for y in ys:
        marks.append(((g.x - offset, y), (max(g.x - offset - length, edge), y)))
        marks.append(((g.right + offset, y), (min(g.right + offset + length, w - edge), y)))
    # A mark whose far end was pulled back past its start (no room outside the grid) is dropped.
    return [(a, b) for a, b in marks if _outward(a, b, g) >= 1.0 - 1e-9]


def _outward(a: tuple, b: tuple, grid: Box) -> float:
    """Length of a mark running away from the grid (negative when it runs back into it)."""
    dx, dy = b[0] - a[0], b[1] - a[1]
    if dx == 0:
        return dy if a[1] >= grid.top else -dy
    return dx if a[0] >= grid.right else -dx


def back_slots(sheet: Sheet, flip: str = "long") -> list:
    """Where each card's back goes on the back page, in the order of the fronts.

    Printed duplex on a portrait sheet turned over its long edge, the back page
    is the front mirrored left-right: the card in column 0 has its back in the
    last column. Turned over the short edge, the rows swap instead.
    """
    if flip not in ("long", "short"):
        raise ValueError(f"flip must be 'long' or 'short', not {flip!r}")
    w, h = sheet.page
    move = (lambda b: b.mirrored(w)) if flip == "long" else (lambda b: b.flipped(h))
    result = []
    for s in sheet.slots:
        col = sheet.cols - 1 - s.col if flip == "long" else s.col
        row = s.row if flip == "long" else sheet.rows - 1 - s.row
        result.append(Slot(s.index, col, row, move(s.bleed), move(s.trim), move(s.safe)))
    return result


@dataclass(frozen=True)
class Tile:
    """One small page showing part of a big page: scale, offset and the visible area."""

    index: int
    scale: float
    dx: float  # big-page x maps to small-page x * scale + dx
    dy: float
    clip: Box  # on the small page
    overlap: Box | None  # strip on the small page repeated on the other tile (glue area)


def halves(big: tuple = landscape(A3), small: tuple = A4, margin: float = MARGIN,
           overlap: float = 10.0) -> list:
    """Two portrait pages that, glued with `overlap` mm in common, rebuild a landscape page.

    The big page is scaled down just enough that each half fits inside the
    printable area of the small page.
    """
    usable_w, usable_h = small[0] - 2 * margin, small[1] - 2 * margin
    scale = min(1.0, (2 * usable_w - overlap) / big[0], usable_h / big[1])
    shown_w = big[0] * scale / 2 + overlap / 2  # each half shows half the art plus half the overlap
    dy = (small[1] - big[1] * scale) / 2
    tiles = []
    for i in (0, 1):
        clip = Box(margin if i == 0 else small[0] - margin - shown_w, dy, shown_w, big[1] * scale)
        dx = clip.x - (0 if i == 0 else big[0] * scale / 2 - overlap / 2)
        strip = Box(clip.right - overlap, clip.y, overlap, clip.h) if i == 0 else Box(clip.x, clip.y, overlap, clip.h)
        tiles.append(Tile(i, scale, dx, dy, clip, strip))
    return tiles


def columns(box: Box, n: int, gap: float) -> list:
    """`n` boxes side by side filling `box`, `gap` apart."""
    w = (box.w - (n - 1) * gap) / n
    return [Box(box.x + i * (w + gap), box.y, w, box.h) for i in range(n)]


def stack(box: Box, heights: list, gap: float = 0.0) -> list:
    """Boxes stacked from the top of `box` with the given heights; None shares what is left."""
    fixed = sum(h for h in heights if h is not None) + gap * (len(heights) - 1)
    flexible = [h for h in heights if h is None]
    share = (box.h - fixed) / len(flexible) if flexible else 0
    out, top = [], box.top
    for h in heights:
        h = share if h is None else h
        out.append(Box(box.x, top - h, box.w, h))
        top -= h + gap
    return out
