"""Trias print: the set-up map of a seeded game, the score sheet and the player aid.

The map is checked twice against `trias.new_game`: by its words (each place's landscape
above its q,r label) and by its pixels (pdftoppm renders it; every hex has its
landscape's colour). Every page: reproducible bytes, no type under 8 pt, every word at
least 10 mm from the sheet's edge and none over another.
"""

from __future__ import annotations

import io
import itertools
import subprocess
from collections import Counter
from pathlib import Path

import pytest
from printkit import Rendered, all_text, follows, page_count, page_sizes_mm, pages_text, pypdf, text_boxes

import trias
from printables.geometry import A3, A4, Box, landscape
from printables.trias_setup import FILL, SAFE_MARGIN, WATER, hex_layout, map_places, render_setup, setup_map
from printables.trias_sheets import render_aid, render_score_sheet, share_table
from printables.trias_words import WORDS
from trias.hexes import label
from trias.scoring import mass_points

SMALLEST_PT = 8.0
CONFIG = Path(__file__).resolve().parents[2] / "config.toml"


def documents():
    """Every Trias document in both languages, as (name, its renderer): rendered when a test asks for it
    (printkit.Rendered), not at collection."""
    for lang in ("fr", "en"):
        yield f"setup-4p-a4-{lang}", lambda lang=lang: render_setup(4, 7, lang)
        yield f"setup-5p-a3-{lang}", lambda lang=lang: render_setup(5, 11, lang, "a3")
        yield f"setup-2p-a4-{lang}", lambda lang=lang: render_setup(2, 3, lang)
        yield f"score-sheet-5-{lang}", lambda lang=lang: render_score_sheet(lang)
        yield f"score-sheet-2-{lang}", lambda lang=lang: render_score_sheet(lang, 2, ["Black", "White"])
        yield f"aid-{lang}", lambda lang=lang: render_aid(lang)


DOCUMENTS = Rendered(documents())


def font_sizes(data: bytes) -> list:
    """(size in points as printed, text) of every string of a PDF."""
    found = []
    for pdf_page in pypdf.PdfReader(io.BytesIO(data)).pages:
        def visit(text, cm, tm, font, size):
            if text.strip() and font is not None:
                scale = (cm[0] ** 2 + cm[1] ** 2) ** 0.5 * ((tm[0] ** 2 + tm[1] ** 2) ** 0.5 or 1)
                found.append((size * scale, text.strip()))
        pdf_page.extract_text(visitor_text=visit)
    return found


def placed_landscapes(data: bytes, lang: str) -> dict:
    """{"q,r": landscape} read off the map: each coordinate label and the landscape name above it."""
    names = {WORDS[lang][k]: k for k in ("mountain", "steppe", "woods", "pole", "water")}
    boxes = text_boxes(data)
    labels = [(t, b) for t, b, _ in boxes if t.replace("-", "").replace(",", "").isdigit() and "," in t]
    kinds = [(names[t], b) for t, b, _ in boxes if t in names]
    found = {}
    for text, (x0, y0, x1, _) in labels:
        cx = (x0 + x1) / 2
        above = [(by0 - y0, kind) for kind, (bx0, by0, bx1, _) in kinds if abs((bx0 + bx1) / 2 - cx) < 1 and by0 > y0]
        found[text] = min(above)[1]
    return found


@pytest.mark.parametrize("players, seed", [(4, 7), (3, 12345), (5, 2), (2, 3)])
def test_t3_t21_the_map_shows_every_tile_of_new_game_for_the_seed_at_its_place(players, seed):
    state, events = trias.new_game(players, seed)
    expected = {label(p): kind for p, kind in state.tiles.items()}
    expected.update({label(p): WATER for p in events[0]["water"]})
    assert placed_landscapes(render_setup(players, seed, "en"), "en") == expected
    assert len(expected) == (19 if players == 2 else 37)  # T1, T21: every place of the rings, water included


def test_t3_a_different_seed_gives_a_different_map():
    assert placed_landscapes(render_setup(4, 7, "fr"), "fr") != placed_landscapes(render_setup(4, 8, "fr"), "fr")


def test_t3_the_map_names_the_two_tiles_left_in_the_box_and_the_water():
    setup = setup_map(4, 7)
    text = all_text(render_setup(4, 7, "en"))
    left = Counter(setup.unused)
    assert "Left in the box, unseen: " + ", ".join(f"{n} × {k}" for k, n in sorted(left.items())) + "." in text
    assert "2 tiles" in text and "water for the whole game" in text
    assert "4 players · seed 7" in text


