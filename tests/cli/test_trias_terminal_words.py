"""The Trias terminal's last English sentences, now in the terminal's language like the rest
(bank/cli/trias_words.py): a game id that does not exist, `trias verify`'s success and `trias score`'s
unreadable files. French by default, English or Italian with --lang; a found game speaks its own language.

Before, each was fixed English in a French terminal: "there is no Trias game 'x' in ... (latest: none yet)",
"journal chain head: ... (entry 1)", "cannot read ...: No such file or directory", "... is not valid JSON".
`trias verify`'s first line stays "ok" in every language: tests/cli/test_cli_trias.py reads it as a script would.
"""

from __future__ import annotations

import pytest

from bank.services.trias_games import TriasGames
from test_cli_trias import cli, games_dir  # noqa: F401 (the fixtures: main() with the test's database, its games)


def games_and_entries(folder) -> dict:
    """Every stored game and its last journal entry: what a refused command must leave as it was."""
    games = TriasGames(folder)
    try:
        return {g["id"]: games.get(g["id"]).last_seq for g in games.list()}
    finally:
        games.close()


def chain_head(folder, gid) -> tuple:
    games = TriasGames(folder)
    try:
        game = games.get(gid)
        return game._service.head(), game.last_seq
    finally:
        games.close()


# -- 1. a game that does not exist -------------------------------------------------------------------

@pytest.mark.parametrize("command", ["show", "table", "verify", "play"])
def test_an_unknown_game_is_said_in_french_by_default(cli, games_dir, capsys, command):
    assert cli(command, "nosuchid") == 2
    assert capsys.readouterr().err == (f"terrabank: il n'y a pas de partie de Trias 'nosuchid' dans {games_dir} "
                                       "(dernières : aucune pour l'instant) ; `terrabank trias show` les liste\n")
    assert games_and_entries(games_dir) == {}  # play did not start a game instead


@pytest.mark.parametrize("lang, sentence", [
    ("en", "there is no Trias game 'nosuchid' in {where} (latest: {gid}); `terrabank trias show` lists them"),
    ("it", "non c'è nessuna partita di Trias 'nosuchid' in {where} (ultime: {gid}); `terrabank trias show` le elenca"),
], ids=["en", "it"])
@pytest.mark.parametrize("command", ["show", "table", "verify", "play"])
def test_an_unknown_game_is_said_in_the_language_asked_and_changes_nothing(cli, games_dir, capsys, command,
                                                                           lang, sentence):
    assert cli("new", "--players", "2", "--seed", "4") == 0
    before = games_and_entries(games_dir)
    (gid,) = before
    capsys.readouterr()
    assert cli(command, "nosuchid", "--lang", lang) == 2
    captured = capsys.readouterr()
    assert captured.err == f"terrabank: {sentence.format(where=games_dir, gid=gid)}\n" and captured.out == ""
    assert games_and_entries(games_dir) == before


# -- 2. `trias verify` finds the journal sound -------------------------------------------------------

@pytest.mark.parametrize("made, asked, line", [
    ("fr", None, "tête de la chaîne du journal : {head} (entrée {seq})"),
    ("en", None, "journal chain head: {head} (entry {seq})"),
    ("it", None, "testa della catena del registro: {head} (voce {seq})"),
    ("fr", "en", "journal chain head: {head} (entry {seq})"),  # --lang speaks over the game's language
], ids=["fr", "en", "it", "fr-game-asked-en"])
def test_verify_says_ok_then_the_chain_head_in_the_games_language(cli, games_dir, capsys, made, asked, line):
    assert cli("new", "--players", "2", "--seed", "4", "--lang", made) == 0
    (gid,) = games_and_entries(games_dir)
    capsys.readouterr()
    assert cli("verify", gid, *(["--lang", asked] if asked else [])) == 0
    head, seq = chain_head(games_dir, gid)
    # "ok" first, alone, whatever the language: the token a script checks (as the bank's own `verify` prints it).
    assert capsys.readouterr().out == f"ok\n{line.format(head=head, seq=seq)}\n"


# -- 3. `trias score` given a file it cannot use ---------------------------------------------------------

def score_refusal(cli, capsys, path, *lang) -> str:
    assert cli("score", str(path), *lang) == 2
    captured = capsys.readouterr()
    assert captured.out == "" and captured.err.count("\n") == 1  # one sentence, no scores printed
    return captured.err


def test_score_says_in_french_why_a_file_cannot_be_used(cli, tmp_path, capsys):
    missing, folder, latin1, broken = (tmp_path / "none.json", tmp_path, tmp_path / "latin1.json",
                                       tmp_path / "broken.json")
    latin1.write_bytes('{"land_masses": [{"name": "Forêt"'.encode("latin-1"))
    broken.write_text('{"land_masses": [', encoding="utf-8")
    fr = ["--lang", "fr"]
    assert score_refusal(cli, capsys, missing, *fr) == (
        f"terrabank: impossible de lire {missing} : fichier introuvable ; donnez le chemin du fichier JSON qui "
        "décrit les continents\n")
    assert f"impossible de lire {folder} : c'est un dossier ; " in score_refusal(cli, capsys, folder, *fr)
    assert score_refusal(cli, capsys, latin1, *fr) == (
        f"terrabank: {latin1} n'est pas un fichier texte UTF-8 ; enregistrez la description en texte JSON\n")
    assert score_refusal(cli, capsys, broken, *fr) == (
        f"terrabank: {broken} n'est pas du JSON valide (ligne 1, colonne 18) ; corrigez le fichier à cet endroit\n")


def test_score_says_it_in_english_its_default_and_in_italian(cli, tmp_path, capsys):
    """`trias score` explains in English unless asked (tests/cli/test_cli_trias.py): its refusals follow suit."""
    missing, deep, huge, broken = (tmp_path / "none.json", tmp_path / "deep.json", tmp_path / "huge.json",
                                   tmp_path / "broken.json")
    deep.write_text("[" * 100_000, encoding="utf-8")
    broken.write_text('{"land_masses": [', encoding="utf-8")
    huge.write_text('{"land_masses": [{"name": "A", "tiles": ' + "9" * 5000 + "}]}", encoding="utf-8")
    assert score_refusal(cli, capsys, missing) == (
        f"terrabank: cannot read {missing}: no such file; give the path of the JSON file that describes the "
        "land masses\n")
    assert score_refusal(cli, capsys, broken) == (  # json's own words, English, in the English sentence only
        f"terrabank: {broken} is not valid JSON (line 1, column 18: expecting value); correct the file there\n")
    assert score_refusal(cli, capsys, deep, "--lang", "it") == (
        f"terrabank: {deep} è troppo annidato per descrivere dei continenti\n")
    assert score_refusal(cli, capsys, huge, "--lang", "it") == (
        f"terrabank: {huge} contiene un numero troppo lungo per contare tessere o branchi\n")
    assert score_refusal(cli, capsys, huge, "--lang", "fr") == (
        f"terrabank: {huge} contient un nombre trop long pour compter des tuiles ou des troupeaux\n")
