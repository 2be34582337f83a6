"""Team boards on A4: board 1 (track bonuses, resources, buildings), board 2 (animals).

One pair per team in its colour, and one for the bank desk in grey.
"""

from __future__ import annotations

from reportlab.lib.colors import white

from . import geometry as geo
from .drawing import (BOLD, FONT, INK, LIGHT, PT, colour, dashed_box, finish, ink_on,
                      new_canvas, page, paragraph, rounded, text)
from .geometry import A4, Box
from .icons import block_middle, describe, token
from .labels import name, short, t, typo, word

BANK_COLOUR = "#55606b"
CONTENT = Box(10, 10, A4[0] - 20, A4[1] - 20)
BUILDING_COLUMNS = (9, 34, 55, 24, 50, 18)  # tick, name, cost, needs, effect, reputation
ANIMAL_COLUMNS = (9, 40, 24, 93, 24)        # tick, name, kind, cost, reputation


def effects(config, building, lang: str) -> list:
    """A building's permanent effects as short phrases (R12, R13, R21, R22)."""
    found = []
    if building.cap_exempt:
        found.append(t(lang, "eff_cap_exempt"))
    if building.lifts_cap:
        found.append(t(lang, "eff_lifts_cap"))
    for res, n in building.harvest_multiplier.items():
        key = {2: "eff_double", 3: "eff_triple"}.get(n, "eff_times")
        found.append(t(lang, key, res=short(config.resources[res].label, lang), n=n))
    what = f" {t(lang, 'and')} ".join(t(lang, f"what_{k}") for k in building.discount_applies_to)
    for res, n in building.discount.items():
        found.append(t(lang, "eff_discount", n=n, res=short(config.resources[res].label, lang), what=what))
    for key, n in (("eff_dice_harvest", building.dice_per_harvested_token), ("eff_dice_build", building.dice_on_build)):
        if n:
            found.append(t(lang, key, n=n, dice=word(lang, "dice", n)))
    return found


def requirements(config, building, lang: str) -> str:
    """What a team must own before it may build (R21)."""
    needs = [name(config.buildings[b].label, lang) for b in building.requires_buildings]
    if building.requires_animals:
        needs.append(t(lang, "animals_needed", n=building.requires_animals))
    return ", ".join(needs) or "-"


def header(c, box: Box, hex_value: str, title: str, subtitle: str) -> None:
    """A coloured band with the owner's name and what the board is."""
    ink = ink_on(hex_value)
    rounded(c, box, 3, fill=colour(hex_value))
    text(c, title, box.x + 5, box.top - 8.5, 18 * PT, BOLD, ink, width=box.w / 2)
    text(c, subtitle, box.right - 5, box.top - 8.5, 10 * PT, FONT, ink, "right", width=box.w / 2 - 10)


def section(c, title: str, x: float, top: float, width: float, hint: str = "") -> float:
    """A section title with a rule under it; returns the y below it."""
    text(c, title, x, top - 5, 12 * PT, BOLD)
    if hint:
        text(c, hint, x + width, top - 5, 9 * PT, FONT, INK, "right", width=width * 0.6)
    c.setStrokeColor(INK)
    c.setLineWidth(0.3)
    c.line(x, top - 6.5, x + width, top - 6.5)
    return top - 8


def _owner(config, team_id, lang: str) -> tuple:
    """(colour, title) of a board's owner: a team, or the bank when team_id is None."""
    if team_id is None:
        return BANK_COLOUR, t(lang, "bank_copy")
    team = config.teams[team_id]
    return team.colour, name(team.label, lang)


def _track_bonuses(c, config, top: float, lang: str, area: Box = CONTENT) -> float:
    """Per track: its step price and the bonus at each level with an icon (R24, R25)."""
    y = section(c, t(lang, "board_bonuses"), area.x, top, area.w, t(lang, "bonus_hint"))
    for track in config.tracks.values():
        row = Box(area.x, y - 21, area.w, 20)
        token(c, config, track.resource, row.x + 4, row.top - 5, 3.5)
        text(c, name(track.label, lang), row.x + 10, row.top - 6.5, 11 * PT, BOLD, width=44)
        step = t(lang, "step", n=track.step_cost, res=short(config.resources[track.resource].label, lang),
                 rep=track.reputation_per_step)
        paragraph(c, step, Box(row.x, row.y, 53, row.h - 10), 9 * PT, FONT, INK, smallest=8 * PT)
        levels = sorted(track.icons)
        for level, cell in zip(levels, geo.columns(Box(row.x + 56, row.y, row.w - 56, row.h), len(levels), 1.5)):
            _bonus_cell(c, config, track.icons[level], level, cell, lang)
        y = row.y - 1.5
    text(c, t(lang, "unlock_short", n=config.animal_unlock_level), area.x, y - 3.8, 9 * PT, BOLD)
    return y - 6.5


