"""A sheet printed before the config changed, typed back after (bank/game/game_identity.py, paper_syntax.py).

A ledger's id names its team by a letter: the team's place in the config ("0A" is the first team's). The
teams could be listed in another order in config.toml and the game restarted or reloaded (only their ids
were compared): sheet 0A, printed for blue, was then read as the new first team's, so a trade between blue
and yellow typed from both sheets was booked twice. Now a start, a reload and `config check` refuse another
order with a sentence. A team renamed by a reload: its sheets printed before carry the old name, which was
"not a team of this game"; the names the teams had when the game was created are now read too, after the
names they have now, and no team may take a name another team had then. And a team whose printed name is another team's id ("Green", the English name of team
blue) was refused as "Green or Blue": ids are never printed, so a name now wins over an id.
"""

from __future__ import annotations

import re

import pytest

from bank.cli.main import main
from bank.errors import BankError
from bank.game.config import parse_config
from bank.services.bank import Bank
from bank.web import create_app
from bank.web.field.paper_syntax import Grammar, parse
from conftest import CONFIG_PATH, WebClient
from print_names_kit import config_with_teams
from test_paper_lines_identify import send

TOML = CONFIG_PATH.read_text(encoding="utf-8")
BLOCKS = [m.group(0) for m in re.finditer(r"\[\[teams\]\]\n(?:[^\[\n].*\n|\n)*", TOML)]  # blue, yellow, red, green
TRADE = "Bleus commerce Jaunes donne 2 eau reçoit 1 énergie"


def toml(order=(0, 1, 2, 3), renamed=None) -> str:
    start, end = TOML.index(BLOCKS[0]), TOML.index(BLOCKS[-1]) + len(BLOCKS[-1])
    text = TOML[:start] + "".join(BLOCKS[i] for i in order) + TOML[end:]
    return text.replace(*renamed) if renamed else text


def opened(db, text: str):
    app = create_app({"DB": db, "CONFIG": parse_config(text), "TESTING": True, "PASSWORD_HASH": "pbkdf2:sha256:1000"})
    if not app.extensions["terrabank"].access.users():
        app.extensions["terrabank"].access.add_user("lead", "correct horse", "lead")
    client = WebClient(app.test_client())
    assert client.login("lead").status_code == 200
    return app, client


def closed(app) -> None:
    app.extensions["terrabank"].bank.close()
    app.extensions["terrabank"].access.close()


def statuses(result: dict) -> list:
    return [(line["status"], (line.get("error") or {}).get("code")) for line in result["lines"]]


def test_teams_listed_in_another_order_are_refused_so_no_sheet_is_read_as_another_teams(tmp_path, capsys):
    db = tmp_path / "g.db"
    app, lead = opened(db, toml())
    assert lead.command(type="start_clock").status_code == 200
    assert statuses(send(lead, f"feuille 0A\n3 {TRADE}\n")) == [("booked", None)]  # blue's sheet
    seq = app.extensions["terrabank"].bank.last_seq
    closed(app)
    reordered = tmp_path / "config.toml"
    reordered.write_text(toml((2, 1, 0, 3)), encoding="utf-8")  # red first: sheet 0A would be red's
    assert main(["--config", str(reordered), "--db", str(db), "config", "check"]) == 2
    said = capsys.readouterr().err.strip()
    assert "sheet 0A is blue's" in said and "list the teams in the game's order" in said, said
    with pytest.raises(BankError) as refused:  # a start, and a reload's new worker, open the game so
        opened(db, reordered.read_text(encoding="utf-8"))
    assert refused.value.code == "config_mismatch" and "sheet 0A is blue's" in str(refused.value)
    app, lead = opened(db, toml())  # the game's own order: yellow's sheet is the same trade, booked once
    try:
        assert statuses(send(lead, f"feuille 0B\n5 {TRADE}\n")) == [("duplicate", None)]
        assert app.extensions["terrabank"].bank.last_seq == seq
    finally:
        closed(app)


def test_a_team_renamed_by_a_reload_is_typed_back_by_the_name_its_sheets_were_printed_with(tmp_path):
    db = tmp_path / "g.db"
    app, lead = opened(db, toml())
    assert lead.command(type="start_clock").status_code == 200
    closed(app)
    app, lead = opened(db, toml(renamed=('fr = "Bleus", en = "Blue"', 'fr = "Dauphins", en = "Dolphins"')))
    try:
        bank = app.extensions["terrabank"].bank
        water = bank.state.stock("blue")["water"]
        assert statuses(send(lead, "feuille 0A\n1 Bleus récolte eau 1\n2 14:05 les bleus recolte eau 2\n")) == [
            ("booked", None), ("booked", None)]
        again = send(lead, "feuille 0A\n1 Dauphins récolte eau 1\n")  # a second laptop, with the new name
        assert statuses(again) == [("duplicate", None)]
        assert bank.state.stock("blue")["water"] == water + 2
        fight = parse("Rouges pirate 1 bat les Bleus récolteur 1", Grammar(bank.config, {}, "fr", bank.created_with()))
        assert fight["defender_team"] == "blue"
    finally:
        closed(app)


