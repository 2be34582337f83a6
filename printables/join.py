"""Join cards (Wi-Fi and the team's phone page, as QR codes) and the big-screen poster."""

from __future__ import annotations

from reportlab.lib.colors import white

from . import geometry as geo
from .boards import BANK_COLOUR, header
from .fonts import width as stringWidth

from .drawing import (BOLD, FONT, GREY, INK, MONO, PT, break_anywhere, colour, cut_marks, finish, ink_on,
                      new_canvas, page, paragraph, qr, rounded, text)
from .geometry import Box
from .labels import colon, name, t

JOIN_CARD = (90.0, 130.0)  # four to an A4 sheet, big enough for two QR codes side by side with text
# On Letter (279.4 mm high) two rows of 130 mm leave no room for cut marks 10 mm from the edge.
CARD_HEIGHT = {"a4": 130.0, "letter": 124.0}
QR_SIZE = 34.0
LINK_PT = (10 * PT, 9 * PT, 8 * PT)  # the typed link's sizes, largest first: never under 8 pt


def link_lines(url: str, font: str, size: float, width: float) -> list:
    """The link on one line if it fits, else broken just after a '/' (a place the eye sees).

    Only when a part between slashes is itself too wide is it cut inside.
    """
    if stringWidth(url, font, size) <= width:
        return [url]
    parts = [p + "/" for p in url.split("/")[:-1]] + [url.split("/")[-1]]
    lines, line = [], ""
    for part in (p for p in parts if p):
        if line and stringWidth(line + part, font, size) > width:
            lines.append(line)
            line = ""
        line += part
    lines.append(line)
    return [piece for line in lines for piece in
            (break_anywhere(line, font, size, width) if stringWidth(line, font, size) > width else [line])]


def _link_layout(url: str, width: float) -> tuple:
    """(size, lines) for the typed link: the largest size at which it takes the fewest lines."""
    best = None
    for size in LINK_PT:
        lines = link_lines(url, MONO, size, width)
        if best is None or len(lines) < len(best[1]):
            best = (size, lines)
    return best


def wifi_payload(ssid: str, password: str = "", security: str = "WPA") -> str:
    """The Wi-Fi QR text phones understand: WIFI:T:WPA;S:<ssid>;P:<password>;;"""
    def escape(value: str) -> str:
        # The format reserves these characters; a backslash makes them literal.
        for ch in "\\;,:\"":
            value = value.replace(ch, "\\" + ch)
        return value
    if not ssid:
        raise ValueError("the Wi-Fi network name (ssid) is empty")
    if not password:
        return f"WIFI:T:nopass;S:{escape(ssid)};;"
    return f"WIFI:T:{security};S:{escape(ssid)};P:{escape(password)};;"


def team_url(base: str, token: str) -> str:
    """A team's phone page: the bank's address + /t/<token>."""
    return f"{base.rstrip('/')}/t/{token}"


def _qr_panel(c, box: Box, title: str, payload: str | None, lines: list, lang: str) -> None:
    """A titled panel: a QR code on the left, words on the right (or only words without a code)."""
    text(c, title, box.x, box.top - 4, 11 * PT, BOLD)
    body = Box(box.x, box.y, box.w, box.h - 6)
    words = body
    if payload:
        size = min(QR_SIZE, body.h - 3)
        qr(c, payload, body.x + 1.5, body.top - 1.5 - size, size, quiet=1.5)
        words = Box(body.x + size + 5, body.y, body.w - size - 5, body.h)
    y = words.top
    for size, font, line in lines:
        if " " not in line and "/" in line:  # an address: cut anywhere, never shrink it unreadable
            line = "\n".join(break_anywhere(line, font, size, words.w))
        y -= paragraph(c, line, Box(words.x, words.y, words.w, y - words.y), size, font, INK, smallest=8 * PT) + 1  # 8 pt: read outdoors