def _bonus_cell(c, config, values: dict, level: int, cell: Box, lang: str) -> None:
    """One level's bonus: level number, icons, and the same in words."""
    rounded(c, cell, 1.5, fill=LIGHT)
    text(c, f"{t(lang, 'level')} {level}", cell.x + 1.2, cell.top - 3.3, 8 * PT, BOLD, INK, width=cell.w - 2)
    block_middle(c, config, values, Box(cell.x + 1, cell.y + 7.5, cell.w - 2, cell.h - 11.5), 3, 11 * PT, centre=True)
    paragraph(c, describe(config, values, lang), Box(cell.x + 0.5, cell.y + 0.3, cell.w - 1, 7), 8 * PT, FONT, INK,
              smallest=8 * PT, leading=1.1, align="centre")


def _resources(c, config, team_id, top: float, lang: str, area: Box = CONTENT) -> float:
    """A place on the board for each kind of token the team keeps (R5, R6)."""
    y = section(c, t(lang, "board_resources"), area.x, top, area.w)
    kinds = list(config.resources.values())
    own = config.teams[team_id].resource if team_id else None
    for res, cell in zip(kinds, geo.columns(Box(area.x, y - 33, area.w, 32), len(kinds), 3)):
        cx, cy = cell.x + cell.w / 2, cell.top - 11
        c.setStrokeColor(colour(res.colour))
        c.setLineWidth(1.2)
        c.setDash(2, 1.2)
        c.circle(cx, cy, 10, stroke=1, fill=0)
        c.setDash()
        token(c, config, res.id, cx, cy, 4)
        text(c, short(res.label, lang), cx, cell.y + 6, 9 * PT, BOLD, INK, "centre", width=cell.w)
        note = t(lang, "joker_note", n=config.points_per_joker) if res.joker else \
            t(lang, "your_colour") if res.id == own else ""
        if note:
            paragraph(c, note, Box(cell.x, cell.y - 5, cell.w, 8), 8 * PT, FONT, INK, align="centre",
                      smallest=8 * PT, leading=1.1)
    return y - 40


def _buildings(c, config, top: float, lang: str, area: Box = CONTENT) -> None:
    """The building tracker: tick box, cost, needs, effects, reputation (R21-R23)."""
    y = section(c, t(lang, "board_buildings"), area.x, top, area.w, t(lang, "cap", n=config.building_cap))
    heads = ("", t(lang, "board_buildings"), t(lang, "cost"), t(lang, "requires"), t(lang, "effect"), t(lang, "reputation"))
    cols = _cells(Box(area.x, y - 5, area.w, 5), BUILDING_COLUMNS)
    for head, cell in zip(heads, cols):
        text(c, head, cell.x + 1, cell.y + 1.5, 8 * PT, BOLD, INK, width=cell.w - 2)
    items = list(config.buildings.values())
    row_h = min(24.0, (y - 5 - area.y) / max(1, len(items)))
    for i, b in enumerate(items):
        row = Box(area.x, y - 5 - (i + 1) * row_h, area.w, row_h)
        tick, label, cost, needs, effect, rep = _cells(row, BUILDING_COLUMNS)
        _row_background(c, row, i)
        _tick(c, tick)
        paragraph(c, name(b.label, lang), label.inset(1), 12 * PT, BOLD, middle=True)
        block_middle(c, config, b.cost, cost.inset(1), 2.8, 11 * PT)
        paragraph(c, requirements(config, b, lang), needs.inset(1), 9 * PT, middle=True, smallest=8 * PT)
        paragraph(c, typo(lang, " ; ".join(effects(config, b, lang))) or "-", effect.inset(1), 9 * PT, middle=True,
                  smallest=8 * PT)
        text(c, f"+{b.reputation}", rep.x + rep.w / 2, row.y + row.h / 2 - 2, 16 * PT, BOLD, INK, "centre")


