"""Aids on the bank's table: the reputation score track, the exchange-rate sign, an event sheet (item 15)."""

from __future__ import annotations

import math

from reportlab.lib.colors import white

from . import geometry as geo
from .boards import BANK_COLOUR, header
from .drawing import BOLD, FONT, INK, LIGHT, PT, colour, dashed_box, finish, new_canvas, page, paragraph, rounded, text
from .geometry import A3, Box
from .icons import token
from .labels import check_language, count, name, rate_text, short, typo

W = {
    "fr": {"score": "Piste de réputation", "score_sub": "Un pion par équipe, avancé à chaque point (R31)",
           "score_help": "Au-delà de {top}, repartez de 0 et posez un jeton sous le pion : chaque jeton vaut {top} points.",
           "goal": "{n} : fin possible (R35)",
           "rate": "Taux de change", "rate_sub": "Jetons contre points de réputation (R32)",
           "rate_tokens": "Jetons", "rate_points": "Points de réputation",
           "rate_start": "Taux au départ : {rate}. Écrivez le taux du moment dans les cases.",
           "any": "Des jetons de n'importe quelles ressources, rendus à la banque.",
           "joker": "Un joker rendu seul : {points}.", "new": "Taux changé (l'heure, puis le nouveau taux)",
           "new_line": "____ h ____ : ______ jetons = ______ points",
           "event": "Événement", "event_sub": "Feuille de l'animation (R33)", "ev_title": "Titre",
           "ev_accepts": "Ressources acceptées (cochez)", "ev_any": "toutes", "ev_target": "Objectif",
           "ev_deadline": "Clôture à", "ev_rewards": "Récompenses par rang (points ou jokers)",
           "ev_gifts": "Dons des équipes (une ligne par don)",
           "ev_team": "Équipe", "ev_given": "Dons", "ev_total": "Total", "ev_place": "Rang", "ev_got": "Reçu"},
    "en": {"score": "Reputation track", "score_sub": "One marker per team, moved at every point (R31)",
           "score_help": "Past {top}, start again from 0 and put a token under the marker: each token is worth {top} points.",
           "goal": "{n}: game may end (R35)",
           "rate": "Exchange rate", "rate_sub": "Tokens for reputation points (R32)",
           "rate_tokens": "Tokens", "rate_points": "Reputation points",
           "rate_start": "Starting rate: {rate}. Write the current rate in the boxes.",
           "any": "Tokens of any resources, handed back to the bank.",
           "joker": "A joker handed in alone: {points}.", "new": "Rate changed (the time, then the new rate)",
           "new_line": "____ h ____: ______ tokens = ______ points",
           "event": "Event", "event_sub": "Facilitators' sheet (R33)", "ev_title": "Title",
           "ev_accepts": "Resources accepted (tick)", "ev_any": "any", "ev_target": "Target",
           "ev_deadline": "Closes at", "ev_rewards": "Rewards by rank (points or jokers)",
           "ev_gifts": "What teams gave (one line per gift)",
           "ev_team": "Team", "ev_given": "Gifts", "ev_total": "Total", "ev_place": "Rank", "ev_got": "Got"},
}


def ordinal(lang: str, n: int) -> str:
    """A rank as people write it: 1re 2e 3e, or 1st 2nd 3rd 4th 11th 21st."""
    if lang == "fr":
        return "1re" if n == 1 else f"{n}e"
    suffix = "th" if n % 100 in (11, 12, 13) else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


def track_top(config) -> int:
    """The last square of the score track: half again the winning threshold, to a round ten."""
    return int(math.ceil(config.reputation_threshold * 1.5 / 10) * 10)


