"""Trias printables in Italian: the set-up map, the score sheet and the player aid
in the Italian rules' own terms, held to the Trias sheets' rules (tests/printables/test_print_trias.py): no type
under 8 pt, every word 10 mm clear of the edge and none over another, one page each.
"""

from __future__ import annotations

import itertools
import re

import pytest
from printkit import all_text, page_count, page_sizes_mm, text_boxes
from test_print_trias import SMALLEST_PT, font_sizes, placed_landscapes

import trias
from printables import trias_pack
from printables.geometry import Box
from printables.trias_setup import SAFE_MARGIN, WATER, render_setup
from printables.trias_sheets import render_aid, render_score_sheet
from trias.hexes import label

# French and English words of the sheets that Italian never uses: one of them printed is a leftover.
LEFTOVERS = re.compile(r"\b(tiles?|herds?|land mass|stock|players?|seed|tuiles?|troupeaux?|continent|joueurs?|"
                       r"graine|réserve|Mountain|Woods|Forêt|Montagne|Pôle|South Pole|Water|Eau)\b")


@pytest.fixture(scope="module")
def sheets():
    return {"setup-4p-a4": render_setup(4, 7, "it"), "setup-5p-a3": render_setup(5, 11, "it", "a3"),
            "setup-2p-a4": render_setup(2, 3, "it"), "score-sheet-5": render_score_sheet("it"),
            "score-sheet-2": render_score_sheet("it", 2, ["Nero", "Bianco"]), "aid": render_aid("it")}


@pytest.mark.parametrize("players, seed", [(4, 7), (2, 3)])
def test_t3_t21_the_italian_set_up_map_names_each_place_in_the_rules_terms(players, seed):
    data = render_setup(players, seed, "it")
    text = all_text(data)
    assert "Trias: preparazione" in text and f"{players} giocatori · seme {seed}" in text
    state, events = trias.new_game(players, seed)
    expected = {label(place): kind for place, kind in state.tiles.items()}
    expected.update({label(place): WATER for place in events[0]["water"]})
    assert placed_landscapes(data, "it") == expected  # "Montagna", "Steppa", "Bosco", "Polo Sud", "Acqua" over each q,r
    assert not LEFTOVERS.search(text), LEFTOVERS.search(text)


def test_the_italian_score_sheet_and_aid_speak_the_rules_terms():
    sheet = all_text(render_score_sheet("it", 3)).replace("\n", " ")
    assert "Trias: foglio dei punti (conteggio finale, T18)" in sheet
    assert "Continente del Polo Sud: non conta" in sheet and "Branchi in riserva (T19)" in sheet
    aid = all_text(render_aid("it")).replace("\n", " ")
    for phase in ("1. Deriva obbligatoria (T9-T11)", "2. Azioni (T12, T13)", "3. Nuotatori e sovrappopolazione (T14)",
                  "4. Pesca (T15)", "Conteggio intermedio (T16, non in due)"):
        assert phase in aid
    assert "Capacità: montagna 2, steppa 3, bosco 4, Polo Sud 3." in aid
    assert not LEFTOVERS.search(sheet) and not LEFTOVERS.search(aid)


@pytest.mark.parametrize("name", ["setup-4p-a4", "setup-5p-a3", "setup-2p-a4", "score-sheet-5", "score-sheet-2", "aid"])
def test_every_italian_sheet_is_one_page_readable_and_clear_of_the_edge(sheets, name):
    data = sheets[name]
    assert page_count(data) == 1
    small = [(round(s, 2), t) for s, t in font_sizes(data) if s < SMALLEST_PT - 0.01]
    assert not small, f"type under {SMALLEST_PT} pt: {small[:5]}"
    safe = Box(0, 0, *page_sizes_mm(data)[0]).inset(SAFE_MARGIN)
    placed = [(t, Box(x0, y0, x1 - x0, y1 - y0).inset(0.15)) for t, (x0, y0, x1, y1), up in text_boxes(data) if up]
    for text, box in placed:
        assert safe.contains(box), f"{text!r} is closer than {SAFE_MARGIN} mm to the sheet's edge"
    for (a, box_a), (b, box_b) in itertools.combinations(placed, 2):
        assert not box_a.overlaps(box_b), f"{a!r} overlaps {b!r}"


def test_the_print_pack_names_the_italian_files_and_refuses_a_language_it_does_not_print():
    names = [name for name, _ in trias_pack.documents("it", players=4, seed=7).values()]
    assert names == ["trias-setup-4p-seed-7-a4-it.pdf", "trias-score-sheet-it.pdf", "trias-aid-it.pdf"]
    with pytest.raises(ValueError, match="language must be one of fr, en, it, not 'de'"):
        trias_pack.documents("de")


def test_the_score_page_downloads_the_italian_set_up_map(tmp_path, config):
    from bank.web import create_app

    app = create_app({"DB": tmp_path / "web.db", "CONFIG": config, "TESTING": True})
    try:
        reply = app.test_client().get("/trias/print/setup.pdf?players=4&seed=7&lang=it")
        assert reply.status_code == 200
        assert "trias-setup-4p-seed-7-a4-it.pdf" in reply.headers["Content-Disposition"]
        assert "Trias: preparazione" in all_text(reply.get_data())
    finally:
        app.extensions["trias_games"].close()
        app.extensions["terrabank"].bank.close()
        app.extensions["terrabank"].access.close()
