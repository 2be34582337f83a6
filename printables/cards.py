"""Role cards: one A4 sheet of fronts and one of backs per team, ready for duplex and cutting."""

from __future__ import annotations

from reportlab.lib.colors import white

from bank.game.rules.fights import rounds_to_win

from . import geometry as geo
from .drawing import (BOLD, FONT, INK, LIGHT, PT, colour, cut_marks, finish, fit_size, fits, ink_on, new_canvas,
                      page, paragraph, qr, qr_quiet, rounded, ruler, text)
from .geometry import Box
from .icons import amounts, role_icon
from .labels import colon, name, t, word

HEADER = 14.0  # mm of the card's top given to the role name and strength
# The QR code a facilitator scans at the bank, on the card's back: 32 mm wide, each of its
# 25 modules 1.28 mm, so a tablet camera a little out of focus still reads it (a 1.5 px blur
# at 100 dpi; at 26-30 mm some codes failed), with a white quiet zone of 4 modules. At that size it does not fit on the
# front beside the fight table, so the front keeps the words and the back the code.
QR_SIZE = 32.0


def card_ids(config) -> list:
    """Every card a team may hold: the starting cards, then the optional extra pirate (R9)."""
    pirate = config.pirate_role()
    return config.cards((f"{pirate.id}-{pirate.cards + 1}",))


def payload(team: str, card: str) -> str:
    """What the card's QR code says, for the bank console's scanner."""
    return f"terrabank:card:{team}:{card}"


ALPHANUMERIC = set("0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ $%*+-./:")


def qr_payload(team: str, card: str) -> str:
    """The payload as printed: in capitals when it can be, which QR encodes in its alphanumeric
    mode, a smaller code (25 modules, not 29) and so larger modules at the same size.
    The console's scanner reads it without regard to case (static/js/forms.js parseCard)."""
    upper = payload(team, card).upper()
    return upper if set(upper) <= ALPHANUMERIC else payload(team, card)


def qr_place(slot) -> tuple:
    """(x, y, size) of a card back's QR code: centred, low on the card, its quiet zone inside the safe area."""
    s = slot.safe
    return s.x + (s.w - QR_SIZE) / 2, s.y + 17.0, QR_SIZE


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
    """One card's face (its background is painted first, see `paint`): role, strength, fights, cooldowns, QR code."""
    team, role = config.teams[team_id], config.role_of(card)
    ink = ink_on(team.colour)
    s, trim = slot.safe, slot.trim
    _header(c, config, team, card, role, s, ink, lang)
    panel = Box(trim.x + 2.5, trim.y + 2.5, trim.w - 5, s.top - HEADER - 1.5 - trim.y - 2.5)
    rounded(c, panel, 2, fill=white)
    body = Box(s.x, s.y, s.w, panel.top - 1.5 - s.y)
    fights = fight_rows(config, role.id)
    starred = any(f[3] for f in fights)
    table_h = ROW + ROW * len(fights) + (ROW if starred else 0)
    wait_h = 4.4 + 3.35 * len(wait_lines(config, role, lang, starred))
    words, table, bottom = geo.stack(body, [None, table_h, wait_h], gap=2.2)
    if is_optional(config, card):  # the price of the extra pirate, under what the card does
        words, price = geo.stack(words, [None, 8.5], gap=0.8)
        text(c, t(lang, "extra_card"), price.x, price.top - 2.8, 8 * PT, width=price.w)
        amounts(c, config, config.second_pirate_cost, price.x, price.y + 2, 2, 9 * PT)
    paragraph(c, ability(config, role, lang), words, 8.5 * PT, smallest=8 * PT)
    _fight_table(c, config, fights, starred, table, lang)
    _bottom(c, config, team_id, card, role, bottom, lang, starred)


ROW = 3.5  # mm per line of 8 pt type in the fight table


def paint(c, team, slot) -> None:
    """The card's colour over its bleed; painted for every card before any is drawn on shared cut lines."""
    c.setFillColor(colour(team.colour))
    c.rect(slot.bleed.x, slot.bleed.y, slot.bleed.w, slot.bleed.h, stroke=0, fill=1)


