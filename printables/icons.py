"""Resource tokens and the bonus die as vector icons, each with its own glyph.

The glyph (drop, leaf, bubbles, paw, bolt, star) tells the kinds apart for
players who do not see colours well; the disc is the resource's own colour.
"""

from __future__ import annotations

import math

from reportlab.lib.colors import white
from .fonts import width as stringWidth

from .drawing import BOLD, INK, colour, text, white_contrast
from .labels import short, word

DICE = "dice"
GAP = 2.4  # mm between one amount's icon and the next number, so each number reads with its own icon


def _drop(c, x, y, r):
    p = c.beginPath()
    p.moveTo(x, y + 0.62 * r)
    p.curveTo(x + 0.12 * r, y + 0.3 * r, x + 0.45 * r, y + 0.05 * r, x + 0.45 * r, y - 0.2 * r)
    p.curveTo(x + 0.45 * r, y - 0.5 * r, x + 0.22 * r, y - 0.62 * r, x, y - 0.62 * r)
    p.curveTo(x - 0.22 * r, y - 0.62 * r, x - 0.45 * r, y - 0.5 * r, x - 0.45 * r, y - 0.2 * r)
    p.curveTo(x - 0.45 * r, y + 0.05 * r, x - 0.12 * r, y + 0.3 * r, x, y + 0.62 * r)
    c.drawPath(p, stroke=0, fill=1)


def _leaf(c, x, y, r):
    p = c.beginPath()
    p.moveTo(x - 0.5 * r, y - 0.5 * r)
    p.curveTo(x - 0.55 * r, y + 0.25 * r, x - 0.1 * r, y + 0.55 * r, x + 0.52 * r, y + 0.52 * r)
    p.curveTo(x + 0.55 * r, y - 0.1 * r, x + 0.25 * r, y - 0.55 * r, x - 0.5 * r, y - 0.5 * r)
    c.drawPath(p, stroke=0, fill=1)


def _bubbles(c, x, y, r):
    c.setLineWidth(0.13 * r)
    c.circle(x - 0.14 * r, y + 0.1 * r, 0.3 * r, stroke=1, fill=0)
    c.circle(x + 0.3 * r, y - 0.34 * r, 0.16 * r, stroke=1, fill=0)


def _paw(c, x, y, r):
    c.ellipse(x - 0.3 * r, y - 0.52 * r, x + 0.3 * r, y - 0.02 * r, stroke=0, fill=1)
    for dx, dy in ((-0.42, 0.08), (-0.16, 0.4), (0.16, 0.4), (0.42, 0.08)):
        c.circle(x + dx * r, y + dy * r, 0.13 * r, stroke=0, fill=1)


def _bolt(c, x, y, r):
    points = [(0.12, 0.66), (-0.36, -0.06), (-0.02, -0.06), (-0.12, -0.66), (0.36, 0.1), (0.02, 0.1)]
    _polygon(c, [(x + px * r, y + py * r) for px, py in points])


def _star(c, x, y, r):
    points = []
    for i in range(10):
        radius = 0.62 * r if i % 2 == 0 else 0.26 * r
        angle = math.pi / 2 + i * math.pi / 5
        points.append((x + radius * math.cos(angle), y + radius * math.sin(angle) - 0.04 * r))
    _polygon(c, points)


def _polygon(c, points):
    p = c.beginPath()
    p.moveTo(*points[0])
    for point in points[1:]:
        p.lineTo(*point)
    p.close()
    c.drawPath(p, stroke=0, fill=1)


GLYPHS = {"water": _drop, "flora": _leaf, "dioxygen": _bubbles, "fauna": _paw, "energy": _bolt, "joker": _star}


def token(c, config, kind: str, x: float, y: float, r: float) -> None:
    """A round token of resource `kind` (or the die) centred on (x, y), radius r mm."""
    if kind == DICE:
        return die(c, x, y, r)
    hex_value = config.resources[kind].colour
    c.saveState()
    c.setFillColor(colour(hex_value))
    c.setStrokeColor(INK)
    c.setLineWidth(0.06 * r)
    c.circle(x, y, r, stroke=1, fill=1)
    # A glyph is a shape, not text: white reads well down to a 3:1 contrast.
    glyph_ink = white if white_contrast(hex_value) >= 3 else INK
    c.setFillColor(glyph_ink)
    c.setStrokeColor(glyph_ink)
    glyph = GLYPHS.get(kind)
    if glyph:
        glyph(c, x, y, r)
    else:  # a resource added in config.toml: its initial stands in for a glyph
        text(c, kind[:1].upper(), x, y - 0.35 * r, r * 1.1, BOLD, glyph_ink, "centre")
    c.restoreState()


def die(c, x: float, y: float, r: float) -> None:
    """The bonus die: a white rounded square showing five pips."""
    c.saveState()
    c.setFillColor(white)
    c.setStrokeColor(INK)
    c.setLineWidth(0.08 * r)
    c.roundRect(x - 0.85 * r, y - 0.85 * r, 1.7 * r, 1.7 * r, 0.3 * r, stroke=1, fill=1)
    c.setFillColor(INK)
    for dx, dy in ((-0.45, -0.45), (0.45, 0.45), (0, 0), (-0.45, 0.45), (0.45, -0.45)):
        c.circle(x + dx * r, y + dy * r, 0.14 * r, stroke=0, fill=1)
    c.restoreState()


def ordered(config, amounts: dict) -> list:
    """(kind, n) pairs in config order, the die last, zeros left out."""
    kinds = [r for r in config.resources if amounts.get(r)] + ([DICE] if amounts.get(DICE) else [])
    return [(k, amounts[k]) for k in kinds]


