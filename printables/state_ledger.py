"""Continuation ledgers: one landscape page per team that starts from a game state.

The starting row holds the team's stock and reputation at that state, the header its
buildings, animals, harvest and waiting cards, so the bankers go on from where the
machine stopped. Each move is written as the lead will type it back (the admin page's
batch form, bank/web/field/paper_syntax.py), not as a total, on a numbered row under the
sheet's id (its entry, the team's letter and the game's check, bank/game/paper_sheet.py): the lead
types both back, so a line sent again from any device books once, and a ledger of another game (a
rehearsal's) is refused.
`render_takeover` is the file the bank writes to disk by itself: the state sheet, then these.
"""

from __future__ import annotations

from bank.game.paper_sheet import sheet_id

from . import geometry as geo
from .drawing import BOLD, FONT, GREY, INK, PT, colour, finish, ink_on, new_canvas, page, paragraph, text
from .geometry import Box
from .labels import check_language, name, short
from .ruled_rows import LedgerGrid, draw_heads, draw_pair_heads, number_rows, rule_rows, shade_start_row, sheet_tag
from .state_sheet import SMALL, _team_lines, draw_state, printed_words
from .state_syntax import examples, forms
from .state_words import w

MARGIN = 10.0
ROW_H = 6.8
# The moves shown above each ledger's table, in the game's own names (state_syntax.FORMS).
EXAMPLE_FORMS = ("harvest", "build", "raise_tracks", "trade", "fight")
EXAMPLES_WORD = {"fr": "Exemples", "en": "Examples"}


def examples_line(config, lang: str, team: int = 0) -> str:
    """'Exemples : Verts récolte Eau 2 · ...': one of each common move, as this game's names write it, of the
    team at index `team` (its ledger's)."""
    chosen, seen = [], set()
    for line, (_, _, kind) in zip(examples(config, lang, team), forms(config, team)):
        if kind in EXAMPLE_FORMS and kind not in seen:
            seen.add(kind)
            chosen.append(line)
    sep = "\u00a0: " if lang == "fr" else ": "
    return f"{EXAMPLES_WORD[lang]}{sep}{' · '.join(chosen)}"


def render_ledgers(snap: dict, config, lang: str | None = None, paper: str = "a4") -> bytes:
    """One continuation ledger per team, landscape, on A4 or Letter."""
    lang = check_language(lang or config.language)
    c, buf = new_canvas(w(lang, "ledger"))
    draw_ledgers(c, snap, config, lang, geo.landscape(geo.paper_size(paper)))
    return finish(c, buf)


def render_takeover(snap: dict, config, lang: str | None = None, paper: str = "a4") -> bytes:
    """What paper needs to take over: the state sheet, then each team's continuation ledger."""
    lang = check_language(lang or config.language)
    c, buf = new_canvas(w(lang, "title"))
    draw_state(c, snap, config, lang, geo.paper_size(paper))
    draw_ledgers(c, snap, config, lang, geo.landscape(geo.paper_size(paper)))
    return finish(c, buf)


def draw_ledgers(c, snap: dict, config, lang: str, size: tuple) -> None:
    for index, team in enumerate(snap["teams"]):
        with page(c, size):
            _ledger(c, snap, team, config, lang, size, sheet_id(snap["seq"], index, snap.get("game")), index)


def _ledger(c, snap: dict, team: dict, config, lang: str, size: tuple, sheet: str, index: int) -> None:
    top, width, x0 = size[1] - MARGIN, size[0] - 2 * MARGIN, MARGIN
    printed = printed_words(snap, lang)
    c.setFillColor(colour(team["colour"]))
    c.rect(x0, top - 10, width, 10, stroke=0, fill=1)
    ink = ink_on(team["colour"])
    tag = sheet_tag(c, sheet, (w(lang, "sheet"), w(lang, "copy")), x0 + width, top, 10)
    text(c, f"{w(lang, 'ledger')} · {name(team['label'], lang)}", x0 + 3, top - 7.2, 14 * PT, BOLD, ink, width=(tag - x0) * 0.62)
    text(c, w(lang, "from", seq=printed["seq"], time=printed["time"]), tag - 3, top - 6.8, 10 * PT, BOLD, ink,
         "right", width=(tag - x0) * 0.34)
    y = top - 11.5
    for line in _team_lines(team, config, lang):
        y -= paragraph(c, line, Box(x0, y - 4.6, width, 4.6), 9 * PT, smallest=SMALL) + 0.2
    y -= 0.8
    example = examples(config, lang, index)[0]  # the ledger's own team: its lines name it
    y -= paragraph(c, w(lang, "ledger_help", example=example, sheet=sheet), Box(x0, y - 12, width, 12), 9 * PT,
                   smallest=SMALL) + 0.5
    y -= paragraph(c, examples_line(config, lang, index), Box(x0, y - 8.5, width, 8.5), 9 * PT, FONT, GREY, smallest=SMALL) + 1.5
    _table(c, snap, team, config, lang, x0, y, width, sheet)


def _table(c, snap, team, config, lang, x0, y0, width, sheet) -> None:
    kinds = [(short(r.label, lang), r.id) for r in config.resources.values()] + [(w(lang, "rep"), None)]
    pair = 2 * 10.0  # a 3-digit total fits; the move column gets the room a written move needs
    no_w, time_w, who_w = 8.0, 13.0, 16.0
    move_w = width - no_w - time_w - who_w - pair * len(kinds)
    heads = [(w(lang, "no"), no_w), (w(lang, "time"), time_w), (w(lang, "move"), move_w)] + \
        [(label, pair) for label, _ in kinds] + [(w(lang, "who"), who_w)]
    xs, right = draw_heads(c, heads, x0, y0)
    start_y = y0 - ROW_H - ROW_H  # the grid's start_y, needed first to count the rows
    rows = int((start_y - ROW_H - MARGIN - 6) // ROW_H)  # as many rows as the sheet holds above the carry-over line
    grid = LedgerGrid(xs, right, y0, ROW_H, pair, len(kinds), rows)
    draw_pair_heads(c, grid, w(lang, "pm"), w(lang, "total"), drop=4.6)
    shade_start_row(c, grid)
    text(c, snap_time(snap, lang), xs[1] + time_w / 2, start_y - 4.7, 9 * PT, BOLD, INK, "centre")
    text(c, w(lang, "start", seq=snap["seq"]), xs[2] + 1.5, start_y - 4.7, 9 * PT, BOLD, width=move_w - 3)
    for i, (_, kind) in enumerate(kinds):
        value = team["reputation"] if kind is None else team["stock"].get(kind, 0)
        text(c, str(value), grid.count_x(i) + 3 * pair / 4, start_y - 4.8, 11 * PT, BOLD, INK, "centre")
    rule_rows(c, grid)
    number_rows(c, grid)
    bottom = grid.bottom
    text(c, w(lang, "carry", sheet=sheet), x0, bottom - 4.5, 9 * PT, FONT, INK, width=right - x0)


def snap_time(snap: dict, lang: str) -> str:
    return printed_words(snap, lang)["time"]