def render_score_track(config, lang: str | None = None, halves: bool = False, paper: str = "a4") -> bytes:
    """A score track from 0 to track_top, the threshold square framed (R31, R35).

    A3 landscape, or (`halves`) the same track on two A4 or Letter pages that join
    along a glue strip, for a bank with only a home printer.
    """
    lang = check_language(lang or config.language)
    w = {k: typo(lang, v) for k, v in W[lang].items()}
    big = geo.landscape(A3)
    c, buf = new_canvas(w["score"])
    if halves:
        from .commons import on_halves

        on_halves(c, lambda: _score_track(c, config, w, big), lang, geo.paper_size(paper), big)
    else:
        with page(c, big):
            _score_track(c, config, w, big)
    return finish(c, buf)


def _score_track(c, config, w: dict, big: tuple) -> None:
    """The track on a landscape A3 area (drawn whole, or scaled into two halves)."""
    area = Box(12, 12, big[0] - 24, big[1] - 24)
    top = track_top(config)
    header(c, Box(area.x, area.top - 16, area.w, 16), BANK_COLOUR, w["score"], w["score_sub"])
    text(c, w["score_help"].format(top=top), area.x, area.y + 3, 12 * PT, FONT, INK, width=area.w)
    rows = (top + 1 + 9) // 10
    grid = Box(area.x, area.y + 10, area.w, area.h - 30)
    for i, row in enumerate(geo.stack(grid, [None] * rows, gap=2)):
        for j, cell in enumerate(geo.columns(row, 10, 2)):
            n = i * 10 + j
            if n > top:
                continue
            goal = n == config.reputation_threshold
            rounded(c, cell, 2, fill=LIGHT if n % 10 == 0 else white, stroke=INK, width=1.6 if goal else 0.4)
            text(c, str(n), cell.x + cell.w / 2, cell.y + cell.h / 2 - 3, 24 * PT, BOLD, INK, "centre")
            if goal:
                text(c, w["goal"].format(n=n), cell.x + cell.w / 2, cell.y + 2, 9 * PT, BOLD, INK, "centre",
                     width=cell.w - 2)


def render_rate_sign(config, lang: str | None = None, paper: str = "a4") -> bytes:
    """A landscape sign for the bank's table, updated by hand (R6, R32).

    The rate is left blank in two big boxes, written with a marker (on the laminated
    sign, a dry-erase one): facilitators change both numbers freely, so a printed row of
    values to circle would miss the rate they pick. The starting rate is printed small,
    as a reminder, never as the sign's headline.
    """
    lang = check_language(lang or config.language)
    w = {k: typo(lang, v) for k, v in W[lang].items()}
    size = geo.landscape(geo.paper_size(paper))
    area = Box(14, 14, size[0] - 28, size[1] - 28)
    c, buf = new_canvas(w["rate"])
    with page(c, size):
        header(c, Box(area.x, area.top - 16, area.w, 16), BANK_COLOUR, w["rate"], w["rate_sub"])
        mid = area.x + area.w / 2
        boxes = (Box(mid - 12 - 85, area.top - 74, 85, 48), Box(mid + 12, area.top - 74, 85, 48))
        for box, caption in zip(boxes, (w["rate_tokens"], w["rate_points"])):
            rounded(c, box, 3, fill=white, stroke=INK, width=1.2)
            text(c, caption, box.x + box.w / 2, box.top + 2.5, 16 * PT, BOLD, INK, "centre", width=box.w)
        text(c, "=", mid, area.top - 56, 48 * PT, BOLD, INK, "centre")
        start = rate_text(lang, config.exchange_tokens, config.exchange_points)
        text(c, w["rate_start"].format(rate=start), mid, area.top - 82, 14 * PT, FONT, INK, "centre", width=area.w)
        kinds = [r for r in config.resources.values() if not r.joker]
        for i, res in enumerate(kinds):
            token(c, config, res.id, mid + (i - (len(kinds) - 1) / 2) * 16, area.top - 92, 6)
        text(c, w["any"], mid, area.top - 105, 16 * PT, FONT, INK, "centre", width=area.w)
        text(c, w["joker"].format(points=count(lang, "point", config.points_per_joker)), mid,
             area.top - 113, 16 * PT, FONT, INK, "centre", width=area.w)
        box = Box(area.x, area.y, area.w, min(50.0, area.top - 119 - area.y))
        rounded(c, box, 3, stroke=INK, width=0.6)
        text(c, w["new"], box.x + 5, box.top - 8, 14 * PT, BOLD)
        for k in range(3):
            if box.top - 20 - 11 * k > box.y + 2:
                text(c, w["new_line"], box.x + 5, box.top - 20 - 11 * k, 14 * PT, FONT, INK)
    return finish(c, buf)


