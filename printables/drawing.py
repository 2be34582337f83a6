"""Shared ReportLab helpers: pages in millimetres, fitted text, token icons, QR codes.

ReportLab's built-in Helvetica (and Courier, for addresses to type) draws what it can: nothing
to embed, the same bytes on every machine. A character it lacks (an emoji, a Polish or Greek
letter) is drawn in an embedded Noto font (fonts.py), only on the PDFs that use one.
Every canvas is made with `invariant=1` so a PDF is reproducible.
"""

from __future__ import annotations

import io
import itertools
import unicodedata
from contextlib import contextmanager
from functools import lru_cache

from reportlab.graphics.barcode.qr import QrCodeWidget
from reportlab.lib.colors import HexColor, black, white
from reportlab.pdfbase.pdfmetrics import stringWidth as run_width
from reportlab.pdfgen import canvas as rl_canvas

from .fonts import UNSEEN, runs
from .fonts import width as stringWidth
from .geometry import MM, Box

PT = 25.4 / 72  # one typographic point in millimetres: sizes below are written as `8 * PT`
FONT, BOLD = "Helvetica", "Helvetica-Bold"
MONO = "Courier-Bold"  # addresses to type: every character its own width, nothing squeezed together
INK = HexColor("#1a1a1a")
GREY = HexColor("#6b6b6b")
LIGHT = HexColor("#f4f4f0")


def new_canvas(title: str) -> tuple:
    """A reproducible PDF canvas writing to memory: (canvas, buffer)."""
    buf = io.BytesIO()
    c = rl_canvas.Canvas(buf, invariant=1, pageCompression=1)
    c.setTitle(title)
    c.setAuthor("Terrabank")
    c.setCreator("Terrabank print pack")
    return c, buf


def finish(c, buf) -> bytes:
    """Close the PDF and return its bytes."""
    c.save()
    return buf.getvalue()


@contextmanager
def page(c, size: tuple):
    """One page of `size` mm; inside, every length is in millimetres."""
    c.setPageSize((size[0] * MM, size[1] * MM))
    c.saveState()
    c.scale(MM, MM)
    yield
    c.restoreState()
    c.showPage()


def colour(hex_value: str):
    """A ReportLab colour from '#rrggbb'."""
    return HexColor(hex_value)


def _luminance(hex_value: str) -> float:
    """WCAG relative luminance of '#rrggbb'."""
    channels = [int(hex_value[i:i + 2], 16) / 255 for i in (1, 3, 5)]
    lin = [v / 12.92 if v <= 0.03928 else ((v + 0.055) / 1.055) ** 2.4 for v in channels]
    return 0.2126 * lin[0] + 0.7152 * lin[1] + 0.0722 * lin[2]


def white_contrast(hex_value: str) -> float:
    """WCAG contrast ratio of white on this colour (4.5 for text, 3 for shapes)."""
    return 1.05 / (_luminance(hex_value) + 0.05)


def ink_on(hex_value: str):
    """Black or white, whichever contrasts more with the background (dark text on yellow)."""
    lum = _luminance(hex_value)
    return INK if (lum + 0.05) / 0.05 >= 1.05 / (lum + 0.05) else white


def fit_size(value: str, font: str, size: float, width: float, smallest: float = 4 * PT) -> float:
    """The largest size up to `size` at which `value` fits in `width` (never below `smallest`)."""
    needed = stringWidth(value, font, size)
    return size if needed <= width else max(smallest, size * width / needed)


def text(c, value: str, x: float, y: float, size: float, font: str = FONT, fill=INK,
         align: str = "left", width: float | None = None) -> float:
    """One line at baseline y, shrunk to `width` if given; returns the size used."""
    if width is not None:
        size = fit_size(value, font, size, width)
    parts = runs(value, font) or [(font, "")]
    if len(parts) == 1 and parts[0][0] == font:  # one font: drawn exactly as before fonts.py, the same bytes
        c.setFont(font, size)
        c.setFillColor(fill)
        draw = {"left": c.drawString, "centre": c.drawCentredString, "right": c.drawRightString}[align]
        draw(x, y, parts[0][1])
        return size
    c.setFillColor(fill)
    x -= {"left": 0.0, "centre": 0.5, "right": 1.0}[align] * stringWidth(value, font, size)
    for part_font, part in parts:  # each run in the font that has its characters (fonts.py)
        if part_font.startswith(UNSEEN):  # a skin tone: in the text, not on the paper (fonts.TONES)
            unseen = c.beginText(x, y)
            unseen.setTextRenderMode(3)
            unseen.setHorizScale(0)  # no width either: a copy's text reads the next letters on its line, in order
            unseen.setFont(part_font.removeprefix(UNSEEN), size)
            unseen.textOut(part)
            unseen.setTextRenderMode(0)  # the mode is the page's state, not the text object's: back to ink
            unseen.setHorizScale(100)
            c.drawText(unseen)
            continue
        c.setFont(part_font, size)
        c.drawString(x, y, part)
        x += run_width(part, part_font, size)
    return size


