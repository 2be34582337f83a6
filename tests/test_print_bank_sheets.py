"""Bank sheets: the summary follows config.toml; one paper ledger per team (print pack, item 5)."""

from play import config_with
from printables.bank_sheets import render_bank_sheets
from printkit import all_text, page_count, pages_text


def test_summary_then_one_ledger_per_team(config):
    pdf = render_bank_sheets(config, "en")
    assert page_count(pdf) == 1 + len(config.teams)
    pages = pages_text(pdf)
    assert any("Paper ledger - Blue" in line for line in pages[1])
    assert any(line.startswith("Start") for line in pages[1])


def test_summary_changes_with_a_cost_in_config():
    before = all_text(render_bank_sheets(config_with(), "en"))
    changed = config_with(("cost = { energy = 15, water = 10 }", "cost = { energy = 14, water = 10 }"))
    after = all_text(render_bank_sheets(changed, "en"))
    assert "Purification centre: 15 Energy, 10 Water" in before
    assert "Purification centre: 14 Energy, 10 Water" in after


def test_bank_sheets_are_reproducible_and_french_by_default(config):
    assert render_bank_sheets(config) == render_bank_sheets(config)
    assert "Banque : aide-mémoire" in all_text(render_bank_sheets(config))