def _cells(row: Box, widths: tuple) -> list:
    """Boxes of a table row, with the given column widths (mm)."""
    cells, x = [], row.x
    for w in widths:
        cells.append(Box(x, row.y, w, row.h))
        x += w
    return cells


def _tick(c, cell: Box) -> None:
    """A box to tick, centred in its cell."""
    dashed_box(c, Box(cell.x + cell.w / 2 - 3, cell.y + cell.h / 2 - 3, 6, 6), INK)


def _row_background(c, row: Box, i: int) -> None:
    """Alternate light rows so a long line stays easy to follow."""
    if i % 2 == 0:
        c.setFillColor(LIGHT)
        c.rect(row.x, row.y, row.w, row.h, stroke=0, fill=1)


def draw_board_1(c, config, team_id, lang: str, area: Box = CONTENT) -> None:
    """Board 1: track bonuses, resources, buildings."""
    hex_value, title = _owner(config, team_id, lang)
    header(c, Box(area.x, area.top - 13, area.w, 13), hex_value, title, t(lang, "board_1"))
    y = _track_bonuses(c, config, area.top - 16, lang, area)
    y = _resources(c, config, team_id, y, lang, area)
    _buildings(c, config, y, lang, area)


def draw_board_2(c, config, team_id, lang: str, area: Box = CONTENT) -> None:
    """Board 2: every animal with its kind, cost and reputation (R28-R30)."""
    hex_value, title = _owner(config, team_id, lang)
    header(c, Box(area.x, area.top - 13, area.w, 13), hex_value, title, t(lang, "board_2"))
    y = section(c, t(lang, "board_animals"), area.x, area.top - 16, area.w,
                t(lang, "unlock_short", n=config.animal_unlock_level))
    text(c, t(lang, "discounts_apply"), area.x, y - 3.5, 9 * PT, FONT, INK)
    heads = ("", t(lang, "board_animals"), t(lang, "kind"), t(lang, "cost"), t(lang, "reputation"))
    for head, cell in zip(heads, _cells(Box(area.x, y - 10, area.w, 5), ANIMAL_COLUMNS)):
        text(c, head, cell.x + 1, cell.y + 1.5, 8 * PT, BOLD, INK, width=cell.w - 2)
    items = list(config.animals.values())
    row_h = min(25.0, (y - 10 - area.y - 13) / max(1, len(items)))
    for i, a in enumerate(items):
        row = Box(area.x, y - 10 - (i + 1) * row_h, area.w, row_h)
        tick, label, kind, cost, rep = _cells(row, ANIMAL_COLUMNS)
        _row_background(c, row, i)
        middle = row.y + row.h / 2
        _tick(c, tick)
        paragraph(c, name(a.label, lang), label.inset(1), 16 * PT, BOLD, middle=True)
        text(c, t(lang, f"kind_{a.kind}"), kind.x + 1, middle - 1.3, 11 * PT, FONT, INK, width=kind.w - 2)
        block_middle(c, config, a.cost, cost.inset(1), 4, 14 * PT)
        text(c, f"+{a.reputation}", rep.x + rep.w / 2, middle - 2.2, 18 * PT, BOLD, INK, "centre")
    goal = t(lang, "end_goal", minutes=config.duration_seconds // 60, rep=config.reputation_threshold,
             animals=config.animals_threshold)
    box = Box(area.x, area.y, area.w, 11)
    rounded(c, box, 2, fill=white, stroke=INK)
    paragraph(c, goal, box.inset(1.5), 10 * PT, BOLD, smallest=8 * PT, middle=True)


def content(size: tuple) -> Box:
    """The boards' area on a sheet: CONTENT's width, centred, 10 mm from top and bottom."""
    return Box((size[0] - CONTENT.w) / 2, 10, CONTENT.w, size[1] - 20)


def render_team_boards(config, lang: str | None = None, paper: str = "a4") -> bytes:
    """Both team boards for every team, then the bank's pair, as one A4 (or Letter) PDF."""
    lang = lang or config.language
    size = geo.paper_size(paper)
    area = content(size)
    c, buf = new_canvas(f"{name(config.title, lang)} - team boards")
    for team_id in [*config.teams, None]:
        with page(c, size):
            draw_board_1(c, config, team_id, lang, area)
        with page(c, size):
            draw_board_2(c, config, team_id, lang, area)
    return finish(c, buf)