def wrap(value: str, font: str, size: float, width: float, split_words: str = "") -> list:
    """The lines of `value` wrapped to `width`, at ordinary spaces only.

    A no-break space (French puts one before ':' and ';') never starts a line,
    which ReportLab's simpleSplit would allow. With `split_words`, a word wider than
    the whole line (a 30-letter team name) goes on over the next lines (`split_word`:
    "dash" after a hyphen or dash only, "any" anywhere if it has none) instead of running
    past the box's edge, where the next cell would cover it.
    """
    lines = []
    for paragraph_text in value.split("\n"):
        line = ""
        for word_text in paragraph_text.split(" "):
            trial = f"{line} {word_text}" if line else word_text
            if line and stringWidth(trial, font, size) > width:
                lines.append(line)
                trial = word_text
            if split_words and trial == word_text and stringWidth(trial, font, size) > width:
                pieces = split_word(trial, font, size, width, anywhere=split_words == "any")
                lines += pieces[:-1]
                trial = pieces[-1]
            line = trial
        lines.append(line)
    return lines


def split_word(value: str, font: str, size: float, width: float, anywhere: bool = True) -> list:
    """A word too wide for `width` in lines: the rule is to break after its last hyphen or dash
    that fits ("Mégalosaure-" / "Anticonstitutionné"), else (`anywhere`) where the width is
    reached; a letter and its accent, an emoji and its joiners, stay together."""
    lines, rest = [], value
    while rest and stringWidth(rest, font, size) > width:
        cut = 1
        while cut < len(rest) and stringWidth(rest[:cut + 1], font, size) <= width:
            cut += 1
        dash = max(rest.rfind(mark, 0, cut) for mark in "-‐–—")
        if dash > 0:
            cut = dash + 1
        elif not anywhere:
            break
        while cut < len(rest) and unicodedata.category(rest[cut]) in ("Mn", "Me", "Cf", "Sk"):
            cut += 1
        lines.append(rest[:cut])
        rest = rest[cut:]
    return lines + [rest] if rest else lines


def break_anywhere(value: str, font: str, size: float, width: float) -> list:
    """Lines of a word with no spaces (a URL), cut wherever the width is reached."""
    lines, line = [], ""
    for ch in value:
        if line and stringWidth(line + ch, font, size) > width:
            lines.append(line)
            line = ""
        line += ch
    return lines + [line] if line else lines


def fits(value: str, font: str, size: float, box: Box, leading: float = 1.2, split_words: str = "") -> bool:
    """Whether `value` wrapped to the box width at `size` fits its height."""
    lines = wrap(value, font, size, box.w, split_words)
    widest = max((stringWidth(line, font, size) for line in lines), default=0)
    return len(lines) * size * leading <= box.h + 1e-6 and widest <= box.w + 1e-6


