"""Join cards (Wi-Fi and the team's phone page, as QR codes) and the big-screen poster."""

from __future__ import annotations

from reportlab.lib.colors import white

from . import geometry as geo
from .boards import BANK_COLOUR, header
from .drawing import (BOLD, FONT, GREY, INK, PT, break_anywhere, colour, cut_marks, finish, ink_on,
                      new_canvas, page, paragraph, qr, rounded, text)
from .geometry import A4, Box
from .labels import colon, name, t

JOIN_CARD = (90.0, 130.0)  # four to an A4 sheet, big enough for two QR codes side by side with text
QR_SIZE = 34.0


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
        qr(c, payload, body.x + 1.5, body.top - 1.5 - QR_SIZE, QR_SIZE, quiet=1.5)
        words = Box(body.x + QR_SIZE + 5, body.y, body.w - QR_SIZE - 5, body.h)
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
    wifi_box, page_box, foot = geo.stack(Box(box.x, box.y, box.w, top - box.y), [None, None, 8], gap=3)
    if wifi:
        ssid, password = wifi
        lines = [(8 * PT, BOLD, colon(lang, t(lang, "network"), ssid))]
        if password:
            lines.append((8 * PT, FONT, colon(lang, t(lang, "password"), password)))
        lines.append((8 * PT, FONT, t(lang, "join_scan")))
        _qr_panel(c, wifi_box, t(lang, "join_wifi"), wifi_payload(ssid, password), lines, lang)
    else:
        _qr_panel(c, wifi_box, t(lang, "join_wifi"), None, [(9 * PT, FONT, t(lang, "wifi_ask"))], lang)
    _qr_panel(c, page_box, t(lang, "join_page"), url,
              [(8 * PT, FONT, t(lang, "join_scan")), (8 * PT, FONT, t(lang, "join_type")), (8 * PT, BOLD, url)], lang)
    paragraph(c, t(lang, "join_keep"), foot, 8 * PT, FONT, INK, smallest=8 * PT)


def render_join(config, urls: dict, lang: str | None = None, wifi: tuple | None = None) -> bytes:
    """Join cards for every team in `urls` ({team: phone page URL}), four to an A4 sheet."""
    lang = lang or config.language
    unknown = sorted(set(urls) - set(config.teams))
    if unknown:
        raise ValueError(f"no such team in the config: {', '.join(unknown)}")
    c, buf = new_canvas(f"{name(config.title, lang)} - join cards")
    sheet = geo.impose(A4, JOIN_CARD, bleed=0, gutter=6, margin=7, safe=5)
    teams = [team for team in config.teams if team in urls]
    for start in range(0, len(teams), sheet.count):
        chunk = teams[start:start + sheet.count]
        with page(c, A4):
            for team_id, slot in zip(chunk, sheet.slots):
                c.setStrokeColor(GREY)
                c.setLineWidth(0.2)
                c.rect(slot.trim.x, slot.trim.y, slot.trim.w, slot.trim.h, stroke=1, fill=0)
                draw_join_card(c, config, team_id, slot, urls[team_id], wifi, lang)
            cut_marks(c, geo.cut_marks(geo.first(sheet, len(chunk))))
    return finish(c, buf)


def render_poster(config, display_url: str, lang: str | None = None) -> bytes:
    """An A4 landscape poster: the big-screen address in large type and as a QR code."""
    lang = lang or config.language
    c, buf = new_canvas(f"{name(config.title, lang)} - big screen")
    size = geo.landscape(A4)
    area = Box(12, 12, size[0] - 24, size[1] - 24)
    with page(c, size):
        header(c, Box(area.x, area.top - 16, area.w, 16), BANK_COLOUR, name(config.title, lang), "")
        text(c, t(lang, "poster_title"), area.x, area.top - 29, 30 * PT, BOLD, INK, width=area.w)
        text(c, t(lang, "poster_open"), area.x, area.top - 39, 16 * PT, FONT, INK, width=area.w)
        rounded(c, Box(area.x, area.top - 64, area.w, 20), 3, fill=white, stroke=INK, width=0.6)
        text(c, display_url, area.x + area.w / 2, area.top - 57, 40 * PT, BOLD, INK, "centre", width=area.w - 10)
        code = min(area.top - 72 - area.y, 110)
        qr(c, display_url, area.x + (area.w - code) / 2, area.y + 2, code, quiet=3)
    return finish(c, buf)