def test_a_team_renamed_twice_by_reloads_is_typed_back_by_each_name_its_sheets_were_printed_with(tmp_path):
    """Bleus, then Dauphins (a reload), then Orques (another): the sheets printed while blue was Dauphins carry that
    name, which was neither the game's first name nor its name now: refused, "not a team of this game"."""
    db = tmp_path / "g.db"
    names = ['fr = "Bleus", en = "Blue"', 'fr = "Dauphins", en = "Dolphins"', 'fr = "Orques", en = "Orcas"']
    app, lead = opened(db, toml())
    assert lead.command(type="start_clock").status_code == 200
    closed(app)
    closed(opened(db, toml(renamed=(names[0], names[1])))[0])
    app, lead = opened(db, toml(renamed=(names[0], names[2])))
    try:
        bank = app.extensions["terrabank"].bank
        water = bank.state.stock("blue")["water"]
        typed = send(lead, "feuille 0A\n1 Dauphins récolte eau 1\n2 les dolphins recolte eau 2\n3 Bleus récolte eau 1\n"
                           "4 Orques récolte eau 2\n")
        assert statuses(typed) == [("booked", None)] * 4, typed
        assert bank.state.stock("blue")["water"] == water + 4
        fight = send(lead, "Rouges pirate 1 bat les Dauphins récolteur 1\n")["lines"][0]
        assert fight["command"]["defender_team"] == "blue", fight
    finally:
        closed(app)


def test_a_name_a_team_had_between_two_reloads_is_refused_for_another_team(tmp_path, capsys):
    """Blue was Dauphins between two reloads, then Orques; a third reload naming green Dauphins was accepted, and the
    sheets printed while blue was Dauphins were typed back as green's moves. Now refused by a start, a reload (its
    config check) and `config check`, naming both teams; the game's own names start it again."""
    db = tmp_path / "g.db"
    names = ['fr = "Bleus", en = "Blue"', 'fr = "Dauphins", en = "Dolphins"', 'fr = "Orques", en = "Orcas"']
    for renamed in (None, (names[0], names[1]), (names[0], names[2])):
        closed(opened(db, toml(renamed=renamed))[0])
    taking = tmp_path / "config.toml"
    taking.write_text(toml(renamed=(names[0], names[2])).replace('fr = "Verts", en = "Green"',
                                                                  'fr = "Dauphins", en = "Greens"'), encoding="utf-8")
    assert main(["--config", str(taking), "--db", str(db), "config", "check"]) == 2
    said = capsys.readouterr().err
    assert "team green is called 'Dauphins', as team blue was at a start of this game" in said, said
    with pytest.raises(BankError) as refused:
        opened(db, taking.read_text(encoding="utf-8"))
    assert refused.value.code == "config_mismatch" and "give green a name no other team had" in str(refused.value)
    closed(opened(db, toml(renamed=(names[0], names[2])))[0])


def test_names_swapped_by_a_reload_are_refused_so_no_old_sheet_is_read_as_another_teams(tmp_path, capsys):
    """Blue's sheets printed as "Bleus", then a reload named green "Bleus" (and blue "Verts"): every line of
    blue's old sheets was green's move, and the reload was accepted."""
    db = tmp_path / "g.db"
    Bank.create(db, parse_config(toml())).close()
    swapped = tmp_path / "config.toml"
    swapped.write_text(toml(renamed=('fr = "Bleus", en = "Blue"', 'fr = "Bleuets", en = "Cornflowers"')).replace(
        'fr = "Verts", en = "Green"', 'fr = "Les Bleus", en = "Blues"'), encoding="utf-8")
    assert main(["--config", str(swapped), "--db", str(db), "config", "check"]) == 2
    said = capsys.readouterr().err
    assert "team green is called 'Les Bleus', as team blue was when the game was created" in said, said
    with pytest.raises(BankError, match="give green a name no other team had"):
        Bank.open(db, parse_config(swapped.read_text(encoding="utf-8"))).close()
    renamed = toml(renamed=('fr = "Bleus", en = "Blue"', 'fr = "Bleuets", en = "Cornflowers"'))
    Bank.open(db, parse_config(renamed)).close()  # a team renamed, no name taken from another: accepted


def test_a_name_now_wins_over_an_id_and_over_a_former_name():
    config = config_with_teams([("Verts", "Green"), ("Jaunes", "Yellow"), ("Rouges", "Red"), ("Bleus", "Blue")])
    grammar = Grammar(config, {}, "en")  # team blue is called Green, team green Blue
    assert parse("Green harvest water", grammar)["team"] == "blue"
    fight = parse("Red pirate 1 beat Green harvester 1", grammar)
    assert (fight["attacker_team"], fight["defender_team"]) == ("red", "blue")
    assert parse("Blue harvest water", grammar)["team"] == "green"
    # The game began with blue "Bleus" and green "Verts": a reload swapped the names. A name the team has
    # now wins over the one another team had then.
    grammar = Grammar(config, {}, "fr", toml())
    assert [parse(f"{name} récolte eau", grammar)["team"] for name in ("Verts", "bleus", "Jaunes")] == [
        "blue", "green", "yellow"]
