"""The game-state sheet, the continuation ledgers and the bank-down page, as printed:
one page each where promised, A4 and Letter, no type under 8 pt, French that reads as French,
and what the lead needs on them (each team's real stock, buildings, waiting pirates, events, clock)."""

from __future__ import annotations

import pytest
from play import DEFAULT_CONFIG, config_with
from printkit import all_text, page_count, page_sizes_mm, pages_text
from test_print_readability import NOT_FRENCH, SMALLEST_PT, font_sizes

from bank.game.config import load_config
from bank.services.bank import Bank
from printables.state_data import snapshot
from printables.state_ledger import render_ledgers, render_takeover
from printables.state_procedure import render_bank_down
from printables.state_sheet import render_state

T0 = 1_700_000_000.0
A4, LETTER = (210, 297), (216, 279)
SIX_TEAMS = "".join(f'''
[[teams]]
id = "{tid}"
label = {{ fr = "{fr}", en = "{en}" }}
colour = "{colour}"
resource = "fauna"
''' for tid, fr, en, colour in (("violet", "Les Violets du Mont du Nord", "The Violets of the North Hill",
                                 "#8344b5"), ("grey", "Gris", "Grey", "#777777")))


def _played(tmp_path, config):
    """A game in session 1 with buildings, a step, an animal on sale soon, a pirate waiting, an open event."""
    bank = Bank.create(tmp_path / "g.db", config)
    steps = iter(range(1, 100))

    def do(minute, **command):
        return bank.execute({"id": f"s{next(steps)}", **command}, now=T0 + minute * 60)

    do(0, type="start_clock")
    do(1, type="inventory", team="blue", counted={"water": 30, "flora": 30, "dioxygen": 30, "energy": 40, "fauna": 10})
    do(2, type="build", team="blue", building="power_plant_1")
    do(3, type="build", team="blue", building="purification_centre")
    do(4, type="set_option", option="second_pirate", value=True)
    do(5, type="raise_tracks", team="blue", steps={"atmosphere": 1})
    do(6, type="open_event", title="Drought", accepts=["water"], rewards=[{"points": 3}, {"jokers": 2}], deadline_minutes=30)
    do(7, type="contribute", event="ev1", team="blue", tokens={"water": 4})
    do(8, type="fight", attacker_team="red", attacker_card="pirate-1", defender_team="blue",
       defender_card="builder-1", winner="defender", tokens={})
    snap = snapshot(bank.state, config, T0 + 8 * 60 + 10, bank.last_seq, T0 + 8 * 60 + 10)
    blue = bank.state.stock("blue")
    bank.close()
    return snap, blue


@pytest.fixture(scope="module")
def played(tmp_path_factory):
    config = load_config(DEFAULT_CONFIG)
    snap, blue = _played(tmp_path_factory.mktemp("state"), config)
    docs = {}
    for lang in ("fr", "en"):
        for paper in ("a4", "letter"):
            docs[("state", lang, paper)] = render_state(snap, config, lang, paper)
            docs[("ledgers", lang, paper)] = render_ledgers(snap, config, lang, paper)
            docs[("bank-down", lang, paper)] = render_bank_down(config, lang, paper)
    return {"config": config, "snap": snap, "blue": blue, "docs": docs}


def test_the_state_sheet_holds_the_game_on_one_page(played):
    data = played["docs"][("state", "en", "a4")]
    assert page_count(data) == 1
    text = all_text(data)
    blue = played["blue"]
    row = " ".join(str(blue.get(r, 0)) for r in played["config"].resources)
    assert row in " ".join(text.split())  # Blue's stock as it is, not the starting 5 water (the defect of item 6)
    for words in ("Buildings: Power plant I, Purification centre", "Harvest: Water 2", "level 1 of 10",
                  "Waiting after a fight: Pirate 1 50 s more", "second pirate: on (price 5 Energy, 5 Fauna)",
                  "Drought", "closes at 36 min of play", "rewards 3 points · 2 jokers", "Given: Blue 4",
                  "8 min played of 3 h · session 1 of 2 · running", "10 tokens = 1 point", "journal entry 10"):
        assert words in " ".join(text.split()), words


