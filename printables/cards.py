"""Role cards: one A4 sheet of fronts and one of backs per team, ready for duplex and cutting."""

from __future__ import annotations

from reportlab.lib.colors import white

from bank.rules.fights import rounds_to_win

from . import geometry as geo
from .drawing import (BOLD, FONT, GREY, INK, LIGHT, PT, colour, cut_marks, finish, ink_on,
                      new_canvas, page, paragraph, qr, rounded, text)
from .geometry import Box
from .icons import amounts, token
from .labels import colon, name, t, word

HEADER = 14.0  # mm of the card's top given to the role name and strength
QR_SIZE = 16.0


def card_ids(config) -> list:
    """Every card a team may hold: the starting cards, then the optional extra pirate (R9)."""
    pirate = config.pirate_role()
    return config.cards((f"{pirate.id}-{pirate.cards + 1}",))


def payload(team: str, card: str) -> str:
    """What the card's QR code says, for the bank console's scanner."""
    return f"terrabank:card:{team}:{card}"


def is_optional(config, card: str) -> bool:
    """Whether the card is the extra pirate bought during the game, not a starting card."""
    role = config.role_of(card)
    return role is not None and int(card.rpartition("-")[2]) > role.cards


def ability(config, role, lang: str) -> str:
    """What a role may do, in a sentence or two."""
    n = config.harvest_base
    tokens = f"{n} {word(lang, 'token', n)}"
    key = f"role_{role.id}"
    if key not in ("role_harvester", "role_merchant", "role_builder", "role_pirate"):
        key = "role_harvester" if role.harvests else "role_pirate" if role.pirate else "role_other"
    return t(lang, key, tokens=tokens)


def fight_rows(config, role_id: str) -> list:
    """(other role, rounds this card must win, rounds the other must win, 'everyone fights' only)."""
    rows = []
    for other in config.roles:
        rounds = rounds_to_win(config, role_id, other, False)
        only_everyone = rounds is None
        if only_everyone:
            rounds = rounds_to_win(config, role_id, other, True)
        if rounds:
            rows.append((other, rounds[0], rounds[1], only_everyone))
    return rows


def wait_lines(config, role, lang: str, starred: bool) -> list:
    """The cooldowns after a fight (R19): base rule, and the 'everyone fights' one if it differs."""
    def phrase(rules):
        win, lose = (rules.pirate_wins, rules.pirate_loses) if role.pirate else (rules.other_wins, rules.other_loses)
        if not win and not lose:
            return t(lang, "no_wait")
        return ", ".join(f"{t(lang, key)} {f'{n} s' if n else t(lang, 'at_once')}"
                         for key, n in (("won", win), ("lost", lose)))
    base, everyone = phrase(config.cooldowns["base"]), phrase(config.cooldowns["everyone_fights"])
    lines = [colon(lang, t(lang, "base_rule"), base)]
    if starred or everyone != base:
        lines.append(colon(lang, "*", everyone))
    return lines


def draw_front(c, config, team_id: str, card: str, slot, lang: str) -> None:
    """One card's face: role, strength, what it does, fights, cooldowns, QR code."""
    team, role = config.teams[team_id], config.role_of(card)
    bg, ink = colour(team.colour), ink_on(team.colour)
    s, trim = slot.safe, slot.trim
    c.setFillColor(bg)
    c.rect(slot.bleed.x, slot.bleed.y, slot.bleed.w, slot.bleed.h, stroke=0, fill=1)
    _header(c, config, team, card, role, s, ink, lang)
    panel = Box(trim.x + 2.5, trim.y + 2.5, trim.w - 5, s.top - HEADER - 1.5 - trim.y - 2.5)
    rounded(c, panel, 2, fill=white)
    body = Box(s.x, s.y, s.w, panel.top - 1.5 - s.y)
    fights = fight_rows(config, role.id)
    starred = any(f[3] for f in fights)
    table_h = 3.6 + 3.2 * len(fights) + (2.8 if starred else 0)
    waits = wait_lines(config, role, lang, starred)
    words, table, wait, bottom = geo.stack(body, [None, table_h, 3 + 2.6 * len(waits), QR_SIZE], gap=1.2)
    paragraph(c, ability(config, role, lang), words, 8.5 * PT, smallest=5.5 * PT)
    _fight_table(c, config, fights, starred, table, lang)
    text(c, t(lang, "wait"), wait.x, wait.top - 2.2, 6.5 * PT, BOLD)
    for i, line in enumerate(waits):
        text(c, line, wait.x, wait.top - 4.8 - 2.6 * i, 6.5 * PT, width=wait.w)
    _bottom(c, config, team_id, card, bottom, lang)


def _header(c, config, team, card, role, s: Box, ink, lang: str) -> None:
    """Role name, team and card number on the team colour; strength in a white disc."""
    number = card.rpartition("-")[2]
    sub = t(lang, "optional") if is_optional(config, card) else t(lang, "card_no", n=number)
    text(c, name(role.label, lang), s.x, s.top - 5.5, 14 * PT, BOLD, ink, width=s.w - 12)
    text(c, f"{name(team.label, lang)} · {sub}", s.x, s.top - 10, 7.5 * PT, FONT, ink, width=s.w - 12)
    cx, cy = s.right - 5.2, s.top - 5.5
    c.setFillColor(white)
    c.setStrokeColor(INK)
    c.setLineWidth(0.3)
    c.circle(cx, cy, 5.2, stroke=1, fill=1)
    text(c, str(role.strength), cx, cy - 1.6, 15 * PT, BOLD, INK, "centre")
    text(c, t(lang, "strength"), cx, s.top - 13, 5.5 * PT, FONT, ink, "centre")