def draw_join_card(c, config, team_id: str, slot, url: str, wifi, lang: str) -> None:
    """One team's card: its colour, the Wi-Fi code, then the code of its phone page."""
    team, box = config.teams[team_id], slot.safe
    band = Box(slot.trim.x, slot.trim.top - 20, slot.trim.w, 20)
    c.setFillColor(colour(team.colour))
    c.rect(band.x, band.y, band.w, band.h, stroke=0, fill=1)
    ink = ink_on(team.colour)
    text(c, t(lang, "join_title"), box.x, band.top - 7, 9 * PT, FONT, ink, width=box.w)
    text(c, name(team.label, lang), box.x, band.top - 15, 18 * PT, BOLD, ink, width=box.w)
    top = band.y - 3
    size, links = _link_layout(url, box.w - 4)
    link_h = 6.5 + len(links) * size * 1.25
    wifi_box, page_box, link_box, foot = geo.stack(Box(box.x, box.y, box.w, top - box.y), [None, None, link_h, 8],
                                                   gap=2.5)
    if wifi:
        ssid, password = wifi
        lines = [(8 * PT, BOLD, colon(lang, t(lang, "network"), ssid))]
        if password:
            lines.append((8 * PT, MONO, colon(lang, t(lang, "password"), password)))
        lines.append((8 * PT, FONT, t(lang, "join_scan")))
        _qr_panel(c, wifi_box, t(lang, "join_wifi"), wifi_payload(ssid, password), lines, lang)
    else:
        _qr_panel(c, wifi_box, t(lang, "join_wifi"), None, [(9 * PT, FONT, t(lang, "wifi_ask"))], lang)
    _qr_panel(c, page_box, t(lang, "join_page"), url, [(8 * PT, FONT, t(lang, "join_scan"))], lang)
    _typed_link(c, link_box, links, size, lang)
    paragraph(c, t(lang, "join_keep"), foot, 8 * PT, FONT, INK, smallest=8 * PT)


def _typed_link(c, box: Box, lines: list, size: float, lang: str) -> None:
    """The team page's address to type, across the card in a monospaced face, in a frame.

    One line when it fits; else broken after a slash, with a note that says how many lines there
    are to type one after the other (the card said "on one line" above an address on two).
    """
    rounded(c, box, 1.5, fill=white, stroke=INK, width=0.3)
    label = t(lang, "join_type") if len(lines) == 1 else t(lang, "join_type_joined", n=len(lines))
    text(c, label, box.x + 2, box.top - 3.6, 8 * PT, FONT, INK, width=box.w - 4)
    y = box.top - 5.2 - size * 0.85
    for line in lines:
        text(c, line, box.x + 2, y, size, MONO, INK)
        y -= size * 1.25


def render_join(config, urls: dict, lang: str | None = None, wifi: tuple | None = None, paper: str = "a4") -> bytes:
    """Join cards for every team in `urls` ({team: phone page URL}), four to an A4 (or Letter) sheet."""
    lang = lang or config.language
    unknown = sorted(set(urls) - set(config.teams))
    if unknown:
        raise ValueError(f"no such team in the config: {', '.join(unknown)}")
    c, buf = new_canvas(f"{name(config.title, lang)} - join cards")
    size = geo.paper_size(paper)
    sheet = geo.impose(size, (JOIN_CARD[0], CARD_HEIGHT[paper]), bleed=0, gutter=6, margin=7, safe=5)
    teams = [team for team in config.teams if team in urls]
    for start in range(0, len(teams), sheet.count):
        chunk = teams[start:start + sheet.count]
        with page(c, size):
            for team_id, slot in zip(chunk, sheet.slots):
                c.setStrokeColor(GREY)
                c.setLineWidth(0.2)
                c.rect(slot.trim.x, slot.trim.y, slot.trim.w, slot.trim.h, stroke=1, fill=0)
                draw_join_card(c, config, team_id, slot, urls[team_id], wifi, lang)
            cut_marks(c, geo.cut_marks(geo.first(sheet, len(chunk))))
    return finish(c, buf)


def render_poster(config, display_url: str, lang: str | None = None, paper: str = "a4") -> bytes:
    """An A4 (or Letter) landscape poster: the big-screen address in large type and as a QR code."""
    lang = lang or config.language
    c, buf = new_canvas(f"{name(config.title, lang)} - big screen")
    size = geo.landscape(geo.paper_size(paper))
    area = Box(12, 12, size[0] - 24, size[1] - 24)
    with page(c, size):
        header(c, Box(area.x, area.top - 16, area.w, 16), BANK_COLOUR, name(config.title, lang), "")
        text(c, t(lang, "poster_title"), area.x, area.top - 29, 30 * PT, BOLD, INK, width=area.w)
        text(c, t(lang, "poster_open"), area.x, area.top - 39, 16 * PT, FONT, INK, width=area.w)
        rounded(c, Box(area.x, area.top - 64, area.w, 20), 3, fill=white, stroke=INK, width=0.6)
        text(c, display_url, area.x + area.w / 2, area.top - 57, 40 * PT, MONO, INK, "centre", width=area.w - 10)
        code = min(area.top - 72 - area.y, 110)
        qr(c, display_url, area.x + (area.w - code) / 2, area.y + 2, code, quiet=3)
    return finish(c, buf)
