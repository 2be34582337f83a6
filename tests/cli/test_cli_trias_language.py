"""The Trias terminal speaks the game's language (French by default, English, Italian) in every sentence it
prints: `trias new`, the list of games, and the refusals, worded as the Trias pages word them, with their rule
(bank/cli/trias_refusals.py reads the pages' "error.<code>" sentences; bank/cli/trias_words.py holds the rest).

Before, `new` and the list printed fixed English ("Created Trias game ...", "Seat 1 Bot: computer (hard)",
"(turn 0, place)") and every refusal but undo-past-draw was the engine's English sentence, in a French game too.
"""

from __future__ import annotations

import io
import re
import sys
from types import SimpleNamespace

import pytest

import trias
from bank.services.trias_games import TriasGames
from test_cli_trias import cli, games_dir  # noqa: F401 (the fixtures: main() with the test's database, its games)

ENGLISH = re.compile(r"\b(Created|Board|Table \(keep|Seat|seats|computer|turn|place\)|No Trias games|there is|moved on)\b")


def test_new_in_a_french_game_prints_french(cli, games_dir, capsys):
    assert cli("new", "--seat", "Ana", "--seat", "Bot:hard", "--seed", "5") == 0  # French: the default
    out = capsys.readouterr().out
    (gid,) = [p.stem for p in games_dir.glob("*.db")]
    assert f"Partie de Trias {gid} créée (jouée ici, 2 places, graine 5) dans {games_dir}." in out
    assert f"Plateau (public, en lecture seule) : /trias/g/{gid}\n" in out
    assert f"Table (à garder pour vous : annuler, revanche, liens des places) : /trias/g/{gid}?t=" in out
    assert "1. Ana : /trias/s/" in out and "2. Bot : ordinateur (difficile)" in out
    assert not ENGLISH.search(out), out


def test_new_with_players_names_the_seats_in_the_games_language(cli, capsys):
    assert cli("new", "--players", "2", "--lang", "it") == 0
    out = capsys.readouterr().out
    assert "1. Posto 1: /trias/s/" in out and "(giocata qui, 2 posti, seme " in out


def test_table_and_a_mirror_game_refused_to_play_speak_the_games_language(cli, games_dir, capsys):
    assert cli("new", "--mirror", "--players", "2") == 0
    (gid,) = [p.stem for p in games_dir.glob("*.db")]
    capsys.readouterr()
    assert cli("table", gid) == 0
    assert capsys.readouterr().out.startswith(f"Table de la partie {gid} (à garder pour vous : annuler, revanche, ")
    assert cli("play", gid) == 2
    assert capsys.readouterr().err == (f"terrabank: la partie {gid} suit une vraie table (miroir) ; notez ses coups "
                                       "sur la page du plateau\n")


def test_the_list_of_games_speaks_french(cli, capsys, tmp_path):
    assert cli("show") == 0
    assert capsys.readouterr().out == (f"Aucune partie de Trias dans {tmp_path / 'terrabank-trias'} : lancez-en une "
                                       "avec `terrabank trias new` ou `trias play`.\n")
    assert cli("new", "--players", "2", "--seed", "1") == 0
    capsys.readouterr()
    assert cli("show") == 0
    out = capsys.readouterr().out
    assert re.fullmatch(r"\w+  jouée ici  Place 1, Place 2  \(tour 0, phase de mise en place\)\n", out), out
    assert cli("show", "--lang", "en") == 0
    assert capsys.readouterr().out.endswith("  play  Place 1, Place 2  (turn 0, place)\n")


def test_an_engine_refusal_on_the_command_line_is_the_pages_french_sentence_t7(cli, capsys):
    assert cli("new", "--players", "7") == 2
    assert capsys.readouterr().err == "terrabank: Une partie se joue à 2 à 5 places (T7, T21).\n"
    assert cli("new", "--players", "3", "--seat", "Ana") == 2
    assert capsys.readouterr().err == "terrabank: donnez --players ou --seat, pas les deux\n"


class AnotherScreenPlaysFirst(io.StringIO):
    """Standard input of a terminal player who is slow to answer: before the first answer arrives, another
    screen (the seat's phone) plays the move listed first, so the terminal's move is refused as stale."""

    def __init__(self, games_dir, answers: str):
        super().__init__(answers)
        self.games_dir, self.done = games_dir, False

    def readline(self, *args):
        if not self.done:
            self.done = True
            games = TriasGames(self.games_dir)
            try:
                (entry,) = games.list()
                game = games.get(entry["id"])
                game.execute(trias.legal_actions(game.state)[0], "phone-1", "seat:0")
            finally:
                games.close()
        return super().readline(*args)


