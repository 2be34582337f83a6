"""The shared boards at the bank: the three tracks and the animals, on A3 or two A4 (or Letter) halves."""

from __future__ import annotations

from reportlab.lib.colors import white

from . import geometry as geo
from .boards import header
from .drawing import (BOLD, FONT, GREY, INK, LIGHT, PT, colour, dashed_box, finish, new_canvas,
                      page, paragraph, text)
from .geometry import A3, A4, Box
from .icons import DICE, block, block_middle, describe, token
from .labels import name, short, t

BIG = geo.landscape(A3)
AREA = Box(12, 12, BIG[0] - 24, BIG[1] - 24)
DARK = "#2d3a45"
LABEL_W = 74.0
TAB_ROOM = 36.0  # title bar (16 mm) + the unlock tab over its one column (18 mm) + 2 mm air


def draw_tracks(c, config, lang: str) -> None:
    """Each track's levels with their bonus icons, and the level that unlocks animals (R24-R27)."""
    header(c, Box(AREA.x, AREA.top - 16, AREA.w, 16), DARK, t(lang, "tracks_title"),
           t(lang, "unlock_short", n=config.animal_unlock_level))
    tracks = list(config.tracks.values())
    body = Box(AREA.x, AREA.y + 16, AREA.w, AREA.h - 16 - TAB_ROOM)  # under the title bar, room for the unlock tab
    rows = geo.stack(body, [None] * len(tracks), gap=5)
    longest = max(tr.length for tr in tracks)
    for track, row in zip(tracks, rows):
        _track_row(c, config, track, row, longest, lang)
    _unlock_marker(c, config, rows, longest, lang)
    _legend(c, config, Box(AREA.x, AREA.y, AREA.w, 12), lang)


def _level_cells(row: Box, longest: int) -> list:
    """Boxes for levels 0..longest along a track row, after its label."""
    return geo.columns(Box(row.x + LABEL_W, row.y, row.w - LABEL_W, row.h), longest + 1, 1.6)


def _track_row(c, config, track, row: Box, longest: int, lang: str) -> None:
    """A track's name, step price and one cell per level."""
    res = config.resources[track.resource]
    token(c, config, track.resource, row.x + 9, row.top - 10, 8)
    text(c, name(track.label, lang), row.x + 20, row.top - 12.5, 20 * PT, BOLD, width=LABEL_W - 22)
    step = t(lang, "step", n=track.step_cost, res=short(res.label, lang), rep=track.reputation_per_step)
    paragraph(c, step, Box(row.x, row.y, LABEL_W - 6, row.h - 24), 15 * PT, FONT, INK)
    for level, cell in enumerate(_level_cells(row, longest)[:track.length + 1]):
        c.setFillColor(white if level else LIGHT)
        c.setStrokeColor(colour(res.colour))
        c.setLineWidth(0.8)
        c.roundRect(cell.x, cell.y, cell.w, cell.h, 2.5, stroke=1, fill=1)
        label = str(level) if level else t(lang, "start")
        text(c, label, cell.x + 2, cell.top - 8, (20 if level else 11) * PT, BOLD, INK, width=cell.w - 4)
        bonus = track.icons.get(level)
        if bonus:
            block_middle(c, config, bonus, Box(cell.x + 1, cell.y + 7, cell.w - 2, cell.h - 18), 6.5, 20 * PT, centre=True)
            text(c, describe(config, bonus, lang), cell.x + cell.w / 2, cell.y + 3, 10 * PT, BOLD, INK, "centre",
                 width=cell.w - 2)


def _unlock_marker(c, config, rows: list, longest: int, lang: str) -> None:
    """A frame around the unlock level on every track, with a flag that says why (R26)."""
    level = config.animal_unlock_level
    if not 0 <= level <= longest:
        return
    cell = _level_cells(rows[0], longest)[level]
    frame = Box(cell.x - 1.2, rows[-1].y - 1.2, cell.w + 2.4, rows[0].top - rows[-1].y + 2.4)
    c.setStrokeColor(colour(DARK))
    c.setLineWidth(1.4)
    c.roundRect(frame.x, frame.y, frame.w, frame.h, 3, stroke=1, fill=0)
    # The tab is exactly as wide as the framed column, its words wrapped inside it: a wider strip read as
    # covering the levels it ran over (levels 4-7 on the review's board).
    flag = Box(frame.x, frame.top, frame.w, TAB_ROOM - 16 - 2 - (frame.top - rows[0].top))
    c.setFillColor(colour(DARK))
    c.roundRect(flag.x, flag.y, flag.w, flag.h, 3, stroke=0, fill=1)
    c.rect(flag.x, flag.y, flag.w, 3, stroke=0, fill=1)  # square where it sits on the frame
    paragraph(c, t(lang, "unlock"), Box(flag.x + 1.5, flag.y + 0.8, flag.w - 3, flag.h - 1.6), 9 * PT, BOLD, white,
              align="centre", middle=True)


def _legend(c, config, box: Box, lang: str) -> None:
    """What each icon means, along the bottom."""
    kinds = [*config.resources, DICE]
    for kind, cell in zip(kinds, geo.columns(box, len(kinds), 4)):
        token(c, config, kind, cell.x + 6, cell.y + cell.h / 2, 4.5)
        label = t(lang, "dice") if kind == DICE else short(config.resources[kind].label, lang)
        text(c, label, cell.x + 13, cell.y + cell.h / 2 - 1.5, 12 * PT, BOLD, INK, width=cell.w - 14)


