"""Bank sheets: a rules summary that runs the game from config.toml, and a paper ledger per team."""

import pytest
from play import config_with
from printables.bank_sheets import render_bank_sheets
from printkit import all_text, page_count, page_sizes_mm, pages_text


def test_summary_then_one_landscape_ledger_per_team(config):
    pdf = render_bank_sheets(config, "en")
    sizes = page_sizes_mm(pdf)
    assert sizes[-len(config.teams):] == [(297, 210)] * len(config.teams)
    ledger = pages_text(pdf)[-len(config.teams)]
    assert any("Paper ledger · Blue" in line for line in ledger)
    assert page_count(pdf) == 1 + len(config.teams)  # the whole summary on one A4 page


def _summary(config, lang="en") -> str:
    pdf = render_bank_sheets(config, lang)
    return " ".join(all_text(pdf).split("Paper ledger")[0].split()) if lang == "en" else " ".join(all_text(pdf).split())


def test_summary_says_what_every_building_does_r21_r22(config):
    text = _summary(config)
    assert "Power plant II: costs 10 Water, 10 Dioxygen, 10 Energy; needs Power plant I; later buildings and " \
           "animals cost 5 Energy less; +5 points." in text
    assert "Reserve: costs" in text and "later animals cost 5 Fauna less; +4 points." in text
    assert "*" not in text and "(10)" not in text  # no unexplained marks


def test_summary_has_start_stock_bonuses_trades_fights_and_tie_breaks(config):
    text = _summary(config)
    assert "Each team gets 5 tokens of its colour: Blue Water, Yellow Energy" in text  # R3
    assert "Example: Blue with the purification centre harvesting Water: 1 × 2 + 1 = 3." in text  # R4, R12
    assert "takes back 1 token of its choice" in text  # R17 forced swap
    assert "Pirate against Harvester: Pirate 1, Harvester 3." in text  # R18
    assert "The winning pirate takes every token the loser carries" in text  # R20
    assert "bonus at levels 2: +1 Fauna, 4: +1 die" in text  # R25 track bonuses
    assert "most animals, then most reputation" in text and "A tie left after that: shared win." in text  # R35
    assert "The game lasts 180 min of play in 2 sessions" in text  # R34


def test_summary_changes_with_a_cost_in_config():
    changed = config_with(("cost = { energy = 15, water = 10 }", "cost = { energy = 14, water = 10 }"))
    assert "Purification centre: costs 10 Water, 15 Energy" in _summary(config_with())
    assert "Purification centre: costs 10 Water, 14 Energy" in _summary(changed)


def test_ledger_keeps_the_starting_stock_apart_with_running_totals(config):
    ledger = pages_text(render_bank_sheets(config, "en"))[-4]
    assert ledger.count("±") == len(config.resources) + 1 and ledger.count("total") == len(config.resources) + 1
    i = ledger.index("Starting stock")
    assert ledger[i + 1:i + 8] == ["5", "0", "0", "0", "0", "0", "0"]  # Blue: 5 water, then reputation 0


def test_bank_sheets_are_reproducible_and_french_by_default(config):
    assert render_bank_sheets(config) == render_bank_sheets(config)
    assert "Banque : aide-mémoire" in all_text(render_bank_sheets(config))


def test_rules_summary_for_players_follows_the_config():
    from printables.rules_summary import render_rules_summary

    changed = config_with(("cap = 2", "cap = 3"), ('label = { fr = "Centrale I", en = "Power plant I" }',
                                                    'label = { fr = "Usine", en = "Factory" }'))
    text = " ".join(all_text(render_rules_summary(changed, "en")).split())
    assert "(at most 3 before: Factory)" in text
    assert page_count(render_rules_summary(changed, "fr")) == 1


@pytest.mark.parametrize("lang, words", [("fr", "Page pleine ou nouvelle panne : une autre copie de cette feuille"),
                                         ("en", "Page full or a new outage: another copy of this sheet")])
def test_a_blank_ledger_says_a_new_outage_takes_another_copy_numbered_in_its_box(config, lang, words):
    """Every blank ledger of the pack is sheet "0A" (Bleus'), "0B"...: taken again at the bank's second stop and
    typed as "feuille 0A", its lines 1, 2... were the first stop's lines 1, 2: the same move answered already
    booked (a harvest lost), another refused. The ledger said to number another copy for a full page only."""
    ledger = " ".join(" ".join(pages_text(render_bank_sheets(config, lang))[-4]).split())
    assert words in ledger and ("« feuille 0A/2 »" in ledger or "'sheet 0A/2'" in ledger)