def _pixels(data: bytes, tmp_path, dpi: int = 40):
    """The first page as an RGB image (pdftoppm, the renderer a reader's printer driver is closest to)."""
    image = pytest.importorskip("PIL.Image")
    from needs import require

    require("pdftoppm")
    (tmp_path / "map.pdf").write_bytes(data)
    subprocess.run(["pdftoppm", "-r", str(dpi), "-png", "-singlefile", str(tmp_path / "map.pdf"), str(tmp_path / "map")],
                   check=True)
    return image.open(tmp_path / "map.png").convert("RGB")


@pytest.mark.parametrize("players, seed, paper", [(4, 7, "a4"), (2, 3, "a3")])
def test_t2_t3_every_hex_is_printed_in_its_landscape_colour(tmp_path, players, seed, paper):
    """Rendered and looked at by the machine: the colour just above each hex's words is its landscape's."""
    size = A4 if paper == "a4" else A3
    setup = setup_map(players, seed)
    image = _pixels(render_setup(players, seed, "fr", paper), tmp_path)
    dots = image.width / size[0]  # pixels per mm
    content = Box(0, 0, *size).inset(SAFE_MARGIN)
    from printables.trias_setup import LEGEND_H

    radius, centres = hex_layout(map_places(players), Box(content.x, content.y + LEGEND_H, content.w, content.h - LEGEND_H - 10))
    for place, (x, y) in centres.items():
        px = image.getpixel((int(x * dots), int((size[1] - y - 0.62 * radius) * dots)))
        want = FILL[setup.places.get(place, WATER)]
        rgb = tuple(int(want[i:i + 2], 16) for i in (1, 3, 5))
        assert max(abs(a - b) for a, b in zip(px, rgb)) < 12, f"{place}: printed {px}, its landscape is {want}"


def test_the_set_up_map_fits_a4_and_a3_with_the_board_large():
    assert page_sizes_mm(render_setup(4, 7, "fr")) == [A4]
    assert page_sizes_mm(render_setup(4, 7, "fr", "a3")) == [A3]
    content = Box(0, 0, *A4).inset(SAFE_MARGIN)
    radius, _ = hex_layout(map_places(4), content)
    assert radius * 3 ** 0.5 > 25  # a hex wider than 25 mm: room for the name, the cubes and the coordinates


def test_a_stored_game_prints_its_own_board_and_never_its_seed(tmp_path):
    from bank.services.trias_games import TriasGames

    games = TriasGames(tmp_path / "trias")
    try:
        game = games.create([{"name": "Ana"}, {"name": "Ben"}, {"name": "Cy"}], seed=987654321)
        data = render_setup(lang="en", game=game.id, event=game.table.base[0])
    finally:
        games.close()
    assert placed_landscapes(data, "en") == placed_landscapes(render_setup(3, 987654321, "en"), "en")
    text = all_text(data)
    assert f"Game {game.id} · 3 players" in text and "987654321" not in text  # the seed gives the deck order


def test_t18_share_table_is_the_engines_own_arithmetic():
    rows = {row[0]: row[1:] for row in share_table()}
    assert rows[5] == [5, 3, 2, 1, 4, 3, 2]  # 5; 5/2=2.5 -> 3; 2.5/2 -> 2; 2.5/3 -> 1; 7.5/2 -> 4; 7.5/3 -> 3; 7.5/4 -> 2
    assert rows[1] == [1, 1, 1, 1, 1, 1, 1]
    assert all(rows[n][0] == n and rows[n][1] == mass_points(n, [3, 1])[1] for n in rows)


def test_t18_t19_score_sheet_has_a_row_per_land_mass_a_column_pair_per_player_and_the_tie_breaks():
    lines = pages_text(render_score_sheet("fr"))[0]
    for n in range(1, 6):
        assert f"Joueur {n}" in lines
    assert all(letter in lines for letter in "ABCDEFGHIJ")
    for words in ("Total des points", "Continent du pôle Sud : ne compte pas", "Gagnant(s)", "2 × 1er"):
        assert any(words in line for line in lines), words
    assert follows(lines, "Troupeaux en réserve", "(T19)") and follows(lines, "Continents occupés", "(T19)")
    english = all_text(render_score_sheet("en", 3, ["Black", "White"]))
    assert "Black" in english and "White" in english and "Player 3" in english and "Player 4" not in english
    assert "Every share is rounded up to a whole number." in english


def test_a_long_seat_name_is_cut_on_the_score_sheet_never_printed_under_8_pt():
    long = "Wolfgang Amadeus of the Southern Steppes"  # 40 characters, the longest a seat may have
    data = render_score_sheet("en", 5, [long] * 5)
    assert min(size for size, _ in font_sizes(data)) >= SMALLEST_PT - 0.01
    heads = [line for line in pages_text(data)[0] if line.startswith("Wolfgang")]
    assert len(heads) == 5 and all(h.endswith("…") and len(h) < len(long) for h in heads)


