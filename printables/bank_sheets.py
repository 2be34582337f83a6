"""Bank sheets: the facilitators' rules summary, and a paper ledger per team.

The summary says every rule and number the bank applies (from config.toml, see
rule_lines.py), so the game can go on if the bank machine dies; the ledger is
where the facilitators then keep booking, and type it in later (inventory counts).
"""

from __future__ import annotations

from bank.game.paper_sheet import sheet_id

from . import geometry as geo
from .drawing import BOLD, FONT, GREY, INK, PT, colour, finish, ink_on, new_canvas, paragraph, text, wrap
from .geometry import A4, MM, Box
from .labels import check_language, name, short, typo
from .rule_lines import sections
from .ruled_rows import LedgerGrid, draw_heads, draw_pair_heads, number_rows, rule_rows, shade_start_row, sheet_tag

MARGIN = 10.0
LEDGER_ROWS = 20
SIZE = 9 * PT

WORDS = {
    "fr": {"title": "Banque : aide-mémoire", "page": "page {n}", "ledger": "Registre papier",
           "ledger_help": "Si la banque informatique s'arrête : une ligne numérotée par mouvement, + reçu ou - payé, "
                          "et le nouveau total à côté. Au retour de la banque, saisissez « feuille {sheet} » puis les "
                          "lignes avec leur numéro, ou les totaux (inventaire).",
           "sheet": "Feuille", "copy": "copie", "no": "N°", "time": "Heure", "what": "Quoi", "rep": "Réputation", "who": "Visa", "start": "Stock de départ",
           "move": "±", "total": "total", "carry": "Page pleine ou nouvelle panne : une autre copie de cette "
                                                   "feuille, les totaux de départ sur sa ligne « Stock de départ », "
                                                   "2, puis 3, dans sa case « copie » : elle se saisit « feuille {sheet}/2 »."},
    "en": {"title": "Bank: quick reference", "page": "page {n}", "ledger": "Paper ledger",
           "ledger_help": "If the bank machine stops: one numbered line per movement, + received or - paid, and the "
                          "new total beside it. When the bank is back, type 'sheet {sheet}' then the lines with their "
                          "number, or the totals (inventory count).",
           "sheet": "Sheet", "copy": "copy", "no": "No.", "time": "Time", "what": "What", "rep": "Reputation", "who": "Initials", "start": "Starting stock",
           "move": "±", "total": "total", "carry": "Page full or a new outage: another copy of this sheet, the starting totals on its 'Starting "
                    "stock' line, 2 (then 3...) in its 'copy' box: it is typed 'sheet {sheet}/2'."},
}


def cost_text(config, cost: dict, lang: str) -> str:
    """'5 Energy, 5 Water' in the config's resource names."""
    return ", ".join(f"{n} {short(config.resources[r].label, lang)}" for r, n in cost.items()) or "-"


def render_bank_sheets(config, lang: str | None = None, paper: str = "a4") -> bytes:
    """The summary pages, then one ledger page per team, on A4 or Letter."""
    lang = check_language(lang or config.language)
    w = WORDS[lang]
    sheet = geo.paper_size(paper)
    c, buf = new_canvas(typo(lang, w["title"]))
    _summary(c, config, lang, w, sheet)
    for index, team in enumerate(config.teams.values()):
        _page(c, geo.landscape(sheet))
        _ledger(c, config, team, lang, w, geo.landscape(sheet), sheet_id(0, index))
        _end_page(c)
    return finish(c, buf)


def _page(c, size: tuple) -> None:
    c.setPageSize((size[0] * MM, size[1] * MM))
    c.saveState()
    c.scale(MM, MM)


def _end_page(c) -> None:
    c.restoreState()
    c.showPage()


