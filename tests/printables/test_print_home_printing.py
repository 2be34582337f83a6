"""Printed at home and read outdoors: halves, tabs, rulers, QR quiet zones, card icons and backs."""

from __future__ import annotations

import subprocess

import pytest
from needs import needs
from printkit import all_text, text_boxes

from printables import cards, drawing
from printables.boards import render_team_boards
from printables.commons import AREA, render_common
from printables.dice import render_dice
from printables.drawing import qr_quiet, qr_runs
from printables.geometry import A4, card_sheet, back_slots


@pytest.mark.parametrize("lang, first, second", [
    ("en", "1/2 · left half, on top", "2/2 · right half, underneath"),
    ("fr", "1/2 · moitié gauche, posée dessus", "2/2 · moitié droite, dessous"),
])
def test_each_a4_half_says_which_it_is_and_which_goes_on_top_inside_the_page(config, lang, first, second):
    halves = render_common(config, lang, halves=True)
    for page, start in ((0, first), (1, second)):
        footers = [(text, box) for text, box, _ in text_boxes(halves, page) if text.startswith(start[:3])]
        assert footers and footers[0][0].startswith(start)
        x0, y0, x1, y1 = footers[0][1]
        assert 6 <= x0 and x1 <= A4[0] - 6 and y0 >= 4  # inside what a printer prints, not cut at the edge


def test_the_unlock_tab_stays_under_the_tracks_title_bar(config):
    a3 = render_common(config, "en")
    bar_bottom = AREA.top - 16
    # The tab's first line (its words wrap inside the level's column: "Animals on sale / when all ...").
    tab = [box for text, box, _ in text_boxes(a3, 0) if text == "Animals on sale"]
    assert tab and tab[0][3] <= bar_bottom  # the tab's words end below the title bar


def test_role_cards_and_dice_carry_a_100_mm_ruler(config):
    assert "100 mm: check with a ruler" in all_text(cards.render_cards(config, "en"))
    dice = all_text(render_dice(config, "fr"))
    assert dice.count("100 mm : vérifiez à la règle") == 2  # the nets and the stickers


def test_qr_codes_get_a_quiet_zone_of_4_modules_whatever_is_asked(monkeypatch):
    drawn = []

    class Canvas:
        def setFillColor(self, colour):
            pass

        def rect(self, x, y, w, h, **kw):
            drawn.append((x, y, w, h))

        def beginPath(self):
            return type("P", (), {"rect": lambda *a: None})()

        def drawPath(self, *a, **kw):
            pass

    payload = "terrabank:card:blue:harvester-1"
    count = qr_runs(payload)[1]
    drawing.qr(Canvas(), payload, 20, 20, 15)  # no margin asked: the white grows 4 modules past the code
    x, y, w, h = drawn[0]
    assert 20 - x == pytest.approx(4 * 15 / count) == pytest.approx(qr_quiet(payload, 15))
    drawn.clear()
    drawing.qr(Canvas(), payload, 20, 20, 15, quiet=1)  # a 1 mm margin: the code shrinks inside the same footprint
    x, y, w, h = drawn[0]
    assert (x, w) == (pytest.approx(19), pytest.approx(17))  # nothing around the footprint is covered
    size = w / (1 + 8 / count)
    assert (w - size) / 2 == pytest.approx(4 * size / count)  # and the white is 4 of its modules


def test_r9_every_role_card_shows_its_role_icon(config, monkeypatch):
    seen = []
    monkeypatch.setattr(cards, "role_icon", lambda c, role, *a: seen.append(role.id))
    cards.render_cards(config, "en")
    assert sorted(set(seen)) == sorted(config.roles) and len(seen) == len(config.teams) * len(cards.card_ids(config))


def test_r34_r35_the_team_boards_end_box_says_time_up_too(config):
    text = " ".join(all_text(render_team_boards(config, "en")).split())
    assert "End: after 180 min of play (most reputation wins), or terraforming complete" in text


@needs("pdftoppm")
def test_the_card_backs_code_sits_on_white_on_the_team_colour(config, tmp_path):
    """Blue back: the QR code's white square shows its edge on the team colour
    (the backs carry each card's code where the six tokens were)."""
    from PIL import Image

    pdf = tmp_path / "cards.pdf"
    pdf.write_bytes(cards.render_cards(config, "en"))
    subprocess.run(["pdftoppm", "-r", "150", "-png", "-f", "2", "-l", "2", "-singlefile", str(pdf),
                    str(tmp_path / "back")], check=True)
    image = Image.open(tmp_path / "back.png").convert("RGB")
    scale = image.width / A4[0]
    slot = back_slots(card_sheet())[0]
    s = slot.safe
    x, y, size = cards.qr_place(slot)
    inside = image.getpixel((round((x - 1.5) * scale), round((A4[1] - y - size / 2) * scale)))
    outside = image.getpixel((round((s.x + 1) * scale), round((A4[1] - y - size / 2) * scale)))
    assert min(inside) > 240, f"no white square around the card's code: {inside}"
    assert min(outside) < 200, f"the back is not in the team colour: {outside}"