def _fight_table(c, config, fights: list, starred: bool, box: Box, lang: str) -> None:
    """Rounds to win against each role this card can meet (R18)."""
    col_you, col_them = box.right - 13, box.right - 3
    y = box.top - 2.4
    text(c, t(lang, "rounds"), box.x, y, 6.5 * PT, BOLD, width=box.w - 20)
    text(c, t(lang, "you"), col_you, y, 5.5 * PT, FONT, GREY, "centre")
    text(c, t(lang, "them"), col_them, y, 5.5 * PT, FONT, GREY, "centre")
    for i, (other, mine, theirs, only_everyone) in enumerate(fights):
        row_top = box.top - 3.6 - 3.2 * i
        if i % 2 == 0:
            c.setFillColor(LIGHT)
            c.rect(box.x - 0.5, row_top - 3.2, box.w + 1, 3.2, stroke=0, fill=1)
        base = row_top - 2.3
        label = f"{t(lang, 'vs')} {name(config.roles[other].label, lang)}" + (" *" if only_everyone else "")
        text(c, label, box.x, base, 6.5 * PT, width=col_you - box.x - 5)
        text(c, str(mine), col_you, base, 7.5 * PT, BOLD, INK, "centre")
        text(c, str(theirs), col_them, base, 7.5 * PT, FONT, INK, "centre")
    if starred:
        text(c, t(lang, "everyone_only"), box.x, box.y + 0.6, 5.5 * PT, FONT, GREY, width=box.w)


def _bottom(c, config, team_id: str, card: str, box: Box, lang: str) -> None:
    """The QR code the bank scans, the card id, and the price of an optional card."""
    qr(c, payload(team_id, card), box.right - QR_SIZE, box.y, QR_SIZE, quiet=1)
    left = Box(box.x, box.y, box.w - QR_SIZE - 2.5, box.h)
    if is_optional(config, card):
        used = paragraph(c, t(lang, "extra_card"), left, 6 * PT, smallest=5 * PT)
        amounts(c, config, config.second_pirate_cost, left.x, left.top - used - 2.6, 1.9, 7 * PT)
    text(c, card, left.x, left.y + 0.8, 5.5 * PT, FONT, GREY, width=left.w)


def draw_back(c, config, team_id: str, slot, lang: str) -> None:
    """A card's back: team colour, game title, team name, the six tokens."""
    team = config.teams[team_id]
    ink, s = ink_on(team.colour), slot.safe
    c.setFillColor(colour(team.colour))
    c.rect(slot.bleed.x, slot.bleed.y, slot.bleed.w, slot.bleed.h, stroke=0, fill=1)
    c.setStrokeColor(ink)
    c.setLineWidth(0.5)
    c.roundRect(s.x, s.y, s.w, s.h, 3, stroke=1, fill=0)
    text(c, name(config.title, lang), s.x + s.w / 2, s.top - 9, 11 * PT, BOLD, ink, "centre", width=s.w - 4)
    text(c, name(team.label, lang), s.x + s.w / 2, s.y + s.h / 2 + 10, 20 * PT, BOLD, ink, "centre", width=s.w - 4)
    kinds = list(config.resources)
    cx, cy = s.x + s.w / 2, s.y + s.h / 2 - 8
    for i, kind in enumerate(kinds):
        col, row = i % 3, i // 3
        token(c, config, kind, cx + (col - 1) * 12, cy - row * 12 + 6, 4.5)
    text(c, t(lang, "back_hint"), cx, s.y + 11, 8 * PT, BOLD, ink, "centre", width=s.w - 6)
    paragraph(c, t(lang, "card_all"), Box(s.x + 3, s.y + 2, s.w - 6, 7.5), 6.5 * PT, FONT, ink, align="centre")


def _margin_note(c, sheet, config, team_id: str, lang: str) -> None:
    """Printing advice and the team's name, written up the left margin."""
    grid = geo.grid_box(sheet)
    c.saveState()
    c.translate(grid.x / 2, sheet.page[1] / 2)
    c.rotate(90)
    text(c, f"{name(config.teams[team_id].label, lang)} · {t(lang, 'print_note')}", 0, -1, 7 * PT,
         FONT, GREY, "centre", width=sheet.page[1] - 20)
    c.restoreState()


def render_cards(config, lang: str | None = None, flip: str = "long") -> bytes:
    """Every team's role cards as a PDF: per team, a sheet of fronts then its backs."""
    lang = lang or config.language
    c, buf = new_canvas(f"{name(config.title, lang)} - cards")
    sheet = geo.impose()
    backs = geo.back_slots(sheet, flip)
    cards = card_ids(config)
    for team_id in config.teams:
        for start in range(0, len(cards), sheet.count):
            chunk = cards[start:start + sheet.count]
            with page(c, sheet.page):
                for card, slot in zip(chunk, sheet.slots):
                    draw_front(c, config, team_id, card, slot, lang)
                cut_marks(c, geo.cut_marks(geo.first(sheet, len(chunk))))
                _margin_note(c, sheet, config, team_id, lang)
            with page(c, sheet.page):
                back_sheet = geo.Sheet(sheet.page, sheet.cols, sheet.rows, tuple(backs[:len(chunk)]))
                for slot in back_sheet.slots:
                    draw_back(c, config, team_id, slot, lang)
                cut_marks(c, geo.cut_marks(back_sheet))
    return finish(c, buf)
