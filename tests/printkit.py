"""Helpers for print tests: read the text back out of a PDF, compare renders."""

from __future__ import annotations

import hashlib
import io
from collections import OrderedDict

import pytest

pypdf = pytest.importorskip("pypdf", reason="the print tests read PDFs with pypdf (test extra)")

# pypdf parsing a page's content stream is most of a print test's time, and one PDF is read by
# several helpers (its text, its strings' boxes, its missing glyphs), often by several tests of a
# module: each page is parsed once, its text and every string it draws kept for the next reader.
_READ: OrderedDict = OrderedDict()  # PDF digest -> {page number: (text, drawn strings)}
_KEPT = 24  # PDFs; the oldest is forgotten (a module's renders, not a whole worker's)


class Rendered(dict):
    """Documents by name, each rendered when a test first asks for it: {name: zero-argument renderer}.

    The names are known at collection (a test's parameters) without drawing anything; rendering them
    at a module's import cost each of the parallel pass's workers that collected the module, not only
    the one that runs its tests, a CPU-second and more."""

    def __getitem__(self, name: str) -> bytes:
        value = super().__getitem__(name)
        if callable(value):
            value = value()
            self[name] = value
        return value


def _read(data: bytes) -> dict:
    """The PDF's entry in _READ ({"reader": its PdfReader, page number: (text, strings)...}), made if new."""
    key = hashlib.blake2b(data, digest_size=16).digest()
    pages = _READ.pop(key, None)
    if pages is None:
        pages = {"reader": pypdf.PdfReader(io.BytesIO(data))}
    _READ[key] = pages  # the newest last
    while len(_READ) > _KEPT:
        _READ.popitem(last=False)
    return pages


def _page(data: bytes, page: int) -> tuple[str, list]:
    """(pypdf's text of the page, every string drawn: (text, cm, tm, font, size) as its visitor sees them)."""
    pages = _read(data)
    if page not in pages:
        strings = []
        text = pages["reader"].pages[page].extract_text(
            visitor_text=lambda text, cm, tm, font, size: strings.append((text, list(cm), list(tm), font, size)))
        pages[page] = (text, strings)
    return pages[page]


def _pages(data: bytes) -> list:
    return [_page(data, n) for n in range(page_count(data))]


def pages_text(data: bytes) -> list:
    """Each page's text lines, as pypdf extracts them."""
    return [[line.strip() for line in text.splitlines() if line.strip()] for text, _ in _pages(data)]


def all_text(data: bytes) -> str:
    """The whole PDF's text, one line per drawn string."""
    return "\n".join(line for lines in pages_text(data) for line in lines)


def page_count(data: bytes) -> int:
    return len(_read(data)["reader"].pages)


def page_sizes_mm(data: bytes) -> list:
    """(width, height) of every page, rounded to the millimetre."""
    reader = pypdf.PdfReader(io.BytesIO(data))
    return [(round(float(p.mediabox.width) * 25.4 / 72), round(float(p.mediabox.height) * 25.4 / 72))
            for p in reader.pages]


def follows(lines: list, *expected: str) -> bool:
    """Whether `expected` appear one after the other somewhere in `lines`."""
    n = len(expected)
    return any(tuple(lines[i:i + n]) == expected for i in range(len(lines) - n + 1))