def test_the_state_sheets_clock_says_its_units(played):
    """"0:08 jouées sur 0:16" read as seconds; minutes and hours are written out."""
    text = " ".join(all_text(played["docs"][("state", "fr", "a4")]).split())
    assert "8 min de jeu sur 3 h · session 1 sur 2" in text and "clôture à 36 min de jeu" in text


def test_continuation_ledgers_start_from_each_teams_state(played):
    data = played["docs"][("ledgers", "fr", "a4")]
    pages = pages_text(data)
    assert len(pages) == len(played["config"].teams)
    blue_page = " ".join(" ".join(pages[0]).split())
    assert "Registre de reprise · Bleus" in blue_page and "suite de l'état n° 10" in blue_page
    assert "Bâtiments : Centrale I, Centre de purification" in blue_page.replace("\u00a0", " ")
    row = " ".join(str(played["blue"].get(r, 0)) for r in played["config"].resources)
    assert f"Stock à l'état n° 10 {row} 6" in blue_page  # the stock, then Blue's 6 points (2 + 3 built, 1 step)


@pytest.mark.parametrize("lang, typed, trade, other", [
    ("fr", "« 1 Verts récolte Eau 2 »", "Verts commerce Bleus donne", "Bleus récolte"),
    ("en", "'1 Green harvest Water 2'", "Green trade Blue give", "Blue harvest")])
def test_each_ledgers_examples_name_its_own_team(played, lang, typed, trade, other):
    """Every team's ledger showed the first team's moves ("« 1 Bleus récolte Eau 2 »" on Verts' ledger) as
    the lines to write, as they will be typed: so written, a line of Bleus under Verts' sheet. Each ledger's
    help and examples now name its own team (a trade or a fight: with the next team)."""
    green = " ".join(" ".join(pages_text(played["docs"][("ledgers", lang, "a4")])[3]).split())
    assert typed in green and trade in green and other not in green


@pytest.mark.parametrize("kind", ["state", "ledgers", "bank-down"])
def test_a4_and_letter_at_full_size(played, kind):
    for paper, size in (("a4", A4), ("letter", LETTER)):
        sizes = set(page_sizes_mm(played["docs"][(kind, "en", paper)]))
        assert sizes == ({tuple(reversed(size))} if kind == "ledgers" else {size}), (paper, sizes)


def test_nothing_under_8_pt_and_nothing_cut(played):
    small = [(key, page, round(size, 2), text) for key, data in played["docs"].items()
             for page, size, text in font_sizes(data) if size < SMALLEST_PT - 0.01]
    assert not small, small[:8]
    cut = [(key, line) for key, data in played["docs"].items() for line in all_text(data).splitlines() if "…" in line]
    assert not cut, cut[:5]


def test_french_reads_as_french(played):
    problems = [(key, line, why) for key, data in played["docs"].items() if key[1] == "fr"
                for line in all_text(data).splitlines() for pattern, why in NOT_FRENCH if pattern.search(line)]
    assert not problems, problems[:10]


def test_the_bank_down_page_is_one_page_of_steps_and_the_move_forms(played):
    for lang, words in (("fr", ("Banque en panne", "Reprise depuis le papier", "Bleus récolte Eau 2", "Pilotage")),
                        ("en", ("Bank down", "Re-entry from paper", "Blue harvest Water 2", "admin page"))):
        data = played["docs"][("bank-down", lang, "a4")]
        assert page_count(data) == 1
        text = " ".join(all_text(data).split())
        assert all(w in text for w in words), lang


def test_six_teams_with_long_names_still_fit_one_page(tmp_path):
    config = config_with(("\n# Roles (R9, R10).", SIX_TEAMS + "\n# Roles (R9, R10)."))
    snap, _ = _played(tmp_path, config)
    data = render_takeover(snap, config, "fr", "letter")
    assert page_count(data) == 1 + 6
    state = " ".join(pages_text(data)[0])
    assert "Les Violets du Mont du Nord" in state and "Gris" in state and "Événements ouverts" in state
    assert not [s for s in font_sizes(data) if s[1] < SMALLEST_PT - 0.01]
