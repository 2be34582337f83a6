"""Role cards: content from config.toml, QR payloads, duplex sheets, reproducible bytes."""

from __future__ import annotations

import pytest
from play import config_with
from printkit import all_text, follows, page_count, page_sizes_mm, pages_text, scan_qr_codes, text_boxes

from printables import cards
from printables.cards import card_ids, fight_rows, render_cards, wait_lines
from printables.drawing import INK, ink_on
from printables.geometry import Box, card_sheet, grid_box


@pytest.fixture(scope="module")
def pdf_en():
    from play import DEFAULT_CONFIG

    from bank.game.config import load_config

    return render_cards(load_config(DEFAULT_CONFIG), "en")


def test_cards_pdf_is_byte_for_byte_reproducible(config):
    assert render_cards(config, "en") == render_cards(config, "en")


def test_r9_each_team_has_its_five_cards_and_the_optional_pirate(config):
    assert card_ids(config) == ["harvester-1", "harvester-2", "merchant-1", "builder-1", "pirate-1", "pirate-2"]
    assert cards.is_optional(config, "pirate-2") and not cards.is_optional(config, "pirate-1")


def test_one_a4_sheet_of_fronts_and_one_of_backs_per_team(config, pdf_en):
    assert page_count(pdf_en) == 2 * len(config.teams)
    assert set(page_sizes_mm(pdf_en)) == {(210, 297)}


def test_fronts_show_team_role_and_strength(pdf_en):
    blue_front = pages_text(pdf_en)[0]
    assert follows(blue_front, "Harvester", "Blue · no. 1", "1", "Strength")
    assert follows(blue_front, "Builder", "Blue · no. 1", "2", "Strength")
    assert follows(blue_front, "Pirate", "Blue · optional", "3", "Strength")


@pytest.mark.parametrize("lang, number", [("fr", "n°"), ("en", "no.")])
def test_a_cards_number_stays_with_its_no_when_the_team_name_fills_the_line(lang, number):
    """"👩‍🌾 Les Fermières · n° 1" fills the owner line: "n°" ended it and the card's number, what a ledger line
    names ("Récolteur 1"), went alone under it. The number now goes on with its "n°"."""
    from print_names_kit import config_with_teams

    config = config_with_teams([("👩‍🌾 Les Fermières", "👩‍🌾 The Farmers"), ("Bleus", "Blue")])
    lines = [line.strip() for page in pages_text(render_cards(config, lang)) for line in page]
    assert not [line for line in lines if line.endswith(number)]
    assert f"{number} 1" in lines and f"{number} 2" in lines


def test_language_defaults_to_the_config_and_can_be_chosen(config):
    french = all_text(render_cards(config))
    assert "Récolteur" in french and "Manches à gagner" in french
    assert "Harvester" not in french


def test_an_unknown_language_is_refused(config):
    with pytest.raises(ValueError, match="fr, en"):
        render_cards(config, "de")


def test_r18_rounds_to_win_from_config_with_everyone_fights_marked(config, pdf_en):
    rows = {other: (mine, theirs, star) for other, mine, theirs, star in fight_rows(config, "pirate")}
    assert rows == {"harvester": (1, 3, False), "merchant": (1, 3, False), "builder": (1, 2, False), "pirate": (2, 2, False)}
    builder = {other: (mine, theirs, star) for other, mine, theirs, star in fight_rows(config, "builder")}
    assert builder["pirate"] == (2, 1, False) and builder["harvester"] == (1, 2, True)
    front = pages_text(pdf_en)[0]
    assert follows(front, "against Builder *", "2", "1")  # a harvester against a builder
    assert "* only with 'everyone fights'" in front


def test_r18_a_changed_fight_number_changes_the_cards():
    changed = config_with(('roles = ["pirate", "builder"]\nrounds = [1, 2]', 'roles = ["pirate", "builder"]\nrounds = [1, 7]'))
    front = pages_text(render_cards(changed, "en"))[0]
    assert follows(front, "against Builder", "1", "7")  # printed on the pirate
    assert follows(front, "against Pirate", "7", "1")  # printed on the builder


def test_r19_cooldowns_from_config(config):
    pirate, harvester = config.roles["pirate"], config.roles["harvester"]
    assert wait_lines(config, pirate, "en", False) == ["Base rule: won 30 s, lost 60 s"]
    assert wait_lines(config, harvester, "en", True) == ["Base rule: none", "*: won 30 s, lost at once"]
    assert wait_lines(config, harvester, "fr", True) == ["Règle de base\u00a0: aucune", "*\u00a0: gagné 30 s, perdu aussitôt"]


def test_r19_a_changed_cooldown_changes_the_cards():
    changed = config_with(("pirate_loses = 60", "pirate_loses = 75"))
    assert "Base rule: won 30 s, lost 75 s" in all_text(render_cards(changed, "en"))


def test_r9_second_pirate_card_shows_its_price():
    changed = config_with(("second_pirate_cost = { energy = 5, fauna = 5 }", "second_pirate_cost = { energy = 8, fauna = 5 }"))
    front = pages_text(render_cards(changed, "en"))[0]
    assert follows(front, "Optional card, bought at the bank:", "5", "8")
    assert "pirate-2" not in all_text(render_cards(changed, "fr"))  # no config id on a card (item 18)


def test_qr_codes_name_team_and_card(config, monkeypatch):
    seen = []
    monkeypatch.setattr(cards, "qr", lambda c, payload, *a, **k: seen.append(payload))
    render_cards(config, "en")
    assert len(seen) == len(config.teams) * 6
    # In capitals (QR's compact alphanumeric mode); the console's scanner reads them without regard to case.
    assert seen[0] == "TERRABANK:CARD:BLUE:HARVESTER-1"
    assert "TERRABANK:CARD:YELLOW:PIRATE-2" in seen


def test_no_card_text_is_cut_short(config, pdf_en):
    assert "…" not in all_text(pdf_en) and "…" not in all_text(render_cards(config, "fr"))


def test_dark_text_on_the_light_yellow_team(config):
    assert ink_on(config.teams["yellow"].colour) == INK
    assert ink_on(config.teams["blue"].colour) != INK


def test_printed_qr_codes_scan_back_to_their_payloads(config, pdf_en, tmp_path):
    scanned = [code.lower() for code in scan_qr_codes(pdf_en, tmp_path, page=4)]  # yellow's backs carry the codes
    assert sorted(scanned) == sorted(f"terrabank:card:yellow:{card}" for card in card_ids(config))


@pytest.mark.parametrize("lang", ["fr", "en"])
def test_every_word_on_a_card_stays_inside_its_safe_zone(config, lang):
    sheet, pdf = card_sheet(), render_cards(config, lang)
    for page in (0, 1):  # a front sheet and its backs
        for text, (x0, y0, x1, y1), upright in text_boxes(pdf, page):
            if not upright:
                continue  # the printing note written up the left margin
            word = Box(x0, y0, x1 - x0, y1 - y0)
            assert any(slot.safe.inset(-0.01).contains(word) for slot in sheet.slots), f"{text!r} at {word}"


def test_the_margin_note_and_the_ruler_stay_off_the_cards(pdf_en):
    grid = grid_box(card_sheet())
    notes = [box for text, box, upright in text_boxes(pdf_en, 0) if not upright]
    # The baselines run up the margins: the printing note on the left, the ruler's words on the right.
    assert len(notes) == 2 and all(x0 < grid.x - 10 or x0 > grid.right + 10 for x0, y0, x1, y1 in notes)