def amounts(c, config, values: dict, x: float, y: float, r: float, size: float,
            fill=INK, draw: bool = True) -> float:
    """'5 (icon) 10 (icon)...' from (x, baseline-centre y); returns the width used.

    With draw=False only measures, so callers can centre or right-align a row.
    """
    start = x
    for kind, n in ordered(config, values):
        label = str(n)
        if draw:
            text(c, label, x, y - size * 0.35, size, BOLD, fill)
        x += stringWidth(label, BOLD, size) + 0.5 + r
        if draw:
            token(c, config, kind, x, y, r)
        x += r + GAP
    return max(0.0, x - start - GAP)


def block(c, config, values: dict, x: float, top: float, width: float, r: float, size: float,
          fill=INK, draw: bool = True) -> float:
    """Amounts wrapped onto as many lines as `width` needs, from `top`; returns the height used."""
    lines, line = [], {}
    for kind, n in ordered(config, values):
        trial = {**line, kind: n}
        if line and amounts(c, config, trial, 0, 0, r, size, draw=False) > width:
            lines.append(line)
            trial = {kind: n}
        line = trial
    lines += [line] if line else []
    step = 2 * r + 1.2
    for i, values_on_line in enumerate(lines if draw else []):
        amounts(c, config, values_on_line, x, top - r - i * step, r, size, fill)
    return len(lines) * step - 1.2 if lines else 0.0


def in_words(config, values: dict, lang: str) -> str:
    """Token amounts as words, e.g. '2 Water, 1 Flora' ('-' when empty)."""
    return ", ".join(f"{n} {short(config.resources[k].label, lang)}" for k, n in ordered(config, values)) or "-"


def describe(config, values: dict, lang: str) -> str:
    """The same amounts in words, e.g. '+1 Fauna, +2 dice' (for captions and colour-blind players)."""
    parts = []
    for kind, n in ordered(config, values):
        if kind == DICE:
            parts.append(f"+{n} {word(lang, 'dice', n)}")
        else:
            parts.append(f"+{n} {short(config.resources[kind].label, lang)}")
    return ", ".join(parts)


def block_middle(c, config, values: dict, box, r: float, size: float, centre: bool = False) -> None:
    """Amounts wrapped in `box`, centred vertically (and horizontally if `centre`)."""
    height = block(c, config, values, box.x, box.top, box.w, r, size, draw=False)
    x = box.x
    if centre and height <= 2 * r + 1e-6:
        x += (box.w - amounts(c, config, values, 0, 0, r, size, draw=False)) / 2
    block(c, config, values, x, box.top - (box.h - height) / 2, box.w, r, size)


def _basket(c, x, y, r):
    """Harvester: a basket with its handle."""
    _polygon(c, [(x - 0.85 * r, y), (x + 0.85 * r, y), (x + 0.55 * r, y - 0.75 * r), (x - 0.55 * r, y - 0.75 * r)])
    c.setLineWidth(0.16 * r)
    c.arc(x - 0.6 * r, y - 0.55 * r, x + 0.6 * r, y + 0.75 * r, 0, 180)


def _arrows(c, x, y, r):
    """Merchant: two arrows going opposite ways (an exchange)."""
    c.setLineWidth(0.18 * r)
    for dy, sign in ((0.32, 1), (-0.32, -1)):
        c.line(x - 0.7 * r * sign, y + dy * r, x + 0.45 * r * sign, y + dy * r)
        tip = x + 0.85 * r * sign
        _polygon(c, [(tip, y + dy * r), (tip - 0.42 * r * sign, y + (dy + 0.26) * r), (tip - 0.42 * r * sign, y + (dy - 0.26) * r)])


def _house(c, x, y, r):
    """Builder: a house."""
    _polygon(c, [(x - 0.9 * r, y + 0.05 * r), (x, y + 0.85 * r), (x + 0.9 * r, y + 0.05 * r)])
    c.rect(x - 0.62 * r, y - 0.8 * r, 1.24 * r, 0.85 * r, stroke=0, fill=1)
    c.setFillColor(white)
    c.rect(x - 0.18 * r, y - 0.8 * r, 0.36 * r, 0.5 * r, stroke=0, fill=1)


def _swords(c, x, y, r):
    """Pirate: two crossed swords."""
    c.setLineWidth(0.16 * r)
    for sign in (1, -1):
        c.line(x - 0.8 * r * sign, y - 0.8 * r, x + 0.75 * r * sign, y + 0.75 * r)
        gx, gy = x - 0.45 * r * sign, y - 0.45 * r
        c.line(gx - 0.25 * r, gy + 0.25 * r * sign, gx + 0.25 * r, gy - 0.25 * r * sign)


ROLE_GLYPHS = {"harvester": _basket, "merchant": _arrows, "builder": _house, "pirate": _swords}


def role_icon(c, role, x: float, y: float, r: float) -> None:
    """A role's picture centred on (x, y), in ink: read before the role's name is."""
    c.saveState()
    c.setFillColor(INK)
    c.setStrokeColor(INK)
    glyph = ROLE_GLYPHS.get(role.id) or (_swords if role.pirate else _basket if role.harvests else None)
    if glyph:
        glyph(c, x, y, r)
    else:  # a role added in config.toml: its initial
        text(c, role.id[:1].upper(), x, y - 0.35 * r * 1.6, r * 1.6, BOLD, INK, "centre")
    c.restoreState()