def draw_animals(c, config, lang: str) -> None:
    """Each common animal with a slot per team, each unique animal with one slot (R28-R30)."""
    header(c, Box(AREA.x, AREA.top - 16, AREA.w, 16), DARK, t(lang, "animals_title"),
           t(lang, "unlock_short", n=config.animal_unlock_level))
    text(c, t(lang, "slot_hint"), AREA.x, AREA.top - 22, 11 * PT, FONT, GREY, width=AREA.w)
    common = [a for a in config.animals.values() if a.kind == "common"]
    unique = [a for a in config.animals.values() if a.kind != "common"]
    top_half, bottom_half = geo.stack(Box(AREA.x, AREA.y, AREA.w, AREA.h - 25), [None, None], gap=6)
    _animal_row(c, config, common, top_half, t(lang, "common"), list(config.teams), lang)
    _animal_row(c, config, unique, bottom_half, t(lang, "unique"), [None], lang)


def _animal_row(c, config, animals: list, box: Box, title: str, owners: list, lang: str) -> None:
    """A titled row of animal tiles."""
    text(c, title, box.x, box.top - 6, 15 * PT, BOLD)
    if not animals:
        return
    tiles = geo.columns(Box(box.x, box.y, box.w, box.h - 9), len(animals), 5)
    for animal, tile in zip(animals, tiles):
        _animal_tile(c, config, animal, tile, owners, lang)


def _animal_tile(c, config, animal, tile: Box, owners: list, lang: str) -> None:
    """Name, cost, reputation, and a slot per possible owner (a team colour, or open)."""
    c.setFillColor(LIGHT)
    c.setStrokeColor(INK)
    c.setLineWidth(0.4)
    c.roundRect(tile.x, tile.y, tile.w, tile.h, 3, stroke=1, fill=1)
    text(c, name(animal.label, lang), tile.x + 4, tile.top - 10, 20 * PT, BOLD, width=tile.w - 28)
    text(c, f"+{animal.reputation}", tile.right - 4, tile.top - 10, 20 * PT, BOLD, INK, "right")
    used = block(c, config, animal.cost, tile.x + 4, tile.top - 14, tile.w - 8, 5, 16 * PT)
    slots = Box(tile.x + 3, tile.y + 3, tile.w - 6, tile.top - 18 - used - tile.y - 3)
    for owner, cell in zip(owners, geo.columns(slots, len(owners), 2)):
        r = min(cell.w / 2 - 1, cell.h / 2 - 5, 16)
        cx, cy = cell.x + cell.w / 2, cell.y + cell.h / 2 + 3
        c.setFillColor(white)
        c.setStrokeColor(colour(config.teams[owner].colour) if owner else INK)
        c.setLineWidth(1.6 if owner else 0.6)
        if not owner:
            c.setDash(2, 1.5)
        c.circle(cx, cy, r, stroke=1, fill=1)
        c.setDash()
        if owner:  # a thin dark rim keeps a pale team colour (white, yellow) visible on the tile
            c.setStrokeColor(INK)
            c.setLineWidth(0.2)
            c.circle(cx, cy, r + 0.9, stroke=1, fill=0)
            # Under the disc, on two lines if it must (a 30-letter name on one line fell to 4 pt), never under 8 pt
            # on the A4 halves either (they print the A3 board at 92.5 %).
            below = Box(cell.x, cell.y, cell.w, cy - r - 1.5 - cell.y)
            paragraph(c, name(config.teams[owner].label, lang), below, 11 * PT, BOLD, INK, smallest=HALF_SAFE,
                      leading=1.05, align="centre")


HALF_SAFE = 8.75 * PT  # 8 pt once the A3 board is printed as two A4 halves


def on_halves(c, draw, lang: str, small: tuple = A4, big: tuple = BIG) -> None:
    """Draw a big board as two pages of `small` paper to glue together along a marked strip."""
    for tile in geo.halves(big, small):
        with page(c, small):
            c.saveState()
            clip = c.beginPath()
            clip.rect(tile.clip.x, tile.clip.y, tile.clip.w, tile.clip.h)
            c.clipPath(clip, stroke=0, fill=0)
            c.translate(tile.dx, tile.dy)
            c.scale(tile.scale, tile.scale)
            draw()
            c.restoreState()
            dashed_box(c, tile.overlap)
            # Inside the page and away from the glue strip: which half this is and which goes on top.
            text(c, t(lang, f"half_{tile.index + 1}"), small[0] / 2, tile.clip.y - 4.5, 8.5 * PT, BOLD, INK, "centre",
                 width=small[0] - 2 * geo.MARGIN)


def render_common(config, lang: str | None = None, halves: bool = False, paper: str = "a4") -> bytes:
    """The tracks board and the animals board: A3 landscape, or each as two halves on `paper` (A4, Letter)."""
    lang = lang or config.language
    c, buf = new_canvas(f"{name(config.title, lang)} - common boards")
    for draw in (draw_tracks, draw_animals):
        if halves:
            on_halves(c, lambda d=draw: d(c, config, lang), lang, geo.paper_size(paper))
        else:
            with page(c, BIG):
                draw(c, config, lang)
    return finish(c, buf)
