"""Print defects from the review of docs/print/*.png (polish pass): each test failed before its fix."""

from __future__ import annotations

import io

import pytest
from printkit import all_text, play_sample, pypdf
from reportlab.pdfbase.pdfmetrics import stringWidth

from printables.commons import render_common
from printables.geometry import MM
from printables.labels import t
from printables.report import render_report
from printables.report_moments import HEADS
from printables.rules_summary import render_rules_summary


def placed(data: bytes, page: int = 0) -> list:
    """(text, x, y, size, font) of every string drawn on a page, x and y in points on the page."""
    found = []

    def visit(value, cm, tm, font, size):
        if value.strip() and font is not None:
            x = cm[0] * tm[4] + cm[2] * tm[5] + cm[4]
            y = cm[1] * tm[4] + cm[3] * tm[5] + cm[5]
            scale = (cm[0] ** 2 + cm[1] ** 2) ** 0.5 * ((tm[0] ** 2 + tm[1] ** 2) ** 0.5 or 1)
            found.append((value.strip(), x, y, size * scale, font["/BaseFont"].lstrip("/")))

    pypdf.PdfReader(io.BytesIO(data)).pages[page].extract_text(visitor_text=visit)
    return found


# --- R31 in the players' words: "pas sur les pistes" read as "not on the tracks" ------------------

def test_rules_page_points_line_says_track_steps_not_not_on_the_tracks_r31(config):
    french = " ".join(all_text(render_rules_summary(config, "fr")).split())
    assert "pas sur les pistes" not in french
    assert "Bâtiments, avancées des pistes, animaux" in french
    assert "Buildings, track steps, animals" in " ".join(all_text(render_rules_summary(config, "en")).split())


# --- R26: the unlock label points at one level, not a span of levels ------------------------------

@pytest.mark.parametrize("lang", ["fr", "en"])
def test_unlock_label_stays_inside_the_unlock_levels_column_r26(config, lang):
    strings = placed(render_common(config, lang))
    label = t(lang, "unlock")
    level, after = str(config.animal_unlock_level), str(config.animal_unlock_level + 1)
    # Each level's number is drawn 2 mm inside its cell; the next column starts 1.6 mm after this one ends.
    left = min(x for s, x, *_ in strings if s == level) - 2 * MM - 1.3 * MM
    right = min(x for s, x, *_ in strings if s == after) - 2 * MM
    pieces = [(s, x, size, font) for s, x, _y, size, font in strings if s in label and not s.isdigit()]
    assert " ".join(s for s, *_ in pieces) == label
    for s, x, size, font in pieces:
        assert left <= x and x + stringWidth(s, font, size) <= right, (s, x, left, right)


# --- R31: the report's "where the points came from" table -----------------------------------------

def test_report_sources_table_shows_a_zero_total_and_one_header_size(bank):
    play_sample(bank)  # Yellow does nothing in the sample game: 0 points in the standings
    data = render_report(bank, "en")
    page = next(i for i in range(len(pypdf.PdfReader(io.BytesIO(data)).pages))
                if any(s == HEADS["en"]["title"] for s, *_ in placed(data, i)))
    strings = placed(data, page)
    title_y = next(y for s, _x, y, *_ in strings if s == HEADS["en"]["title"])
    yellow_y = next(y for s, _x, y, *_ in strings if s == "Yellow" and y < title_y)
    row = sorted((x, s) for s, x, y, *_ in strings if abs(y - yellow_y) < 1)
    assert row[-1][1] == "0", row
    heads = [v for k, v in HEADS["en"].items() if k != "title"]
    header_sizes = {round(size, 2) for s, _x, y, size, _f in strings if s in heads and title_y - 30 < y < title_y}
    assert len(header_sizes) == 1, header_sizes
    french = placed(render_report(bank, "fr"), page)
    fr_heads = [v for k, v in HEADS["fr"].items() if k != "title"]
    fr_title_y = next(y for s, _x, y, *_ in french if s == HEADS["fr"]["title"])
    assert len({round(size, 2) for s, _x, y, size, _f in french if s in fr_heads and fr_title_y - 30 < y < fr_title_y}) == 1
