"""Trias set-up map: which tile goes on which place for a seeded game (T1-T3, T21), on A4 or A3.

A table lays its physical tiles to match a game started in the app: the map is
drawn from the same `trias.new_game(players, seed)`, with the app's axial
coordinates on every place. The hex layout is pure (tested without a PDF); the
renderer only draws what it says.
"""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass

from trias.hexes import disc, label
from trias.setup import setup_events
from trias.state import CAPACITY, LANDSCAPES, POLE_KIND, rules_for

from .drawing import BOLD, FONT, GREY, INK, PT, colour, finish, ink_on, new_canvas, page, paragraph, text
from .geometry import A3, A4, LETTER, Box
from .trias_words import w

SAFE_MARGIN = 10.0  # a home printer's unprintable edge plus a cut-safe border
WATER = "water"
# Light enough for black type, different in greyscale too (a black-and-white printer
# still tells them apart, and every place also says its landscape in words).
FILL = {"mountain": "#a89888", "steppe": "#f1d98a", "woods": "#7fb36f", POLE_KIND: "#ffffff", WATER: "#cfe6f7"}
PAGES = {"a4": A4, "a3": A3, "letter": LETTER}
LEGEND_H = 50.0  # swatches and four notes at 10 pt


@dataclass(frozen=True)
class SetupMap:
    """What the map shows: each place's landscape (or water), and the tiles left in the box."""

    players: int
    seed: object
    places: dict     # (q, r) -> landscape, "pole" or "water"
    unused: tuple    # landscapes of the tiles that leave the game unseen (T3)


def setup_map(players: int, seed) -> SetupMap:
    """The board of `trias.new_game(players, seed)` as a table must lay it (T3, T21)."""
    return from_setup_event(setup_events(players, seed)[0], seed)


def from_setup_event(event: dict, seed=None) -> SetupMap:
    """The map of a game's `setup` event (a stored game's seed stays secret: it gives the deck order)."""
    places = {(q, r): kind for q, r, kind in event["tiles"]}
    for q, r in event["water"]:
        places[(q, r)] = WATER  # T3: the water tiles' places stay water all game
    return SetupMap(event["players"], seed, places, tuple(event["unused"]))


def hex_layout(places, box: Box) -> tuple:
    """(corner radius, {place: centre}) of pointy-top hexes filling `box`, centred, r growing downwards.

    Pointy-top with r downwards is Red Blob Games' usual axial layout, the one
    a screen draws; the page's y grows upwards, hence the minus sign.
    """
    unit = {p: (math.sqrt(3) * (p[0] + p[1] / 2), -1.5 * p[1]) for p in places}
    xs, ys = [u[0] for u in unit.values()], [u[1] for u in unit.values()]
    width = max(xs) - min(xs) + math.sqrt(3)  # plus one hex's width
    height = max(ys) - min(ys) + 2  # plus one hex's height
    size = min(box.w / width, box.h / height)
    cx = box.x + box.w / 2 - size * (max(xs) + min(xs)) / 2
    cy = box.y + box.h / 2 - size * (max(ys) + min(ys)) / 2
    return size, {p: (cx + size * x, cy + size * y) for p, (x, y) in unit.items()}


def corners(centre: tuple, size: float) -> list:
    """The six corners of a pointy-top hex."""
    x, y = centre
    return [(x + size * math.cos(math.radians(60 * i + 30)), y + size * math.sin(math.radians(60 * i + 30)))
            for i in range(6)]


def map_places(players: int) -> list:
    """Every place the set-up uses: rings 0-3 (rings 0-2 with two players, T21)."""
    return disc(2 if players == 2 else 3)


def _hexagon(c, centre: tuple, size: float, fill, stroke, dashed: bool = False) -> None:
    path = c.beginPath()
    pts = corners(centre, size)
    path.moveTo(*pts[0])
    for pt in pts[1:]:
        path.lineTo(*pt)
    path.close()
    c.saveState()
    if dashed:
        c.setDash(1.5, 1)
    c.setFillColor(fill)
    c.setStrokeColor(stroke)
    c.setLineWidth(0.5)
    c.drawPath(path, stroke=1, fill=1)
    c.restoreState()