def _summary(c, config, lang: str, w: dict, sheet: tuple = A4) -> None:
    """Every section of rule_lines in two columns, on as many pages as it takes."""
    cols = geo.columns(Box(MARGIN, MARGIN, sheet[0] - 2 * MARGIN, sheet[1] - 2 * MARGIN - 12), 2, 6)
    state = {"page": 0, "col": 2, "y": 0.0}

    def room(height: float) -> None:
        if state["col"] < 2 and state["y"] - height >= cols[0].y:
            return
        state["col"] += 1
        if state["col"] >= 2:
            if state["page"]:
                _end_page(c)
            _page(c, sheet)
            state["page"] += 1
            state["col"] = 0
            title = typo(lang, w["title"]) + (f" · {w['page'].format(n=state['page'])}" if state["page"] > 1 else "")
            text(c, title, MARGIN, sheet[1] - MARGIN - 6, 16 * PT, BOLD)
        state["y"] = cols[state["col"]].top

    for title, lines in sections(config, lang):
        room(12)
        box = cols[state["col"]]
        text(c, title, box.x, state["y"] - 4.5, 11 * PT, BOLD)
        c.setStrokeColor(GREY)
        c.setLineWidth(0.3)
        c.line(box.x, state["y"] - 6, box.right, state["y"] - 6)
        state["y"] -= 8
        for line in lines:
            height = _height(line, box.w)
            room(height)
            box = cols[state["col"]]
            paragraph(c, line, Box(box.x, state["y"] - height, box.w, height), SIZE, smallest=SIZE)
            state["y"] -= height + 0.9
        state["y"] -= 1
    _end_page(c)


def _height(line: str, width: float) -> float:
    """The height a sentence takes, wrapped to the column at the summary's size."""
    return len(wrap(line, FONT, SIZE, width)) * SIZE * 1.2


def _ledger(c, config, team, lang: str, w: dict, size: tuple = geo.landscape(A4), sheet: str = "0A") -> None:
    """Starting stock in its own row, then numbered movements with a running total per resource and for
    reputation, under the sheet's id (bank/game/paper_sheet.py: the pack's sheets start from entry 0)."""
    top, width = size[1] - MARGIN, size[0] - 2 * MARGIN
    c.setFillColor(colour(team.colour))
    c.rect(MARGIN, top - 11, width, 11, stroke=0, fill=1)
    tag = sheet_tag(c, sheet, (w["sheet"], w["copy"]), MARGIN + width, top, 11)
    text(c, f"{w['ledger']} · {name(team.label, lang)}", MARGIN + 3, top - 7.8, 14 * PT, BOLD, fill=ink_on(team.colour),
         width=tag - MARGIN - 6)
    paragraph(c, typo(lang, w["ledger_help"].format(sheet=sheet)), Box(MARGIN, top - 21, width, 9), 9 * PT, smallest=8 * PT)
    kinds = [(short(r.label, lang), r.id) for r in config.resources.values()] + [(w["rep"], None)]
    pair = 2 * 13.0
    fixed = 8 + 16 + 22 + pair * len(kinds)
    what_w = max(30.0, width - fixed)
    x0, y0, row_h = MARGIN, top - 24, 6.6
    heads = [(w["no"], 8), (w["time"], 16), (w["what"], what_w)] + [(label, pair) for label, _ in kinds] + [(w["who"], 22)]
    xs, right = draw_heads(c, heads, x0, y0)
    grid = LedgerGrid(xs, right, y0, row_h, pair, len(kinds), LEDGER_ROWS)
    draw_pair_heads(c, grid, w["move"], w["total"], drop=4.5)
    shade_start_row(c, grid)  # the starting stock: its own shaded, boxed row
    text(c, w["start"], xs[2] + 1.5, grid.start_y - 4.6, 9 * PT, BOLD, width=what_w - 3)
    for i, (_, kind) in enumerate(kinds):
        start = 0 if kind is None else config.own_colour_tokens * (kind == team.resource) + config.extra_start.get(kind, 0)
        text(c, str(start), grid.count_x(i) + 19.5, grid.start_y - 4.6, 10 * PT, BOLD, INK, "centre")
    rule_rows(c, grid, shade_over_rules=True)
    number_rows(c, grid)
    bottom = grid.bottom
    text(c, typo(lang, w["carry"].format(sheet=sheet)), x0, bottom - 4.5, 9 * PT, FONT, INK, width=right - x0)