@pytest.mark.parametrize("lang, refused, stopped", [
    ("fr", "La partie a avancé depuis le choix de ce coup (un autre écran a joué) : rien n'a changé, choisissez "
           "à nouveau.", "Arrêt. La partie est gardée"),
    ("it", "La partita è andata avanti da quando questa mossa è stata scelta (un altro schermo ha giocato): non è "
           "cambiato nulla, scegli di nuovo.", "Partita interrotta e conservata"),
])
def test_a_refused_move_in_the_terminal_game_is_said_in_the_games_language(cli, games_dir, capsys, monkeypatch,
                                                                          lang, refused, stopped):
    monkeypatch.setattr(sys, "stdin", AnotherScreenPlaysFirst(games_dir, "1\nq\n"))
    assert cli("play", "--seed", "3", "--lang", lang) == 0
    out = capsys.readouterr().out
    assert f"\n{refused}\n" in out
    assert stopped in out and "moved on" not in out


def test_nothing_to_undo_is_said_in_french(cli, capsys, monkeypatch):
    monkeypatch.setattr(sys, "stdin", io.StringIO("u\nq\n"))
    assert cli("play", "--seed", "3") == 0
    out = capsys.readouterr().out
    assert "\nAucun coup d'une personne à annuler : la mise en place ne s'annule jamais.\n" in out
    assert "there is no move" not in out


@pytest.mark.parametrize("lang, one, tied", [
    ("fr", "Vainqueur (T19) : Ana", "Vainqueurs (à égalité, T19) : Ana et Bea"),
    ("en", "Winner (T19): Ana", "Winners (tied, T19): Ana and Bea"),
    ("it", "Vincitore (T19): Ana", "Vincitori (a pari merito, T19): Ana e Bea"),
])
def test_the_winners_line_has_no_s_in_brackets_t19(monkeypatch, lang, one, tied):
    """The last line of the final table (T18, T19) for one winner and for two still tied; the land-mass map
    above it is left out (it needs a whole board: test_cli_trias_play.py draws it)."""
    from bank.cli import trias_text

    monkeypatch.setattr(trias_text, "masses_map", lambda state, lang: [])
    monkeypatch.setattr(trias_text, "mass_letters", lambda state: {})

    def ended(winners):
        result = {"table": [], "scores": [5, 5], "winners": winners}
        return SimpleNamespace(seats=[{"name": "Ana"}, {"name": "Bea"}], state=SimpleNamespace(result=result))

    assert trias_text.final_table(ended([0]), lang)[-1] == one
    assert trias_text.final_table(ended([0, 1]), lang)[-1] == tied


def test_one_herd_back_to_stock_is_rendu_two_are_rendus_t14():
    from bank.cli.trias_text import narrate

    game = SimpleNamespace(seats=[{"name": "Ana"}])
    back = {"type": "returned", "player": 0, "at": [1, 0], "reason": "swimming"}
    assert narrate(game, [dict(back, count=1)], "fr") == "1 troupeau d'Ana rendu à la réserve depuis 1,0 (à la nage)"
    assert narrate(game, [dict(back, count=2)], "fr") == "2 troupeaux d'Ana rendus à la réserve depuis 1,0 (à la nage)"


def test_french_elides_de_before_a_vowel_or_an_h_only_t14():
    """'d'Ana', 'd'Hugo', but 'de Bruno'; English and Italian keep 'of' and 'di'."""
    from bank.cli.trias_text import narrate

    back = {"type": "returned", "player": 0, "at": [1, 0], "reason": "swimming", "count": 1}
    said = {name: narrate(SimpleNamespace(seats=[{"name": name}]), [back], "fr") for name in ("Hugo", "Bruno", "Élise")}
    assert said["Hugo"].startswith("1 troupeau d'Hugo ") and said["Élise"].startswith("1 troupeau d'Élise ")
    assert said["Bruno"].startswith("1 troupeau de Bruno ")
    assert " of Ana " in narrate(SimpleNamespace(seats=[{"name": "Ana"}]), [back], "en")
    assert " di Ana " in narrate(SimpleNamespace(seats=[{"name": "Ana"}]), [back], "it")
