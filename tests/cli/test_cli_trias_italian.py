"""Trias in Italian from the terminal. `terrabank trias play|show|new|score --lang it` speak
the game's Italian terms (tessera, branco, continente, deriva, riserva, punti azione, Polo Sud...), with no
English or French left over from the word tables; `trias show` speaks the game's language (it printed
English for a French game, its seats' levels too); `terrabank print --kind trias --lang it` writes the
Italian printables, and the field game's kinds, which have no Italian, refuse `--lang it` with why."""

from __future__ import annotations

import re
import string
from pathlib import Path
from types import SimpleNamespace

import pytest
from printkit import all_text

from bank.cli import trias_map, trias_text, trias_words
from bank.cli.main import main
from bank.cli.trias_text import narrate
from bank.cli.trias_words import count
from printables.trias_words import WORDS as PRINTED
from test_cli_trias_play import cli, play  # noqa: F401 (cli is the fixture: `terrabank --db ... trias`)

CONFIG = Path(__file__).resolve().parents[2] / "config.toml"

# Every word table of the terminal game, by language.
TABLES = {"NOUNS": trias_words.NOUNS, "KINDS": trias_words.KINDS, "PHASES": trias_words.PHASES,
          "YOU": trias_words.YOU, "WORDS": trias_words.WORDS, "TEXT": trias_text.TEXT,
          "LETTERS": trias_map.LETTERS}


def _strings(value) -> list:
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [s for v in value.values() for s in _strings(v)]
    return [s for v in value for s in _strings(v)]


def _fields(template: str) -> set:
    return {name for _, name, _, _ in string.Formatter().parse(template) if name}


def _has(phrase: str, text: str) -> bool:
    return re.search(rf"(?<!\w){re.escape(phrase)}(?!\w)", text) is not None


def leftovers(text: str) -> list:
    """The English and French words of the tables (runs of words between the {fields}) that the Italian
    entries do not also use, found in `text`."""
    italian = "\n".join(_strings([table["it"] for table in TABLES.values()]))
    others = _strings([table[lang] for table in TABLES.values() for lang in ("en", "fr") if lang in table])
    phrases = {p for s in others for part in re.split(r"\{[^}]*\}", s)
               for p in re.findall(r"[^\W\d_][\w'’-]*(?: [^\W\d_][\w'’-]*)*", part)}
    return sorted(p for p in phrases if len(p) >= 3 and not _has(p, italian) and _has(p, text))


def test_every_word_table_has_italian_for_every_key_with_the_same_fields():
    for name, table in TABLES.items():
        assert "it" in table, name
        keys = set().union(*(table[lang] for lang in table if lang != "it")) if isinstance(table["it"], dict) else set()
        assert keys <= set(table["it"]), (name, keys - set(table["it"]))
        if name in ("WORDS", "TEXT"):
            for key in keys:
                fields = set().union(*(_fields(table[lang][key]) for lang in ("en", "fr") if key in table[lang]))
                assert _fields(table["it"][key]) == fields, (name, key)
    # The leftover finder finds them (it is what the played transcripts below are checked with).
    assert {"Your hand", "steppe", "Tour", "à vous de jouer", "point d'action"} <= set(
        leftovers("Your hand: steppe. Tour 2 : à vous de jouer, 1 point d'action"))
    assert trias_map.LETTERS["it"]["woods"] == "B" and "B Bosco (4)" in trias_words.WORDS["it"]["map_legend"]
    # The game's own terms, as the printed player aid has them.
    for kind in ("mountain", "steppe", "woods", "pole"):
        assert trias_words.KINDS["it"][kind] == PRINTED["it"][kind]


def test_italian_singular_and_plural():
    assert [count("it", n, "ap") for n in (0, 1, 2)] == ["0 punti azione", "1 punto azione", "2 punti azione"]
    assert [count("it", n, "tile") for n in (1, 2)] == ["1 tessera", "2 tessere"]
    assert [count("it", n, "herd") for n in (1, 3)] == ["1 branco", "3 branchi"]
    assert [count("it", n, "move") for n in (1, 2)] == ["1 mossa", "2 mosse"]


def test_a_winner_who_reads_the_screen_is_spoken_to():
    """'Vous gagnez', 'Tu vinci' (the French said 'Vous gagnent')."""
    def over(lang, you, *winners):
        game = SimpleNamespace(seats=[{"name": you}, {"name": "Ada"}])
        return narrate(game, [{"type": "game_over", "winners": list(winners)}], lang)

    assert over("it", "Tu", 0) == "partita finita: Tu vinci" and over("it", "Tu", 1) == "partita finita: Ada vince"
    assert over("it", "Tu", 0, 1) == "partita finita: Tu e Ada vincete"
    assert over("fr", "Vous", 0) == "partie terminée : Vous gagnez" and over("en", "You", 0) == "game over: You win"


