"""Every name prints and types back, end to end: a generated team name (accents, an accent typed apart, ligatures,
an article, emoji joined by a zero-width joiner, a keycap, a skin tone, a flag, up to 30 characters) goes into a
game's config, through the sheets a game goes on with when the bank stops, drawn to PDF (the state sheet, the
continuation ledgers, the print pack's blank ledgers), and comes back out of each PDF's text as a facilitator
copies it from there: the paper re-entry (paper_syntax.py) reads it as that team, as a harvest's team, a fight's
defender and a trade's other team, and so does the command line's `terrabank team` (bank/cli/main.py).

test_paper_names_as_written.py types back the forms the sheets' own code says they print (name_lines.py);
test_print_fonts.py draws every name with no box. This reads the PDFs themselves. A name in a script no print
font draws (Hebrew, Arabic: right to left) is refused by `config check` (test_print_fonts.py), and printed as
another language's label if the game started without it (test_print_names_no_font_draws.py): not generated here.
"""

from __future__ import annotations

import subprocess
import time

from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from bank.cli.main import _team_named
from bank.errors import ConfigError
from bank.services.bank import Bank
from bank.web.field.paper_syntax import Grammar, parse
from printables.bank_sheets import render_bank_sheets
from printables.state_data import snapshot
from printables.state_ledger import render_ledgers
from printables.state_sheet import render_state
from needs import require
from printkit import missing_glyphs, pages_text
from test_paper_names_as_written import ARTICLE, WORD, config_with

GLUE = st.sampled_from([" ", "-", " — ", ", ", "’", " 🌱 ", " 👩‍🚀 ", " 👨‍👩‍👧 ", " 1️⃣ ", " 👍🏽 ", " 🇫🇷 ", " ❤️ "])


@st.composite
def team_name(draw):
    words = draw(st.lists(WORD, min_size=1, max_size=4))
    name = words[0]
    for word in words[1:]:
        name += draw(GLUE) + word
    name = (draw(ARTICLE) + name + draw(st.sampled_from(["", " 🌱", " 2️⃣", " 🧑🏿‍🚒"]))).strip()
    assume(len(name) <= 30)
    return name


def title(data: bytes, page: int, start: str, tmp_path) -> str:
    """A ledger's team name as a facilitator copies it from the PDF (its text as poppler's pdftotext gives it, as a
    viewer's copy does): after `start` on the title line, before what is drawn after it on that line, if anything."""
    (tmp_path / "sheet.pdf").write_bytes(data)
    text = subprocess.run(["pdftotext", "-f", str(page + 1), "-l", str(page + 1), str(tmp_path / "sheet.pdf"), "-"],
                          check=True, capture_output=True, text=True).stdout
    line = next(line for line in text.splitlines() if start in line)
    return line.split(start, 1)[1].split("suite de l'état")[0].strip()


def typed_back(grammar, config, team: str, written: str) -> dict:
    """The team each reader finds in `written`, by the role it plays in the move (another team the first)."""
    other = next(t.label["fr"] for t in config.teams.values() if t.id != team)
    return {"harvest": parse(f"{written} récolte eau 1", grammar)["team"],
            "defender": parse(f"{other} pirate 1 bat {written} récolteur 1", grammar)["defender_team"],
            "visited": parse(f"{other} commerce {written} donne 1 eau", grammar)["visited_team"],
            "cli": _team_named(config, written)}


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much,
                                                                  HealthCheck.function_scoped_fixture])
@given(st.lists(team_name(), min_size=2, max_size=3, unique=True))
def test_a_generated_name_prints_on_every_paper_sheet_and_types_back_from_its_pdf(tmp_path_factory, names):
    require("pdftotext")
    try:
        config = config_with(names)
    except ConfigError:  # two names paper cannot tell apart: refused with a sentence (test_paper_names_as_written.py)
        assume(False)
    tmp_path = tmp_path_factory.mktemp("names")
    bank = Bank.create(tmp_path / "g.db", config)
    try:
        snap = snapshot(bank.state, config, bank.now(), bank.last_seq, time.time(), bank.head_at(bank.last_seq),
                        bank.game_mark())
    finally:
        bank.close()
    ledgers, blank, state = render_ledgers(snap, config, "fr"), render_bank_sheets(config, "fr"), render_state(snap, config, "fr")
    grammar = Grammar(config, {}, "fr")
    for data in (ledgers, blank, state):
        assert missing_glyphs(data) == []  # no box: every character drawn
    blank_pages = [i for i, text in enumerate(pages_text(blank)) if any(p.startswith("Registre papier · ") for p in text)]
    assert len(blank_pages) == len(names)
    for index, (team, name) in enumerate(zip(config.teams, names)):
        written = {"continuation": title(ledgers, index, "Registre de reprise · ", tmp_path),
                   "blank": title(blank, blank_pages[index], "Registre papier · ", tmp_path)}
        for sheet, form in written.items():
            whole = "".join(config.teams[team].label["fr"].replace("\u00ad", "").split())  # a soft hyphen: not printed
            assert "".join(form.split()) == whole, (sheet, form, name)  # whole, in order, nothing cut
            assert typed_back(grammar, config, team, form) == dict.fromkeys(("harvest", "defender", "visited", "cli"), team), \
                (sheet, form, name)
