"""`terrabank trias new|show|table|score|verify|play`, through main([...]) and once through run.py."""

from __future__ import annotations

import io
import json
import re
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from bank.cli.main import main
from bank.services.trias_games import TriasGames
from trias_example_kit import example_3

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def games_dir(tmp_path):
    return tmp_path / "terrabank-trias"


@pytest.fixture
def cli(tmp_path):
    """main() with the test's database, so the games go beside it in terrabank-trias/."""
    return lambda *args: main(["--db", str(tmp_path / "terrabank.db"), "trias", *args])


def only_game(folder):
    games = TriasGames(folder)
    try:
        (entry,) = games.list()
        return entry["id"]
    finally:
        games.close()


def test_new_prints_the_id_board_and_seat_links(cli, games_dir, capsys):
    assert cli("new", "--seat", "Ana", "--seat", "Bot:easy", "--seat", "Chloé", "--seed", "5", "--lang", "en") == 0
    out = capsys.readouterr().out  # French by default: tests/cli/test_cli_trias_language.py
    gid = only_game(games_dir)
    assert f"Created Trias game {gid} (play, 3 seats, seed 5)" in out
    assert f"Board (public, read only): /trias/g/{gid}\n" in out
    games = TriasGames(games_dir)
    try:
        seats, secret = games.get(gid).seats, games.get(gid).table_secret
    finally:
        games.close()
    assert f"/trias/g/{gid}?t={secret}" in out and len(secret) >= 16  # the table's link, printed once here
    assert f"1. Ana: /trias/s/{seats[0]['token']}" in out and "2. Bot: computer (easy)" in out
    assert seats[2]["name"] == "Chloé"


def test_table_prints_the_table_link_and_makes_one_for_a_game_stored_before_them(cli, games_dir, capsys):
    from trias_kit import edit_identity

    assert cli("new", "--players", "2") == 0
    gid = only_game(games_dir)
    capsys.readouterr()
    edit_identity(games_dir / f"{gid}.db", lambda identity: identity.pop("table"), before_the_seed=True)  # an old game
    assert cli("table", gid, "--base", "http://10.0.0.2:5000") == 0
    made = capsys.readouterr().out
    assert "vient d'être créé" in made and f"http://10.0.0.2:5000/trias/g/{gid}?t=" in made
    assert cli("table", gid) == 0
    again = capsys.readouterr().out
    assert "vient d'être créé" not in again and made.split("?t=")[1].split()[0] == again.split("?t=")[1].split()[0]
    assert cli("verify", gid) == 0


def test_new_without_seats_says_how(cli, capsys):
    assert cli("new") == 2
    assert "--players N" in capsys.readouterr().err


def test_new_mirror_refuses_a_computer_seat(cli, games_dir, capsys):
    assert cli("new", "--mirror", "--seat", "Ana", "--seat", "Bot:easy") == 2
    # The pages' sentence for the refusal, in the game's language (French by default; bank/cli/trias_refusals.py)
    assert "Une partie miroir suit une vraie table" in capsys.readouterr().err
    assert not games_dir.exists() or not list(games_dir.glob("*.db"))


def test_show_and_verify_a_game(cli, games_dir, capsys):
    cli("new", "--players", "3", "--seed", "2")
    gid = only_game(games_dir)
    capsys.readouterr()
    assert cli("show") == 0 and gid in capsys.readouterr().out
    assert cli("show", gid) == 0  # in the game's language, French by default
    out = capsys.readouterr().out
    assert "Mise en place (T8) : Place 1 pose 2 troupeaux" in out  # the seats named in the game's language and "Pioche : 36 cartes (9 de la pioche 2)" in out
    assert cli("show", gid, "--lang", "en") == 0
    out = capsys.readouterr().out
    assert "Set-up (T8): Place 1 places 2 herds" in out and "Deck: 36 cards (9 of deck 2)" in out
    assert "P " in out  # the map shows the pole
    # "ok" first in every language; the chain head in the game's (tests/cli/test_trias_terminal_words.py)
    assert cli("verify", gid) == 0 and capsys.readouterr().out.startswith("ok\ntête de la chaîne du journal : ")
    assert cli("show", "nosuchid") == 2 and "pas de partie de Trias 'nosuchid'" in capsys.readouterr().err


def test_verify_reports_an_edited_row_with_exit_code_1_and_play_refuses_it(cli, games_dir, capsys):
    cli("new", "--players", "2", "--seed", "2")
    gid = only_game(games_dir)
    conn = sqlite3.connect(games_dir / f"{gid}.db")
    conn.execute("DROP TRIGGER journal_no_update")
    conn.execute("UPDATE journal SET actor='someone' WHERE seq=1")
    conn.commit()
    conn.close()
    capsys.readouterr()
    assert cli("verify", gid) == 1
    assert "journal row 1 was changed" in capsys.readouterr().out
    assert cli("play", gid) == 2  # nothing is played on it (before: it opened and booked on)
    assert "cannot be trusted: journal row 1 was changed" in capsys.readouterr().err


def test_t18_score_prints_each_land_mass_totals_and_winner(cli, tmp_path, capsys):
    path = tmp_path / "end.json"
    path.write_text(json.dumps(example_3(stock={"Black": 2})), encoding="utf-8")
    assert cli("score", str(path)) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith("A (3 tiles): Black 2, Cross 1; Black first: 3")
    assert out[-2] == "Totals: Black 19, Cross 15, White 15, Grey 8" and out[-1] == "Black wins with 19 points (T19)"


