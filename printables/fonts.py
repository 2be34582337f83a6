"""Which font draws each character: Helvetica for what it has, embedded Noto fonts for the rest.

ReportLab's built-in Helvetica and Courier know only the WinAnsi characters (French, English,
Italian); a team called "Les Verts 🌱" or "Łódź" would print a box for the rest. Each string is
cut into runs, each run drawn in the first font that has all its characters: the page's own
font when WinAnsi holds the character (nothing embedded, the same look and bytes as always),
then Noto Sans (Latin, Greek, Cyrillic), Noto Sans Symbols and Noto Emoji (monochrome, with
TrueType outlines, which is what ReportLab can embed), shipped by the `manimgx-fonts` wheel.

ReportLab sets no text: no shaping, no right-to-left. Scripts that need either (Arabic, Hebrew,
the Indic scripts, Thai) and those no font here has (Chinese, Japanese, Korean) are refused by
`terrabank config check` through `undrawable`, before a sheet is printed, never drawn as boxes.
"""

from __future__ import annotations

import os
import unicodedata
from functools import lru_cache

from reportlab.pdfbase import pdfmetrics
from reportlab.pdfbase import ttfonts

# (registered name, file in the manimgx_fonts package), tried in this order after the page's font.
FALLBACKS = (("TB-NotoSans", "NotoSans[wght].ttf"),
             ("TB-NotoSymbols", "NotoSansSymbols[wght].ttf"),
             ("TB-NotoEmoji", "NotoEmoji[wght].ttf"))
BUILT_IN = {"Helvetica", "Helvetica-Bold", "Courier", "Courier-Bold", "Courier-Oblique", "Helvetica-Oblique"}
# Zero-width marks of an emoji sequence (variation selectors, joiner): drawn by the font of the
# character before them when no font maps them, so they never become a glyph of their own.
JOINERS = {"\ufe0e", "\ufe0f", "\u200d"}
# A skin tone after an emoji colours it; a monochrome font has no colour and draws the tone as a swatch of its
# own beside the emoji ("👍🏽" printed as a thumb and a hatched box). Such a tone is drawn unseen (text render
# mode 3, no advance): the name still reads whole from the PDF (a copy, a search), and prints as the bare emoji.
TONES = frozenset(chr(c) for c in range(0x1F3FB, 0x1F400))
# An enclosing mark (the keycap of "1️⃣", a circle, a square) is set around its character by a shaping engine;
# ReportLab draws it as a frame of its own, after the character and over the next one ("Équipe 1️⃣" printed as
# "Équipe ▯" with the 1 half hidden, "#️⃣ Dièses" as a box over the D). Drawn unseen like a tone: the character
# prints bare ("Équipe 1", as re-entry reads it), the name reads whole from the PDF.
ENCLOSING = "Me"
# A soft hyphen (a name pasted from a web page or a word processor) marks where a word may break; ReportLab never
# breaks there and drew it as a hyphen ("Ga\u00adla" printed "Ga-la", which re-entry reads as two words: no team).
# Left out, as on a screen: the word prints whole ("Gala"), and a copy from the PDF gives it so, as it is typed back.
SOFT_HYPHEN = "\u00ad"
UNSEEN = "unseen:"  # a run's font prefixed so: drawn invisible, no width


def _utf16(code: int) -> str:
    """A code point as the UTF-16BE hex a ToUnicode CMap wants (a surrogate pair above U+FFFF)."""
    if code < 0x10000:
        return "%04X" % code
    code -= 0x10000
    return "%04X%04X" % (0xD800 + (code >> 10), 0xDC00 + (code & 0x3FF))


def _to_unicode_cmap(fontname, subset):
    """ReportLab's ToUnicode CMap with emoji written as surrogate pairs.

    ReportLab writes each code point as `<%04X>`: an emoji (U+1F331, five hex digits) comes back
    from the PDF's text as another character (pdftotext reads 'ἳ'), so a copied name or a search
    for it fails. The same CMap, with UTF-16 as the PDF reference asks.
    """
    return "\n".join([
        "/CIDInit /ProcSet findresource begin", "12 dict begin", "begincmap", "/CIDSystemInfo",
        "<< /Registry (%s)" % fontname, "/Ordering (%s)" % fontname, "/Supplement 0", ">> def",
        "/CMapName /%s def" % fontname, "/CMapType 2 def", "1 begincodespacerange",
        "<00> <%02X>" % (len(subset) - 1), "endcodespacerange", "%d beginbfchar" % len(subset),
        *["<%02X> <%s>" % (i, _utf16(v)) for i, v in enumerate(subset)],
        "endbfchar", "endcmap", "CMapName currentdict /CMap defineresource pop", "end", "end"])


ttfonts.makeToUnicodeCMap = _to_unicode_cmap


