"""Team boards (A4) and the shared boards (A3, or two A4 halves), drawn from config.toml."""

from __future__ import annotations

import pytest
from play import config_with
from printkit import all_text, follows, page_count, page_sizes_mm, pages_text

from printables.boards import effects, render_team_boards, requirements
from printables.commons import render_common


@pytest.fixture(scope="module")
def boards_en():
    from bank.game.config import load_config
    from play import DEFAULT_CONFIG

    config = load_config(DEFAULT_CONFIG)
    return render_team_boards(config, "en"), render_common(config, "en")


def test_boards_are_byte_for_byte_reproducible(config):
    assert render_team_boards(config, "en") == render_team_boards(config, "en")
    assert render_common(config, "fr", halves=True) == render_common(config, "fr", halves=True)


def test_two_a4_boards_per_team_and_a_pair_for_the_bank(config, boards_en):
    team_boards, _ = boards_en
    assert page_count(team_boards) == 2 * (len(config.teams) + 1)
    assert set(page_sizes_mm(team_boards)) == {(210, 297)}
    pages = pages_text(team_boards)
    assert pages[0][:2] == ["Blue", "Team board 1: terraforming and buildings"]
    assert pages[1][:2] == ["Blue", "Team board 2: animals"]
    assert pages[-2][0] == "Bank's copy"


def test_common_boards_on_a3_or_two_a4_halves(config, boards_en):
    _, common = boards_en
    assert page_sizes_mm(common) == [(420, 297), (420, 297)]
    halves = render_common(config, "en", halves=True)
    assert page_sizes_mm(halves) == [(210, 297)] * 4


def test_r21_buildings_with_cost_needs_effects_and_reputation(boards_en):
    board_1 = pages_text(boards_en[0])[0]
    assert follows(board_1, "Power plant II", "10", "10", "10", "Power plant I", "later buildings and animals cost 5", "Energy less", "+5")
    assert follows(board_1, "Laboratory", "8", "8", "8", "10", "25", "3 animals")
    assert "At most 2 buildings until you own one that lifts the limit." in board_1


def test_r12_r13_building_effects_in_words(config):
    assert effects(config, config.buildings["purification_centre"], "en") == ["Water harvest doubled"]
    assert effects(config, config.buildings["reserve"], "fr") == ["les animaux achetés ensuite coûtent 5 Faune de moins"]
    assert effects(config, config.buildings["laboratory"], "en") == ["1 bonus die per harvested token", "6 bonus dice when built"]
    assert effects(config, config.buildings["power_plant_1"], "fr") == ["se construit toujours", "lève la limite de bâtiments"]
    assert requirements(config, config.buildings["greenhouse"], "en") == "-"


def test_r21_a_changed_cost_changes_the_boards():
    changed = config_with(("cost = { energy = 25, fauna = 10", "cost = { energy = 27, fauna = 10"))
    board_1 = pages_text(render_team_boards(changed, "en"))[0]
    assert follows(board_1, "Laboratory", "8", "8", "8", "10", "27", "3 animals")


def test_r30_a_changed_animal_cost_changes_the_boards():
    changed = config_with(("cost = { fauna = 6, flora = 4, energy = 5 }", "cost = { fauna = 6, flora = 4, energy = 9 }"))
    team_boards = pages_text(render_team_boards(changed, "en"))
    assert follows(team_boards[1], "Sheep", "common", "4", "6", "9", "+3")
    assert follows(pages_text(render_common(changed, "en"))[1], "Sheep", "+3", "4", "6", "9")


def test_r27_track_icons_on_team_and_shared_boards(boards_en):
    team_boards, common = boards_en
    assert follows(pages_text(team_boards)[0], "Phytosphere", "One step: 6 Flora, +1 reputation", "Level 2", "1", "+1 Fauna")
    assert follows(pages_text(common)[0], "Start", "1", "2", "1", "+1 Fauna", "3", "4", "1", "+1 die")


def test_r27_a_changed_icon_changes_the_boards():
    changed = config_with(("icons = { 2 = { fauna = 1 }", "icons = { 2 = { joker = 3, dice = 1 }"))
    team_boards, common = render_team_boards(changed, "en"), render_common(changed, "en")
    assert follows(pages_text(team_boards)[0], "Phytosphere", "One step: 6 Flora, +1 reputation", "Level 2", "3", "1", "+3 Joker, +1", "die")
    assert follows(pages_text(common)[0], "2", "3", "1", "+3 Joker, +1 die")


def test_r26_unlock_level_is_marked_and_follows_the_config(boards_en):
    assert "Animals on sale when every track reaches this level" in " ".join(all_text(boards_en[1]).split())
    changed = config_with(("animal_unlock_level = 4", "animal_unlock_level = 5"))
    assert "Animals on sale once every track reaches level 5." in all_text(render_common(changed, "en"))


def test_r28_r29_common_animals_have_a_slot_per_team_unique_ones_a_single_slot(config, boards_en):
    animals = pages_text(boards_en[1])[1]
    assert follows(animals, "Sheep", "+3", "4", "6", "5", "Blue", "Yellow", "Red", "Green")
    assert follows(animals, "Unique animals: one in the whole game", "Fox", "+6")
    assert animals.count("Blue") == len([a for a in config.animals.values() if a.kind == "common"])


def test_french_boards_by_default(config):
    text = all_text(render_team_boards(config))
    assert "Centrale II" in text and "Eau : récolte doublée" in text and "…" not in text