def test_t18_score_json_has_exactly_the_issue_shape(cli, tmp_path, capsys):
    path = tmp_path / "end.json"
    path.write_text(json.dumps(example_3()), encoding="utf-8")
    assert cli("score", str(path), "--json") == 0
    result = json.loads(capsys.readouterr().out)
    assert list(result) == ["points", "totals", "winners"]
    assert result["points"]["A"] == {"Black": 3, "Cross": 2}
    assert result["totals"] == {"Black": 19, "Cross": 15, "White": 15, "Grey": 8} and result["winners"] == ["Black"]


@pytest.mark.parametrize("text, sentence", [
    ('{"land_masses": [', "is not valid JSON (line 1, column 18"),
    ('{"land_masses": [{"name": "A", "tiles": 40, "herds": {"Ana": 1}}]}',
     "land_masses[0].tiles must be a whole number from 1 to 36"),
    ('[1, 2]', "the description must be a JSON object"),
])
def test_score_refuses_a_malformed_file_with_one_sentence_and_code_2(cli, tmp_path, capsys, text, sentence):
    path = tmp_path / "bad.json"
    path.write_text(text, encoding="utf-8")
    assert cli("score", str(path)) == 2
    captured = capsys.readouterr()
    assert sentence in captured.err and captured.out == ""
    assert len(captured.err.strip().splitlines()) == 1 and "Traceback" not in captured.err


def test_score_a_missing_file(cli, tmp_path, capsys):
    assert cli("score", str(tmp_path / "none.json")) == 2
    assert "cannot read" in capsys.readouterr().err


def test_play_a_whole_game_against_the_computer_from_piped_input(cli, games_dir, capsys, monkeypatch):
    monkeypatch.setattr(sys, "stdin", io.StringIO("1\n" * 3000))
    assert cli("play", "--seed", "4", "--level", "easy") == 0
    out = capsys.readouterr().out
    # In the game's language (French by default); the opponent named by its level.
    assert "1. poser 2 troupeaux sur" in out and "Ordinateur · facile : a posé 2 troupeaux" in out
    assert "La partie est terminée." in out and re.search(r"Vainqueurs? \((à égalité, )?T19\) :", out)  # no "(s)"
    gid = only_game(games_dir)
    assert cli("verify", gid) == 0


def test_play_stops_at_the_end_of_input_and_resumes(cli, games_dir, capsys, monkeypatch):
    monkeypatch.setattr(sys, "stdin", io.StringIO("1\nb\nu\nx\n"))
    assert cli("play", "--seed", "4") == 0
    out = capsys.readouterr().out
    gid = only_game(games_dir)
    assert "Coup annulé." in out and "Tapez un nombre de 1 à" in out
    assert f"reprenez-la avec `terrabank trias play {gid}`" in out
    monkeypatch.setattr(sys, "stdin", io.StringIO("2\nq\n"))
    assert cli("play", gid) == 0
    assert "Vous : a posé 2 troupeaux sur" in capsys.readouterr().out


@pytest.mark.parametrize("lang, sentence", [
    ("fr", "Une carte a été piochée depuis : annuler montrerait ce qui vient ensuite, ce coup reste donc joué."),
    ("en", "A card was drawn since: undoing would show what comes next, so this move stands.")])
def test_play_refuses_to_undo_a_draw_with_the_pages_sentence(cli, games_dir, capsys, monkeypatch, lang, sentence):
    """`u` after a draw would show the deck's next card on the next draw."""
    import trias
    from bank.cli.trias_menu import build_menu

    games = TriasGames(games_dir)
    try:
        game = games.create([{"name": "Ana", "kind": "human"}, {"name": "Bo", "kind": "human"}], 5, "play", lang)
        while game.state.phase == "place":
            game.execute(trias.legal_actions(game.state)[0], f"p{game.last_seq}", "cli")
        gid, listed = game.id, build_menu(game.state)
    finally:
        games.close()
    draw = next(i for i, c in enumerate(listed, 1) if c.cmd and c.cmd["type"] == "draw")
    monkeypatch.setattr(sys, "stdin", io.StringIO(f"{draw}\nu\nq\n"))
    assert cli("play", gid) == 0
    out = capsys.readouterr().out
    assert ("drew" in out or "a pioché" in out) and sentence in out and "Taken back." not in out
    games = TriasGames(games_dir)
    try:
        assert [r["type"] for r in games.get(gid).rows()][-1] == "draw"  # nothing taken back
    finally:
        games.close()


def test_through_run_py_score_json_and_a_bad_file(tmp_path):
    good, bad = tmp_path / "end.json", tmp_path / "bad.json"
    good.write_text(json.dumps(example_3()), encoding="utf-8")
    bad.write_text("{not json", encoding="utf-8")
    folder = str(tmp_path / "games")
    ok = subprocess.run([sys.executable, "run.py", "trias", "--games", folder, "score", str(good), "--json"],
                        cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert ok.returncode == 0, ok.stderr
    # run.py may first say it (re)installs the project: the answer is the last line.
    assert json.loads(ok.stdout.splitlines()[-1])["totals"] == {"Black": 19, "Cross": 15, "White": 15, "Grey": 8}
    refused = subprocess.run([sys.executable, "run.py", "trias", "--games", folder, "score", str(bad)],
                             cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert refused.returncode == 2 and "is not valid JSON" in refused.stderr and "Traceback" not in refused.stderr
