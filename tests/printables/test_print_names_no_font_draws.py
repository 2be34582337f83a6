"""A team name the print fonts cannot draw is never printed as nothing (printables/labels.py: name).

`config check` refuses a name no print font draws (Hebrew, Chinese...), but `serve`, `print` and the
state the bank writes by itself do not run the check. A game started with a team called "הנשרים" printed
that team with no name at all: a coloured cell with nothing in it on the state sheet the game goes on
with when the bank stops, "Registre papier · " on its ledger, a blank join card, a blank standings row.
Now such a sheet prints the label in another language the fonts draw ("The Eagles", which re-entry
reads back as well), else the characters they draw ("Les Pandas"), else "?". The web pages, drawn by a
browser, keep the name as written.
"""

from __future__ import annotations

import time

import pytest
from print_names_kit import config_with_teams
from printkit import all_text, missing_glyphs

from bank.services.bank import Bank
from bank.web.field.paper_syntax import Grammar, parse
from printables.bank_sheets import render_bank_sheets
from printables.join import render_join
from printables.report import render_report
from printables.state_data import snapshot
from printables.state_ledger import render_ledgers
from printables.state_sheet import render_state

NAMES = [("Les Écureuils 🐿", "The Squirrels 🐿"), ("הנשרים", "The Eagles"), ("Les Pandas 熊猫", "The Pandas 熊猫"),
         ("熊猫", "熊猫")]
PRINTED = ["Les Écureuils 🐿", "The Eagles", "Les Pandas", "?"]


@pytest.fixture(scope="module")
def sheets(tmp_path_factory):
    """Each sheet that names the teams, in French, rendered once for the module."""
    config = config_with_teams(NAMES)
    bank = Bank.create(tmp_path_factory.mktemp("names") / "g.db", config)
    bank.execute({"id": "c1", "type": "start_clock"})
    now = time.time()
    snap = snapshot(bank.state, config, now, bank.last_seq, now, chain_head=bank.head_at(bank.last_seq))
    urls = {team: f"http://192.168.4.1:5000/t/tok{team}" for team in config.teams}
    made = {"state": render_state(snap, config, "fr"), "ledgers": render_ledgers(snap, config, "fr"),
            "bank-sheets": render_bank_sheets(config, "fr"), "join": render_join(config, urls, "fr"),
            "report": render_report(bank, "fr")}
    bank.close()
    return config, made


@pytest.mark.parametrize("sheet", ["state", "ledgers", "bank-sheets", "join", "report"])
def test_a_name_no_font_draws_is_printed_in_a_language_they_draw_never_as_nothing(sheets, sheet):
    _, made = sheets
    text = " ".join(all_text(made[sheet]).split())
    assert missing_glyphs(made[sheet]) == []
    for printed in PRINTED[:3]:
        assert printed in text, (sheet, printed)
    if sheet in ("ledgers", "bank-sheets"):  # each ledger's title names its team, the fourth "?"
        title = "Registre de reprise · " if sheet == "ledgers" else "Registre papier · "
        assert [text.count(title + printed) for printed in PRINTED] == [1, 1, 1, 1], sheet


def test_what_the_sheets_print_for_such_a_name_is_read_back(sheets):
    config, _ = sheets
    grammar = Grammar(config, {}, "fr")
    assert parse("The Eagles récolte eau", grammar)["team"] == "yellow"
    assert parse("Les Pandas récolte eau", grammar)["team"] == "red"
