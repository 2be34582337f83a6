"""The print pack and `terrabank print`: which files, safe names, reproducible bytes."""

from __future__ import annotations

import argparse

import pytest
from printkit import page_count, play_sample

from bank.cli import printing as cli_print
from bank.errors import BankError
from printables import pack
from printables.pack import build, safe_path

TEAM_URLS = {"blue": "http://h/t/1", "yellow": "http://h/t/2", "red": "http://h/t/3", "green": "http://h/t/4"}


def test_cards_kind_writes_one_pdf_named_by_language(config, tmp_path):
    written = build("cards", tmp_path, config, "en")
    assert [p.name for p in written] == ["cards-en.pdf"]
    assert page_count(written[0].read_bytes()) == 8


def test_boards_and_sheets(config, tmp_path):
    assert [p.name for p in build("boards", tmp_path, config)] == ["team-boards-fr.pdf", "rules-summary-fr.pdf",
                                                                   "bonus-dice-fr.pdf"]
    assert [p.name for p in build("sheets", tmp_path, config)] == [
        "bank-sheets-fr.pdf", "shared-boards-a3-fr.pdf", "shared-boards-a4-halves-fr.pdf", "score-track-fr.pdf",
        "score-track-a4-halves-fr.pdf", "exchange-rate-sign-fr.pdf", "event-sheet-fr.pdf", "bank-down-fr.pdf"]


def test_all_with_a_game_writes_everything(config, tmp_path, bank):
    play_sample(bank)
    out = tmp_path / "out"
    written = build("all", out, config, "en", bank=bank, team_urls=TEAM_URLS, base="http://h:5000", wifi=("Net", "pw"))
    assert sorted(p.name for p in written) == sorted([
        "cards-en.pdf", "team-boards-en.pdf", "bank-sheets-en.pdf", "shared-boards-a3-en.pdf", "shared-boards-a4-halves-en.pdf",
        "join-cards-en.pdf", "big-screen-poster-en.pdf", "report-en.pdf", "rules-summary-en.pdf", "bonus-dice-en.pdf",
        "score-track-en.pdf", "score-track-a4-halves-en.pdf", "exchange-rate-sign-en.pdf", "event-sheet-en.pdf", "bank-down-en.pdf"])
    assert sorted(p.name for p in out.iterdir()) == sorted(p.name for p in written)  # no temporary file left


def test_all_without_a_game_skips_join_and_report(config, tmp_path):
    names = [p.name for p in build("all", tmp_path, config)]
    assert "join-cards-fr.pdf" not in names and "report-fr.pdf" not in names and len(names) == 12  # with the bank-down page


def test_the_pack_is_reproducible(config, tmp_path):
    first = [p.read_bytes() for p in build("all", tmp_path / "a", config)]
    second = [p.read_bytes() for p in build("all", tmp_path / "b", config)]
    assert first == second


def test_kinds_that_lack_their_input_are_refused(config, tmp_path):
    with pytest.raises(ValueError, match="phone page"):
        build("join", tmp_path, config)
    with pytest.raises(ValueError, match="game"):
        build("report", tmp_path, config)
    with pytest.raises(ValueError, match="kind"):
        build("posters", tmp_path, config)
    with pytest.raises(ValueError, match="language"):
        build("cards", tmp_path, config, "de")


@pytest.mark.parametrize("name", ["../cards.pdf", "/etc/x.pdf", "a/b.pdf", ".hidden.pdf", "cards.PDF", "x.sh", ""])
def test_file_names_never_leave_the_folder(tmp_path, name):
    with pytest.raises(ValueError):
        safe_path(tmp_path, name)


def test_a_symlinked_name_cannot_escape(tmp_path):
    outside = tmp_path / "outside"
    outside.mkdir()
    (tmp_path / "out").mkdir()
    (tmp_path / "out" / "cards-fr.pdf").symlink_to(outside / "cards-fr.pdf")
    with pytest.raises(ValueError, match="outside"):
        safe_path(tmp_path / "out", "cards-fr.pdf")


def test_cli_and_pack_offer_the_same_kinds():
    assert cli_print.KINDS == pack.KINDS


def _cli(config_path, db, *argv):
    parser = argparse.ArgumentParser(prog="terrabank")
    cli_print.add_parser(parser.add_subparsers(dest="command"), lambda args: (str(config_path), str(db)))
    args = parser.parse_args(["print", *argv])
    return args.func(args)


def test_cli_print_cards(tmp_path, capsys):
    from play import DEFAULT_CONFIG

    assert _cli(DEFAULT_CONFIG, tmp_path / "none.db", "--kind", "cards", "--out", str(tmp_path / "out"), "--lang", "en") == 0
    assert (tmp_path / "out" / "cards-en.pdf").is_file()
    assert "Wrote" in capsys.readouterr().out


def test_cli_print_join_needs_a_game(tmp_path):
    from play import DEFAULT_CONFIG

    with pytest.raises(BankError, match="terrabank init"):
        _cli(DEFAULT_CONFIG, tmp_path / "none.db", "--kind", "join", "--out", str(tmp_path))


def test_cli_print_join_uses_the_team_tokens(bank, bank_path, tmp_path, capsys):
    from play import DEFAULT_CONFIG

    out = tmp_path / "out"
    assert _cli(DEFAULT_CONFIG, bank_path, "--kind", "join", "--out", str(out), "--base", "http://10.1.1.1:5000/",
                "--wifi-ssid", "Terrabank", "--wifi-password", "sol-vert-42") == 0
    assert sorted(p.name for p in out.iterdir()) == ["big-screen-poster-fr.pdf", "join-cards-fr.pdf"]
    from printkit import all_text

    text = all_text((out / "join-cards-fr.pdf").read_bytes())
    assert "http://10.1.1.1:5000/t/" in text.replace("\n", "")
    assert "Wi-Fi code" not in capsys.readouterr().out