def render_event_sheet(config, lang: str | None = None, paper: str = "a4") -> bytes:
    """An A4 (or Letter) form for one event: what it accepts, rewards by rank, each team's gifts and rank (R33)."""
    lang = check_language(lang or config.language)
    w = {k: typo(lang, v) for k, v in W[lang].items()}
    size = geo.paper_size(paper)
    area = Box(12, 12, size[0] - 24, size[1] - 24)
    c, buf = new_canvas(w["event"])
    with page(c, size):
        header(c, Box(area.x, area.top - 14, area.w, 14), BANK_COLOUR, w["event"], w["event_sub"])
        y = area.top - 24
        for label in (w["ev_title"], w["ev_target"], w["ev_deadline"]):
            text(c, label, area.x, y, 11 * PT, BOLD)
            c.setStrokeColor(INK)
            c.line(area.x + 32, y - 1, area.right, y - 1)
            y -= 10
        text(c, w["ev_accepts"], area.x, y, 11 * PT, BOLD)
        y -= 9
        kinds = [*config.resources.values(), None]
        for res, cell in zip(kinds, geo.columns(Box(area.x, y - 4, area.w, 8), len(kinds), 2)):
            dashed_box(c, Box(cell.x, cell.y + 1, 6, 6), INK)
            label = short(res.label, lang) if res else w["ev_any"]
            text(c, label, cell.x + 7.5, cell.y + 2.6, 9 * PT, FONT, INK, width=cell.w - 8)
        y -= 14
        text(c, w["ev_rewards"], area.x, y, 11 * PT, BOLD)
        ranks = len(config.teams)
        for k, cell in enumerate(geo.columns(Box(area.x, y - 14, area.w, 10), ranks, 3)):
            rounded(c, cell, 1.5, stroke=INK)
            label = ordinal(lang, k + 1)
            text(c, label, cell.x + 2, cell.top - 4.5, 10 * PT, BOLD)
        y -= 24
        _gift_table(c, config, Box(area.x, area.y, area.w, y - area.y), w, lang)
    return finish(c, buf)


def _gift_table(c, config, box: Box, w: dict, lang: str) -> None:
    """One row per team: its gifts written one after the other, the total, its rank and what it got."""
    text(c, w["ev_gifts"], box.x, box.top, 11 * PT, BOLD)
    widths = (34, box.w - 34 - 22 - 16 - 30, 22, 16, 30)
    heads = (w["ev_team"], w["ev_given"], w["ev_total"], w["ev_place"], w["ev_got"])
    top = box.top - 4
    row_h = min(28.0, (top - 8 - box.y) / max(1, len(config.teams)))
    x = box.x
    for head, cw in zip(heads, widths):
        text(c, head, x + 1.5, top - 5, 9 * PT, BOLD, INK, width=cw - 3)
        x += cw
    for i, team in enumerate(config.teams.values()):
        row = Box(box.x, top - 8 - (i + 1) * row_h, box.w, row_h)
        c.setFillColor(colour(team.colour))
        c.rect(row.x, row.y + 0.5, 3, row.h - 1, stroke=0, fill=1)
        paragraph(c, name(team.label, lang), Box(row.x + 5, row.y, widths[0] - 6, row.h), 11 * PT, BOLD, middle=True)
        c.setStrokeColor(INK)
        c.setLineWidth(0.4)
        c.rect(row.x, row.y, row.w, row.h, stroke=1, fill=0)
        x = row.x
        for cw in widths[:-1]:
            x += cw
            c.line(x, row.y, x, row.top)