def _header(c, config, team, card, role, s: Box, ink, lang: str) -> None:
    """Role icon, role name, team and card number on the team colour; strength in a white disc."""
    number = card.rpartition("-")[2]
    sub = t(lang, "optional") if is_optional(config, card) else t(lang, "card_no", n=number)
    c.setFillColor(white)
    c.setStrokeColor(INK)
    c.setLineWidth(0.3)
    c.circle(s.x + 4.6, s.top - 5.4, 4.6, stroke=1, fill=1)
    role_icon(c, role, s.x + 4.6, s.top - 5.4, 3.4)
    left = s.x + 10.8
    text(c, name(role.label, lang), left, s.top - 5.5, 14 * PT, BOLD, ink, width=s.right - 13 - left)
    owner, room = f"{name(team.label, lang)} · {sub}", s.right - 13 - left
    if fit_size(owner, FONT, 8 * PT, room) >= 8 * PT:
        text(c, owner, left, s.top - 10.5, 8 * PT, FONT, ink, width=room)
    else:  # a long team name: two lines above the panel (one line fell to 5 pt), the first where it always was
        two = Box(left, s.top - 14.6, room, 14.6 - 10.5 + 8 * PT * 0.9)
        if not fits(owner, FONT, 8 * PT, two, 1.1, "any"):
            owner = name(team.label, lang)  # the name whole; the number or 'option' stays on the card's back
        paragraph(c, owner, two, 8 * PT, FONT, ink, smallest=8 * PT, leading=1.1)
    cx, cy = s.right - 6, s.top - 5.4
    c.setFillColor(white)
    c.circle(cx, cy, 4.6, stroke=1, fill=1)
    text(c, str(role.strength), cx, cy - 1.8, 15 * PT, BOLD, INK, "centre")
    text(c, t(lang, "strength"), cx, s.top - 13.2, 8 * PT, FONT, ink, "centre", width=12)


def _fight_table(c, config, fights: list, starred: bool, box: Box, lang: str) -> None:
    """Rounds to win against each role this card can meet (R18)."""
    col_you, col_them = box.right - 14, box.right - 4
    y = box.top - 2.6
    text(c, t(lang, "rounds"), box.x, y, 8 * PT, BOLD, width=col_you - box.x - 5)
    text(c, t(lang, "you"), col_you, y, 8 * PT, FONT, INK, "centre")
    text(c, t(lang, "them"), col_them, y, 8 * PT, FONT, INK, "centre")
    for i, (other, mine, theirs, only_everyone) in enumerate(fights):
        row_top = box.top - ROW - ROW * i
        if i % 2 == 0:
            c.setFillColor(LIGHT)
            c.rect(box.x - 0.5, row_top - ROW, box.w + 1, ROW, stroke=0, fill=1)
        base = row_top - 2.6
        label = f"{t(lang, 'vs')} {name(config.roles[other].label, lang)}" + (" *" if only_everyone else "")
        text(c, label, box.x, base, 8 * PT, width=col_you - box.x - 5)
        text(c, str(mine), col_you, base, 9 * PT, BOLD, INK, "centre")
        text(c, str(theirs), col_them, base, 9 * PT, FONT, INK, "centre")
    if starred:
        text(c, t(lang, "everyone_only"), box.x, box.y + 0.8, 8 * PT, FONT, INK, width=box.w)


def _bottom(c, config, team_id: str, card: str, role, box: Box, lang: str, starred: bool) -> None:
    """The cooldowns after a fight (R19), across the card (the QR code is on the back)."""
    text(c, t(lang, "wait"), box.x, box.top - 2.8, 8 * PT, BOLD, width=box.w)
    paragraph(c, "\n".join(wait_lines(config, role, lang, starred)), Box(box.x, box.y, box.w, box.h - 4),
              8 * PT, smallest=8 * PT, leading=1.15)