def play_sample(bank, t0: float = 1_700_000_000.0) -> None:
    """A short game on `bank` at fixed times: buildings, tracks, an animal, trades, fights, an event, the end."""
    steps = iter(range(1, 1000))

    def do(minute: float, **command):
        return bank.execute({"id": f"sample-{next(steps)}", **command}, now=t0 + minute * 60)

    do(0, type="start_clock")
    for team, extra in (("green", {"flora": 70}), ("blue", {"water": 60}), ("red", {"dioxygen": 40})):
        do(1, type="inventory", team=team, counted={"energy": 40, "water": 30, "dioxygen": 30, "fauna": 30, "flora": 20, **extra})
    do(5, type="build", team="green", building="greenhouse")
    do(9, type="trade", kind="free", merchant_team="blue", visited_team="yellow", give={"water": 2}, take={"energy": 2})
    mistake = do(10, type="trade", kind="free", merchant_team="red", visited_team="green", give={"water": 1}, take={"flora": 1})
    do(11, type="reverse", seq=mistake.seq, reason="booked twice")
    do(12, type="fight", attacker_team="red", attacker_card="pirate-1", defender_team="blue",
       defender_card="harvester-1", winner="attacker", tokens={"water": 2})
    do(20, type="raise_tracks", team="green", steps={"phytosphere": 6})
    do(25, type="raise_tracks", team="blue", steps={"hydrosphere": 4})
    do(30, type="raise_tracks", team="red", steps={"atmosphere": 4})
    do(34, type="set_rate", tokens=5, points=1)
    do(38, type="exchange", team="blue", tokens={"water": 10})
    do(40, type="open_event", title="Drought", accepts=["water"], rewards=[{"points": 3}])
    do(42, type="contribute", event="ev1", team="blue", tokens={"water": 6})
    do(44, type="close_event", event="ev1")
    do(50, type="buy_animal", team="green", animal="sheep")
    do(55, type="build", team="red", building="power_plant_1")
    do(58, type="fight", attacker_team="blue", attacker_card="pirate-1", defender_team="red",
       defender_card="builder-1", winner="defender", tokens={})
    wrong = do(60, type="award", team="yellow", points=4, reason="fair play")
    do(61, type="reverse", seq=wrong.seq, reason="wrong team")
    do(62, type="award", team="red", points=4, reason="fair play")
    do(70, type="end_game")


def scan_qr_codes(data: bytes, tmp_path, page: int = 1, dpi: int = 150) -> list:
    """Payloads of the QR codes on a page, read by zbarimg from a pdftoppm image (skips without them)."""
    import subprocess

    from needs import require

    require("pdftoppm", "zbarimg")
    pdf = tmp_path / "scan.pdf"
    pdf.write_bytes(data)
    subprocess.run(["pdftoppm", "-r", str(dpi), "-png", "-f", str(page), "-l", str(page), "-singlefile", str(pdf),
                    str(tmp_path / "scan")], check=True)
    out = subprocess.run(["zbarimg", "--quiet", "--raw", str(tmp_path / "scan.png")], capture_output=True, text=True, check=False)
    return sorted(line for line in out.stdout.splitlines() if line)


def text_boxes(data: bytes, page: int = 0) -> list:
    """(text, (x0, y0, x1, y1) in mm, upright) of every string drawn on a page."""
    return [(text, box, upright) for text, box, upright, _, _ in drawn_strings(data, page)]


def drawn_strings(data: bytes, page: int = 0) -> list:
    """(text, (x0, y0, x1, y1) in mm, upright, size in points on the page, font) of every string drawn on a page.

    A run in an embedded font (printables/fonts.py: an emoji, a Polish letter) is measured with that font.
    """
    from reportlab.pdfbase.pdfmetrics import stringWidth

    from printables.fonts import registered_name

    found = []

    def visit(text, cm, tm, font, size):
        text = text.strip()
        if not text or font is None:
            return
        x = tm[4] * cm[0] + tm[5] * cm[2] + cm[4]
        y = tm[4] * cm[1] + tm[5] * cm[3] + cm[5]
        scale = (cm[0] ** 2 + cm[1] ** 2) ** 0.5  # points per user unit
        font_name = registered_name(font["/BaseFont"])
        width = stringWidth(text, font_name, size) * scale
        height = size * scale
        upright = abs(cm[1]) < 1e-9 and abs(tm[1]) < 1e-9
        mm = 25.4 / 72
        found.append((text, (x * mm, (y - 0.25 * height) * mm, (x + width) * mm, (y + 0.8 * height) * mm), upright,
                      size * scale * (tm[0] ** 2 + tm[1] ** 2) ** 0.5, font_name))

    for drawn in _page(data, page)[1]:
        visit(*drawn)
    return found


def missing_glyphs(data: bytes) -> list:
    """(page, font, character) of every character a PDF draws without a glyph: a box on paper.

    ReportLab draws a character Helvetica lacks as a ZapfDingbats box; each character drawn in an
    embedded font (read back through its ToUnicode map) is looked up in the font file itself.
    """
    from printables.fonts import drawable_codes

    found = []
    for number, (_, strings) in enumerate(_pages(data), start=1):
        for text, _, _, font, _ in strings:
            if font is None or not text.strip():
                continue
            base = str(font.get("/BaseFont", ""))
            if base.lstrip("/") == "ZapfDingbats":
                found.append((number, base, text))
            codes = drawable_codes(base) if "+" in base else None
            if codes is not None:
                found.extend((number, base, ch) for ch in text if ord(ch) not in codes and not ch.isspace())
    return found
