"""Layout checks on the printed PDFs: no word over another, every word inside the printable area."""

from __future__ import annotations

import itertools

import pytest
from printkit import Rendered, page_sizes_mm, play_sample, text_boxes

from bank.game.config import load_config
from printables.boards import render_team_boards
from printables.commons import render_common
from printables.geometry import Box
from printables.join import render_join, render_poster
from printables.report import render_report

PRINTER_MARGIN = 4.0  # mm most printers cannot reach


def _documents():
    """(name, its renderer): rendered when a test asks for it (printkit.Rendered), not at collection."""
    from play import DEFAULT_CONFIG

    config = load_config(DEFAULT_CONFIG)
    urls = {t: f"http://192.168.4.1:5000/t/abcdefghijklmnop-{t}" for t in config.teams}
    for lang in ("fr", "en"):
        yield f"team-boards-{lang}", lambda lang=lang: render_team_boards(config, lang)
        yield f"shared-boards-{lang}", lambda lang=lang: render_common(config, lang)
        yield f"join-{lang}", lambda lang=lang: render_join(config, urls, lang, ("Terrabank field network",
                                                                                 "a-long-password-123"))
        yield f"poster-{lang}", lambda lang=lang: render_poster(config, "http://192.168.4.1:5000/display", lang)


DOCUMENTS = Rendered(_documents())


def words(data: bytes, page: int) -> list:
    """Upright strings of a page as boxes, shrunk a little so touching is not overlapping."""
    return [(text, Box(x0, y0, x1 - x0, y1 - y0).inset(0.15)) for text, (x0, y0, x1, y1), upright
            in text_boxes(data, page) if upright]


def check_page(data: bytes, page: int, size: tuple) -> None:
    """No two words overlap; every word is on the page, clear of the printer's margin."""
    placed = words(data, page)
    printable = Box(0, 0, *size).inset(PRINTER_MARGIN)
    for text, box in placed:
        assert printable.contains(box), f"page {page + 1}: {text!r} leaves the printable area"
    for (a, box_a), (b, box_b) in itertools.combinations(placed, 2):
        assert not box_a.overlaps(box_b), f"page {page + 1}: {a!r} overlaps {b!r}"


@pytest.mark.parametrize("name", sorted(DOCUMENTS))
def test_no_word_overlaps_another_or_leaves_the_page(name):
    data = DOCUMENTS[name]
    for page, size in enumerate(page_sizes_mm(data)[:4]):
        check_page(data, page, size)


def test_the_report_is_laid_out_cleanly(bank):
    play_sample(bank)
    for lang in ("fr", "en"):
        data = render_report(bank, lang)
        for page, size in enumerate(page_sizes_mm(data)):
            check_page(data, page, size)


EXTRA_TEAMS = '''
[[teams]]
id = "purple"
label = { fr = "Violets de la Lune", en = "Purple moon walkers" }
colour = "#8344b5"
resource = "fauna"

[[teams]]
id = "white"
label = { fr = "Blancs", en = "White" }
colour = "#f4f4f4"
resource = "water"
'''


def config_with_teams(keep: tuple, extra: str = ""):
    """config.toml with only the teams in `keep`, plus the [[teams]] blocks in `extra`."""
    from play import DEFAULT_CONFIG

    from bank.game.config import parse_config

    text = DEFAULT_CONFIG.read_text(encoding="utf-8")
    head, rest = text.split("[[teams]]", 1)
    blocks, tail = rest.split("# Roles (R9", 1)
    teams = [b for b in ("[[teams]]" + blocks).split("[[teams]]") if b.strip()]
    kept = "".join(f"[[teams]]{b}" for b in teams if any(f'id = "{t}"' in b for t in keep))
    return parse_config(head + kept + extra + "\n# Roles (R9" + tail)


@pytest.mark.parametrize("keep, extra", [(("blue", "green"), ""), (("blue", "yellow", "red", "green"), EXTRA_TEAMS)])
def test_r1_two_to_six_teams_print_cleanly(tmp_path, keep, extra):
    from printables.pack import build

    config = config_with_teams(keep, extra)
    urls = {t: f"http://h/t/{t}" for t in config.teams}
    written = build("all", tmp_path, config, "en", team_urls=urls, base="http://h")
    assert len(written) == 14  # cards, boards, rules, dice, bank sheets, shared A3 and A4 halves, score track
    # (A3 and A4 halves), rate sign, event sheet, bank-down page, join cards, poster
    for path in written:
        if "halves" in path.name:
            continue  # a half shows words cut at its edge on purpose
        data = path.read_bytes()
        for page, size in enumerate(page_sizes_mm(data)):
            check_page(data, page, size)