def paragraph(c, value: str, box: Box, size: float, font: str = FONT, fill=INK,
              smallest: float = 5 * PT, leading: float = 1.2, align: str = "left",
              middle: bool = False) -> float:
    """Wrapped text from the top (or `middle`) of `box`, shrunk until it fits; returns the height used."""
    while size > smallest and not fits(value, font, size, box, leading, "dash"):
        size = max(smallest, size - 0.25 * PT)
    lines = wrap(value, font, size, box.w, "any")
    room = max(1, int((box.h + 1e-6) // (size * leading)))
    if len(lines) > room:  # still too long at the smallest size: cut, and say so
        lines = lines[:room - 1] + [lines[room - 1].rstrip() + "…"]
    x = {"left": box.x, "centre": box.x + box.w / 2, "right": box.right}[align]
    used = len(lines) * size * leading
    y = box.top - size * 0.9 - ((box.h - used) / 2 if middle else 0)
    for line in lines:
        text(c, line, x, y, size, font, fill, align)
        y -= size * leading
    return used


def rounded(c, box: Box, radius: float, fill=None, stroke=None, width: float = 0.3) -> None:
    """A rounded rectangle, filled and/or outlined."""
    if fill is not None:
        c.setFillColor(fill)
    if stroke is not None:
        c.setStrokeColor(stroke)
        c.setLineWidth(width)
    c.roundRect(box.x, box.y, box.w, box.h, radius, stroke=int(stroke is not None), fill=int(fill is not None))


@lru_cache(maxsize=256)
def qr_runs(payload: str) -> tuple:
    """The QR matrix of `payload` (level M) as dark runs (row, first column, length), and its size."""
    encoder = QrCodeWidget(payload, barLevel="M").qr
    encoder.make()
    runs = []
    for r, row in enumerate(encoder.modules):
        col = 0
        for dark, group in itertools.groupby(bool(m) for m in row):
            count = len(list(group))
            if dark:
                runs.append((r, col, count))
            col += count
    return tuple(runs), encoder.getModuleCount()


QUIET_MODULES = 4  # the QR standard's quiet zone: phone readers miss codes with less


def qr_quiet(payload: str, size: float) -> float:
    """The white margin (mm) a code `size` mm wide needs around it: 4 of its modules."""
    return QUIET_MODULES * size / qr_runs(payload)[1]


def qr(c, payload: str, x: float, y: float, size: float, quiet: float | None = None) -> None:
    """A QR code at (x, y), `size` mm wide, always with a white quiet zone of at least 4 modules.

    Without `quiet` the white square grows 4 modules past the code on each side.
    With `quiet`, the caller's layout keeps a `quiet` mm margin round a `size` code:
    that footprint is kept, and a code whose 4 modules would not fit in it is
    drawn a little smaller, centred, so nothing around it is covered.
    ReportLab's QR widget encodes; its dark runs are drawn here as one path,
    which is several times faster than rendering the widget's shapes one by one.
    """
    runs, count = qr_runs(payload)
    if quiet is not None and quiet < qr_quiet(payload, size):
        footprint = size + 2 * quiet
        size = footprint / (1 + 2 * QUIET_MODULES / count)
        x, y = x - quiet + QUIET_MODULES * size / count, y - quiet + QUIET_MODULES * size / count
    margin = max(quiet or 0.0, qr_quiet(payload, size))
    c.setFillColor(white)
    c.rect(x - margin, y - margin, size + 2 * margin, size + 2 * margin, stroke=0, fill=1)
    module = size / count
    path = c.beginPath()
    for r, col, length in runs:
        path.rect(x + col * module, y + size - (r + 1) * module, length * module, module)
    c.setFillColor(black)  # full contrast for phone cameras in bright daylight
    c.drawPath(path, stroke=0, fill=1)


def cut_marks(c, marks: list) -> None:
    """Thin black cut marks from geometry.cut_marks."""
    c.setStrokeColor(INK)
    c.setLineWidth(0.25 * PT)
    for (x1, y1), (x2, y2) in marks:
        c.line(x1, y1, x2, y2)


def dashed_box(c, box: Box, stroke=GREY) -> None:
    """A dashed outline (tick boxes, glue strips)."""
    c.saveState()
    c.setDash(1, 1)
    c.setStrokeColor(stroke)
    c.setLineWidth(0.3)
    c.rect(box.x, box.y, box.w, box.h, stroke=1, fill=0)
    c.restoreState()


RULER_MM = 100


def ruler(c, x: float, y: float, label: str, vertical: bool = False) -> None:
    """A 100 mm ruler from (x, y), ticked every 10 mm: measured at 100 mm, the sheet printed at full size.

    `label` (e.g. "100 mm: check with a ruler") is written beside it, at 8 pt.
    """
    c.saveState()
    c.translate(x, y)
    if vertical:
        c.rotate(90)
    c.setStrokeColor(INK)
    c.setLineWidth(0.3)
    c.line(0, 0, RULER_MM, 0)
    for mm in range(0, RULER_MM + 1, 10):
        c.line(mm, 0, mm, 2.5 if mm in (0, RULER_MM) else 1.5)
    text(c, label, RULER_MM / 2, -3.6, 8 * PT, FONT, INK, "centre")
    c.restoreState()