def test_score_sheet_refuses_a_table_trias_cannot_have():
    with pytest.raises(ValueError, match="2 to 5 players"):
        render_score_sheet("fr", 6)


def test_t9_t17_player_aid_is_one_page_per_language_with_the_action_costs():
    fr, en = all_text(render_aid("fr")), all_text(render_aid("en"))
    assert page_count(render_aid("fr")) == page_count(render_aid("en")) == 1
    assert "1 par pas" in fr and "4 points d'action (3 à deux joueurs, 2 au dernier tour de table)" in fr.replace("\n", " ")
    assert "1 a step" in en and "Capacity: mountain 2, steppe 3, woods 4, South Pole 3." in en.replace("\n", " ")
    for phase in ("1. Mandatory drift (T9-T11)", "2. Actions (T12, T13)", "3. Swimmers and crowding (T14)", "4. Draw (T15)"):
        assert phase in en


@pytest.mark.parametrize("name", sorted(DOCUMENTS))
def test_every_trias_page_is_reproducible_readable_and_clear_of_the_edge(name):
    data = DOCUMENTS[name]
    small = [(round(s, 2), t) for s, t in font_sizes(data) if s < SMALLEST_PT - 0.01]
    assert not small, f"type under {SMALLEST_PT} pt: {small[:5]}"
    for page, size in enumerate(page_sizes_mm(data)):
        safe = Box(0, 0, *size).inset(SAFE_MARGIN)
        placed = [(t, Box(x0, y0, x1 - x0, y1 - y0).inset(0.15)) for t, (x0, y0, x1, y1), up in text_boxes(data, page) if up]
        for text, box in placed:
            assert safe.contains(box), f"{text!r} is closer than {SAFE_MARGIN} mm to the sheet's edge"
        for (a, box_a), (b, box_b) in itertools.combinations(placed, 2):
            assert not box_a.overlaps(box_b), f"{a!r} overlaps {b!r}"


def test_trias_pdfs_are_byte_for_byte_reproducible():
    assert render_setup(4, 7, "fr") == render_setup(4, 7, "fr")
    assert render_score_sheet("en", 4) == render_score_sheet("en", 4)
    assert render_aid("fr") == render_aid("fr")
    assert page_sizes_mm(render_score_sheet("fr")) == [landscape(A4)]


def test_terrabank_print_kind_trias_writes_the_three_documents(tmp_path, capsys):
    from bank.cli.main import main

    out = tmp_path / "print"
    code = main(["--config", str(CONFIG), "--db", str(tmp_path / "none.db"), "print", "--kind", "trias",
                 "--seed", "7", "--players", "3", "--lang", "en", "--out", str(out)])
    assert code == 0
    assert sorted(p.name for p in out.iterdir()) == ["trias-aid-en.pdf", "trias-score-sheet-en.pdf",
                                                     "trias-setup-3p-seed-7-a4-en.pdf"]
    assert (out / "trias-setup-3p-seed-7-a4-en.pdf").read_bytes() == render_setup(3, 7, "en")
    assert not (tmp_path / "none.db").exists()  # no bank game is needed, nor made


def test_terrabank_print_kind_trias_game_prints_the_stored_games_board_and_names(tmp_path, capsys):
    from bank.cli.main import main
    from bank.services.trias_games import TriasGames, default_folder

    db = tmp_path / "bank.db"
    games = TriasGames(default_folder(db))
    try:
        game = games.create([{"name": "Ana"}, {"name": "Ben"}, {"name": "Cy"}, {"name": "Dee"}], seed=5)
        board = render_setup(lang="fr", game=game.id, event=game.table.base[0])
    finally:
        games.close()
    out = tmp_path / "print"
    assert main(["--config", str(CONFIG), "--db", str(db), "print", "--kind", "trias", "--game", game.id,
                 "--lang", "fr", "--out", str(out)]) == 0
    assert (out / f"trias-setup-{game.id}-a4-fr.pdf").read_bytes() == board
    assert (out / "trias-score-sheet-fr.pdf").read_bytes() == render_score_sheet("fr", 4, ["Ana", "Ben", "Cy", "Dee"])


def test_terrabank_print_an_unknown_trias_game_says_so_and_writes_nothing(tmp_path, capsys):
    from bank.cli.main import main

    code = main(["--config", str(CONFIG), "--db", str(tmp_path / "g.db"), "print", "--kind", "trias",
                 "--game", "abcdefgh", "--out", str(tmp_path / "print")])
    assert code == 2
    assert "there is no Trias game 'abcdefgh'" in capsys.readouterr().err
    assert not (tmp_path / "print").exists()