def test_a_terminal_game_played_in_italian(cli, monkeypatch, capsys):
    # 2 placements, play the card on its first tile to its second place, move a herd, look at the board,
    # take the move back, stop. (Seed 4 on listing 2, trias/README.md: the easy computer's drifts are drawn from it.)
    out = play(cli, monkeypatch, capsys, "1\n1\n1\n2\n1\n1\nb\nu\nq\n", "--seed", "4", "--lang", "it")
    assert out.startswith("Nuova partita di Trias ") and ": Tu, Computer · facile. Scrivi il numero" in out
    assert "Preparazione (T8): piazzi 2 branchi su una tessera libera." in out
    assert "Mappa: M Montagna (ospita 2), S Steppa (3), B Bosco (4), P Polo Sud (3); cifra: branchi" in out
    assert "  1. piazzare 2 branchi su 0,0 (Polo Sud)" in out and "Tu, la tua mossa [1-19, u, b, q]: 1\n" in out
    assert "Computer · facile: piazzamento di 2 branchi su " in out
    assert "Turno 2: tocca a te, fase iniziale, 3 punti azione." in out and "In mano hai: Steppa." in out
    assert "  1. giocare la tua carta Steppa, deriva: Steppa -3,0 (4 caselle)" in out
    assert "Deriva di Steppa -3,0 verso [1-4, 0 indietro, u, b, q]: 2" in out and "(distanza 3 -> 4)" in out
    assert re.search(r"Tu: carta giocata: Steppa; deriva: Steppa -3,0 -> -?\d+,-?\d+\n", out)
    assert "Turno 2: tocca a te, fase delle azioni, 3 punti azione." in out and "  1. spostare un branco (5)" in out
    assert "Quale branco, verso dove [1-5, 0 indietro" in out and "Tu: branco spostato 0,0 -> 1,0" in out
    assert "fase delle azioni, 2 punti azione." in out and "4. finire il turno" in out
    assert "(giocata qui), voce 9 del registro" in out and "Mazzo: 18 carte (5 del mazzo 2)" in out
    assert "  1. Computer · facile (computer facile): 0 punti, 6 branchi in riserva, 4 sulla plancia" in out
    assert "Mossa annullata." in out and "Partita interrotta e conservata: riprendila con" in out
    assert leftovers(out) == []


def test_a_whole_italian_game_has_no_english_or_french_left(cli, monkeypatch, capsys):
    """Three seats, so interim scorings (T16) happen; the meteorite, swimmers back to stock, the final table."""
    out = play(cli, monkeypatch, capsys, "1\n" * 3000, "--seed", "4", "--lang", "it", "--opponents", "2")
    # The computers' moves vary (their guesses of hidden cards are random): what every such game shows.
    for said in ("conteggio intermedio (T16): ", "Impatto del meteorite: ultimo giro (T17)", "ultimo giro, T17): ",
                 "rientro in riserva: ", "(a nuoto)", "La partita è finita.", "Conteggio finale (T18), continenti tranne",
                 "Continenti (* quello del Polo Sud"):
        assert said in out, said
    assert re.search(r"Vincitore \(T19\): |Vincitori \(a pari merito, T19\): ", out)  # never "Vincitore/i"
    assert re.search(r"(?m)^  [A-Z]: 1 tessera \(", out) and re.search(r"(?m)^  [A-Z]: \d+ tessere \(", out)
    assert leftovers(out) == []


def test_show_speaks_the_games_language_seat_levels_included(cli, capsys, tmp_path):
    for lang, said in (("fr", ["Mise en place (T8) : Ana pose 2 troupeaux", "Bot (ordinateur difficile) : 0 point,",
                               "(jouée ici)", "Pioche : 19 cartes"]),
                       ("it", ["Preparazione (T8): Ana piazza 2 branchi", "Bot (computer difficile): 0 punti,",
                               "(giocata qui)", "Mazzo: 19 carte", "Mappa: M Montagna"])):
        assert cli("new", "--seat", "Ana", "--seat", "Bot:hard", "--seed", "3", "--lang", lang) == 0
        gid = re.search(r"/trias/g/(\w+)$", capsys.readouterr().out, re.M).group(1)  # `new` speaks the game's language
        assert cli("show", gid) == 0
        out = capsys.readouterr().out
        assert all(s in out for s in said), (lang, out[:600])
        assert "hard" not in out and "Set-up" not in out and "Deck:" not in out


def test_score_explains_in_italian(cli, tmp_path, capsys):
    path = tmp_path / "end.json"
    path.write_text('{"land_masses": [{"name": "A", "tiles": 3, "herds": {"Ana": 2, "Bo": 1}}]}', encoding="utf-8")
    assert cli("score", str(path), "--lang", "it") == 0
    out = capsys.readouterr().out
    assert "A (3 tessere)" in out and "Totali: Ana 3, Bo 2" in out and "Ana vince con 3 punti" in out


def test_print_kind_trias_in_italian_writes_the_italian_printables(tmp_path, capsys):
    out = tmp_path / "print"
    assert main(["--config", str(CONFIG), "--db", str(tmp_path / "none.db"), "print", "--kind", "trias",
                 "--seed", "7", "--players", "3", "--lang", "it", "--out", str(out)]) == 0
    names = sorted(p.name for p in out.iterdir())
    assert names == ["trias-aid-it.pdf", "trias-score-sheet-it.pdf", "trias-setup-3p-seed-7-a4-it.pdf"]
    for name, title in (("trias-aid-it.pdf", "aid_title"), ("trias-score-sheet-it.pdf", "score_title"),
                        ("trias-setup-3p-seed-7-a4-it.pdf", "setup_title")):
        text = all_text((out / name).read_bytes())
        assert PRINTED["it"][title] in text and PRINTED["en"][title] not in text and PRINTED["fr"][title] not in text
    assert "Bosco" in all_text((out / "trias-setup-3p-seed-7-a4-it.pdf").read_bytes())
    assert not (tmp_path / "none.db").exists()


@pytest.mark.parametrize("kind", ["cards", "boards", "all"])
def test_print_of_the_field_game_refuses_italian_and_writes_nothing(tmp_path, capsys, kind):
    out = tmp_path / "print"
    code = main(["--config", str(CONFIG), "--db", str(tmp_path / "none.db"), "print", "--kind", kind,
                 "--lang", "it", "--out", str(out)])
    err = capsys.readouterr().err
    assert code == 2
    assert "Italian is available for Trias printables only: use --lang fr or en for the field game's pack" in err
    assert "Traceback" not in err and not out.exists() and not (tmp_path / "none.db").exists()