def _folder() -> str | None:
    try:
        import manimgx_fonts
    except ImportError:  # an install made before the fonts were a dependency: Helvetica alone, config check says so
        return None
    return os.path.dirname(manimgx_fonts.__file__)


@lru_cache(maxsize=1)
def fallbacks() -> tuple:
    """((registered name, set of code points it draws), ...): registered with ReportLab on first use."""
    folder = _folder()
    if folder is None:
        return ()
    found = []
    for registered, filename in FALLBACKS:
        path = os.path.join(folder, filename)
        if not os.path.exists(path):
            continue
        if registered not in pdfmetrics.getRegisteredFontNames():
            pdfmetrics.registerFont(ttfonts.TTFont(registered, path))
        face = pdfmetrics.getFont(registered).face
        found.append((registered, frozenset(c for c, g in face.charToGlyph.items() if g)))
    return tuple(found)


@lru_cache(maxsize=4096)
def _win_ansi(ch: str) -> bool:
    """Whether a built-in font draws `ch` (its WinAnsi encoding holds it)."""
    try:
        ch.encode("cp1252")
    except UnicodeEncodeError:
        return False
    return ch >= " " or ch == "\t"


def font_for(ch: str, font: str) -> str | None:
    """The font that draws `ch` when the page asks for `font`, or None when none here can."""
    if font in BUILT_IN:
        if _win_ansi(ch):
            return font
    elif ord(ch) in pdfmetrics.getFont(font).face.charToGlyph:
        return font
    for registered, codes in fallbacks():
        if ord(ch) in codes:
            return registered
    return None


def runs(value: str, font: str) -> list:
    """[(font, text), ...] covering `value` (NFC: an accent typed apart is one letter), in order.

    A character no font draws is left out (it would be a box); `undrawable` names them first.
    """
    if font in BUILT_IN and _plain(value):  # most strings: the page's font draws them as they are
        return [(font, value)] if value else []
    return list(_runs(value, font))


@lru_cache(maxsize=8192)
def _plain(value: str) -> bool:
    """Whether a built-in font draws `value` whole as it is (WinAnsi characters, already NFC)."""
    if value.isascii():
        return value.isprintable()
    return all(_win_ansi(ch) for ch in value) and unicodedata.is_normalized("NFC", value) and SOFT_HYPHEN not in value


@lru_cache(maxsize=8192)
def _runs(value: str, font: str) -> tuple:
    value = unicodedata.normalize("NFC", value)
    if font in BUILT_IN and all(_win_ansi(ch) for ch in value) and SOFT_HYPHEN not in value:
        return ((font, value),) if value else ()
    out = []
    for i, ch in enumerate(value):
        chosen = font_for(ch, font) if ch != SOFT_HYPHEN else None
        if chosen is None and ch in JOINERS and out:
            chosen = out[-1][0]
        if chosen is None:
            continue
        if ch in TONES and i and not value[i - 1].isspace() and value[i - 1] not in TONES \
                or unicodedata.category(ch) == ENCLOSING:
            chosen = UNSEEN + chosen
        if out and out[-1][0] == chosen:
            out[-1] = (chosen, out[-1][1] + ch)
        else:
            out.append((chosen, ch))
    return tuple(out)


def width(value: str, font: str, size: float) -> float:
    """The drawn width of `value` at `size`, each run in its own font."""
    if font in BUILT_IN and _plain(value):
        return pdfmetrics.stringWidth(value, font, size)
    return sum(pdfmetrics.stringWidth(part, f, size) for f, part in runs(value, font) if not f.startswith(UNSEEN))


def undrawable(value: str) -> list:
    """The characters of `value` that no print font draws, each once, in order (empty: it prints whole)."""
    seen = []
    for ch in unicodedata.normalize("NFC", value):
        if ch in JOINERS or ch in seen:
            continue
        if font_for(ch, "Helvetica") is None:
            seen.append(ch)
    return seen


def describe(ch: str) -> str:
    """'🀄 (U+1F004 MAHJONG TILE RED DRAGON)': a character as an operator can find and replace it."""
    return f"{ch} (U+{ord(ch):04X} {unicodedata.name(ch, 'unnamed')})"


def registered_name(base_font: str) -> str:
    """The ReportLab name of a PDF's font ('AAAAAA+NotoEmoji-Regular' -> 'TB-NotoEmoji'), to measure it."""
    plain = base_font.lstrip("/").split("+")[-1]
    for registered, _ in fallbacks():
        if pdfmetrics.getFont(registered).face.name.decode("latin-1") == plain:
            return registered
    return plain


def drawable_codes(base_font: str) -> frozenset | None:
    """The code points an embedded font of ours draws (None for a built-in one)."""
    registered = registered_name(base_font)
    return next((codes for name, codes in fallbacks() if name == registered), None)