def _place(c, kind: str, place: tuple, centre: tuple, size: float, lang: str) -> None:
    """One place: its colour, its landscape in words, its capacity as herd squares, its coordinates."""
    fill = FILL[kind]
    _hexagon(c, centre, size * 0.97, colour(fill), GREY if kind == WATER else INK, dashed=kind == WATER)
    ink = ink_on(fill)
    x, y = centre
    inner = size * math.sqrt(3) * 0.85  # width a line may use inside the hex
    big = min(18 * PT, size * 0.3)
    text(c, w(lang, kind), x, y + size * 0.12, big, BOLD, ink, "centre", width=inner)
    small = max(8 * PT, min(14 * PT, size * 0.22))
    text(c, label(place), x, y - size * 0.62, small, FONT, ink, "centre", width=inner)
    if kind in CAPACITY:
        cube, gap = size * 0.14, size * 0.06
        n = CAPACITY[kind]
        left = x - (n * cube + (n - 1) * gap) / 2
        c.setFillColor(ink)
        for i in range(n):  # the capacity drawn as herd cubes: readable without knowing the number
            c.rect(left + i * (cube + gap), y - size * 0.3, cube, cube, stroke=0, fill=1)


def _legend(c, setup: SetupMap, box: Box, lang: str) -> None:
    """Swatches with landscape, count and capacity; what stays in the box; how to lay the tiles."""
    counts = Counter(setup.places.values())
    kinds = [k for k in (*LANDSCAPES, POLE_KIND, WATER) if counts[k]]
    cell_w = box.w / len(kinds)
    for i, kind in enumerate(kinds):
        x = box.x + i * cell_w
        _hexagon(c, (x + 5, box.top - 6), 5, colour(FILL[kind]), GREY if kind == WATER else INK, kind == WATER)
        text(c, w(lang, kind), x + 11.5, box.top - 4, 10 * PT, BOLD, width=cell_w - 12)
        text(c, w(lang, "tiles_1" if counts[kind] == 1 else "tiles_n", n=counts[kind]), x + 11.5, box.top - 8, 8.5 * PT, FONT, INK, width=cell_w - 12)
        if kind in CAPACITY:
            text(c, w(lang, "herds_cap", n=CAPACITY[kind]), x + 11.5, box.top - 11.5, 8.5 * PT, FONT, INK,
                 width=cell_w - 12)
    notes = []
    if setup.unused:
        left = Counter(setup.unused)
        tiles = ", ".join(f"{n} × {w(lang, k).lower()}" for k, n in sorted(left.items()))
        notes.append(w(lang, "left_out", tiles=tiles))
    notes.append(w(lang, "water_note") if counts[WATER] else w(lang, "no_water"))
    notes.append(w(lang, "steps"))
    notes.append(w(lang, "herds_note", herds=rules_for(setup.players).herds))
    y = box.top - 16
    for note in notes:
        y -= paragraph(c, note, Box(box.x, box.y, box.w, y - box.y), 10 * PT, smallest=8 * PT) + 1.5


def draw_setup(c, setup: SetupMap, size: tuple, lang: str, game: str | None = None) -> None:
    """The whole sheet: title, the board as big as the page allows, the legend right under it."""
    content = Box(0, 0, *size).inset(SAFE_MARGIN)
    text(c, w(lang, "setup_title"), content.x, content.top - 6, 18 * PT, BOLD)
    subtitle = (w(lang, "setup_game_id", game=game, players=setup.players) if game
                else w(lang, "setup_game", players=setup.players, seed=setup.seed))
    text(c, subtitle, content.right, content.top - 6, 11 * PT, FONT, GREY, "right", width=content.w / 2)
    board = Box(content.x, content.y + LEGEND_H, content.w, content.h - LEGEND_H - 10)
    places = map_places(setup.players)
    radius, centres = hex_layout(places, board)
    for place in places:
        _place(c, setup.places.get(place, WATER), place, centres[place], radius, lang)
    bottom = min(y for _, y in centres.values()) - radius  # the legend follows the map, not the page's foot
    _legend(c, setup, Box(content.x, content.y, content.w, bottom - 4 - content.y), lang)


def render_setup(players: int | None = None, seed=None, lang: str = "fr", paper: str = "a4",
                 game: str | None = None, event: dict | None = None) -> bytes:
    """The set-up map as a one-page PDF (paper a4 or a3): of new_game(players, seed), or of a stored
    game's `setup` event (then titled with the game's id, never its seed)."""
    if paper not in PAGES:
        raise ValueError(f"paper must be a4, a3 or letter, not {paper!r}")
    setup = from_setup_event(event) if event is not None else setup_map(players, seed)
    c, buf = new_canvas(w(lang, "setup_title"))
    with page(c, PAGES[paper]):
        draw_setup(c, setup, PAGES[paper], lang, game)
    return finish(c, buf)