def draw_back(c, config, team_id: str, slot, lang: str, card: str | None = None) -> None:
    """A card's back: team colour, game title, team name, the card's role and number, its QR code.

    The role and number printed beside the code let anyone check, after duplex printing,
    that each back belongs to its front (a sheet flipped on the wrong edge would swap them).
    """
    team = config.teams[team_id]
    ink, s = ink_on(team.colour), slot.safe
    c.setStrokeColor(ink)
    c.setLineWidth(0.5)
    c.roundRect(s.x, s.y, s.w, s.h, 3, stroke=1, fill=0)
    text(c, name(config.title, lang), s.x + s.w / 2, s.top - 6.5, 11 * PT, BOLD, ink, "centre", width=s.w - 4)
    text(c, name(team.label, lang), s.x + s.w / 2, s.top - 13.5, 18 * PT, BOLD, ink, "centre", width=s.w - 4)
    if card is not None:
        role = config.role_of(card)
        number = t(lang, "optional") if is_optional(config, card) else t(lang, "card_no", n=card.rpartition("-")[2])
        text(c, f"{name(role.label, lang)} · {number}", s.x + s.w / 2, s.top - 19.5, 11 * PT, BOLD, ink, "centre",
             width=s.w - 4)
        x, y, size = qr_place(slot)
        code = qr_payload(team_id, card)
        quiet = qr_quiet(code, size)
        rounded(c, Box(x - quiet - 1, y - quiet - 1, size + 2 * quiet + 2, size + 2 * quiet + 2), 2, fill=white)
        qr(c, code, x, y, size)
    text(c, t(lang, "back_hint"), s.x + s.w / 2, s.y + 8.4, 8 * PT, BOLD, ink, "centre", width=s.w - 6)
    paragraph(c, t(lang, "card_all"), Box(s.x + 2, s.y + 0.5, s.w - 4, 7.4), 8 * PT, FONT, ink, align="centre",
              smallest=8 * PT)


def _margin_note(c, sheet, config, team_id: str, lang: str) -> None:
    """Printing advice and the team's name, written up the left margin."""
    grid = geo.grid_box(sheet)
    c.saveState()
    c.translate(grid.x / 2, sheet.page[1] / 2)
    c.rotate(90)
    text(c, f"{name(config.teams[team_id].label, lang)} · {t(lang, 'print_note')}", 0, -1, 8 * PT,
         FONT, INK, "centre")
    c.restoreState()
    ruler(c, grid.right + (sheet.page[0] - grid.right) / 2, sheet.page[1] / 2 - 50, t(lang, "ruler"), vertical=True)


def render_cards(config, lang: str | None = None, flip: str = "long", paper: str = "a4") -> bytes:
    """Every team's role cards as a PDF: per team, a sheet of fronts then its backs (A4 or Letter)."""
    lang = lang or config.language
    c, buf = new_canvas(f"{name(config.title, lang)} - cards")
    sheet = geo.card_sheet(geo.paper_size(paper))
    backs = geo.back_slots(sheet, flip)
    cards = card_ids(config)
    for team_id in config.teams:
        for start in range(0, len(cards), sheet.count):
            chunk = cards[start:start + sheet.count]
            with page(c, sheet.page):
                for slot in sheet.slots[:len(chunk)]:
                    paint(c, config.teams[team_id], slot)
                for card, slot in zip(chunk, sheet.slots):
                    draw_front(c, config, team_id, card, slot, lang)
                cut_marks(c, geo.cut_marks(geo.first(sheet, len(chunk))))
                _margin_note(c, sheet, config, team_id, lang)
            with page(c, sheet.page):
                back_sheet = geo.Sheet(sheet.page, sheet.cols, sheet.rows, tuple(backs[:len(chunk)]))
                for slot in back_sheet.slots:
                    paint(c, config.teams[team_id], slot)
                for card, slot in zip(chunk, back_sheet.slots):
                    draw_back(c, config, team_id, slot, lang, card)
                cut_marks(c, geo.cut_marks(back_sheet))
    return finish(c, buf)
