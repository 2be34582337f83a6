"""The terminal game (`trias play`) grouped, with the map in view, labelled axes, answers
echoed once, singular and plural in English and French, and land masses by letter. Piped standard input."""

from __future__ import annotations

import io
import json
import re
import sys

import pytest

import trias
from bank.cli.trias_map import mass_letters
from bank.cli.trias_menu import build_menu, commands
from bank.cli.trias_words import count
from bank.services.trias_games import TriasGames
from trias.hexes import label
from trias_kit import cli  # noqa: F401 (the fixture)


@pytest.fixture(autouse=True)
def computer_by_the_moves_not_the_clock(monkeypatch):
    """The easy computer judges every move: at its real budget it judges moves until a deadline, so on a
    loaded machine it may play another set-up, and the seeded games these tests read would differ."""
    from trias import bots
    from trias.state import forget_boards

    monkeypatch.setitem(bots.DEFAULT_BUDGET, "easy", {"seconds": None})
    forget_boards()  # each test reads its seeded game as a fresh terminal does, whatever ran before it


@pytest.fixture
def games_dir(tmp_path):
    return tmp_path / "terrabank-trias"


def play(cli, monkeypatch, capsys, answers: str, *args) -> str:
    monkeypatch.setattr(sys, "stdin", io.StringIO(answers))
    assert cli("play", *args) == 0
    return capsys.readouterr().out


def _key(cmd) -> str:
    return json.dumps(cmd, sort_keys=True)


def positions(games_dir, players: int, steps: int, seed: int):
    """States along a game of people playing the engine's listed moves (the i-th, varied), every phase."""
    games = TriasGames(games_dir)
    try:
        game = games.create([{"name": f"P{i}", "kind": "human"} for i in range(players)], seed, "play", "en")
        for step in range(steps):
            if game.state.phase == "over":
                break
            yield game.state
            listed = trias.legal_actions(game.state)
            game.execute(listed[(step * 7) % len(listed)], f"c{step}", "cli")
    finally:
        games.close()


@pytest.mark.parametrize("players, seed", [(2, 4), (3, 9), (5, 2)])
def test_walking_every_group_reaches_exactly_the_engines_legal_moves(games_dir, players, seed):
    phases = set()
    for state in positions(games_dir, players, 60, seed):
        phases.add(state.phase)
        menu = build_menu(state)
        reached = sorted(_key(c) for c in commands(menu))
        assert reached == sorted(_key(c) for c in trias.legal_actions(state))
        assert len(set(reached)) == len(reached)  # each move once
        # Drifts are asked in two steps: no drift at the top, a tile opens its destinations.
        assert not [c for c in menu if c.cmd and "tile" in c.cmd]
    assert {"place", "start", "actions"} <= phases


def _first_turn_screen(cli, monkeypatch, capsys, games_dir, lang="en") -> str:
    """Placements done, then the screen of the first turn's phase 1."""
    out = play(cli, monkeypatch, capsys, "1\n1\n", "--seed", "4", "--lang", lang)
    return out


def test_top_level_is_short_herd_moves_first_and_a_drift_asks_tile_then_place(cli, monkeypatch, capsys):
    # 2 placements, play the card on the first tile (step 1) and its second place (step 2); then the actions.
    # (Seed 4 on listing 2, trias/README.md: the easy computer's drifts are drawn from it.)
    out = play(cli, monkeypatch, capsys, "1\n1\n1\n2\n", "--seed", "4", "--lang", "en")
    assert "  1. play your steppe card: drift steppe -3,0 (4 places)" in out
    assert "Drift steppe -3,0 to [1-4, 0 back, u, b, q]: 2" in out
    second = re.search(r"\b2\. to (-?\d+,-?\d+) \(distance", out).group(1)  # the place listed as 2
    assert f"You: played steppe; drifted steppe -3,0 -> {second}" in out, out[-3000:]
    actions = out.split("phase actions")[1].split("your move")[0]
    listed = sorted((int(n), text) for n, text in re.findall(r"(\d+)\. (.+?)(?=\s{2,}\d+\. |\n)", actions))
    assert [text for _, text in listed[:3]] == ["move a herd (5)", "reproduce on 0,0", "rescue swimmers (19)"]
    assert [n for n, _ in listed] == list(range(1, len(listed) + 1)) and len(listed) < 25
    assert listed[-1][1] == "end the turn" and "drift woods -1,1, 3 points (19 places)" in dict(listed).values()


def test_back_from_a_group_and_every_group_opens(cli, monkeypatch, capsys):
    out = play(cli, monkeypatch, capsys, "1\n1\n1\n0\n7\n", "--seed", "4", "--lang", "en")
    assert out.count("Drift steppe -3,0 to [1-4, 0 back") == 1
    assert "You: draw" not in out and "You: drew" in out  # back at the top, 7 drew


def test_a_map_with_both_axes_labelled_before_each_choice_even_the_first_placement(cli, monkeypatch, capsys):
    out = play(cli, monkeypatch, capsys, "1\n1\n", "--seed", "4", "--lang", "en")
    prompts = out.split("your move [")
    assert len(prompts) == 4  # 3 choices: 2 placements and the first turn
    for before in prompts[:-1]:
        screen = before.rsplit("Map:", 1)[1]
        assert re.search(r"\n   q( +-?\d+)* +-1  0  1( +-?\d+)*  a tile touches: left, right, up", screen) and re.search(r"\nr  0 ( +[SMWP]\d?)*  S  W", screen)
    first = prompts[0]
    assert first.index("Map:") < first.index("1. place 2 herds")


class Terminal(io.StringIO):
    """Standard input from a terminal, which shows the typed answer itself."""

    def isatty(self):
        return True


def test_each_answer_is_shown_once(cli, monkeypatch, capsys):
    monkeypatch.setattr(sys, "stdin", Terminal("1\nq\n"))
    assert cli("play", "--seed", "4", "--lang", "en") == 0
    out = capsys.readouterr().out
    assert "[1-19, u, b, q]: You: placed" in out  # the terminal echoed "1\n": nothing printed again
    piped = play(cli, monkeypatch, capsys, "1\nq\n", "--seed", "4", "--lang", "en")
    assert "[1-19, u, b, q]: 1\nYou: placed" in piped and piped.count("q]: 1\n") == 1


def test_singular_and_plural_in_english_and_french(cli, monkeypatch, capsys):
    assert [count("en", n, "ap") for n in (0, 1, 2)] == ["0 action points", "1 action point", "2 action points"]
    assert [count("en", n, "tile") for n in (1, 3)] == ["1 tile", "3 tiles"]
    assert [count("fr", n, "ap") for n in (0, 1, 2)] == ["0 point d'action", "1 point d'action", "2 points d'action"]
    assert [count("fr", n, "herd") for n in (1, 3)] == ["1 troupeau", "3 troupeaux"]
    out = play(cli, monkeypatch, capsys, "q\n", "--seed", "4", "--lang", "en")
    assert "Set-up (T8): you place 2 herds" in out and "You places" not in out
    out = play(cli, monkeypatch, capsys, "1\n1\nq\n", "--seed", "4", "--lang", "fr")
    assert "Mise en place (T8) : vous posez 2 troupeaux" in out and "now your turn" not in out
    assert "Tour 2 : à vous de jouer, phase de départ, 3 points d'action." in out
    assert "Vous : a posé 2 troupeaux sur" in out and "au tour d'Ordinateur · facile" in out and "3 points d'action" in out


def test_final_table_names_land_masses_by_the_letters_on_the_map(cli, games_dir, monkeypatch, capsys):
    out = play(cli, monkeypatch, capsys, "1\n" * 3000, "--seed", "4", "--lang", "en")
    assert "The game is over." in out
    final = out.split("The game is over.")[-1]
    rows = re.findall(r"(?m)^  ([A-Z]): (\d+) tiles? \(", final)
    games = TriasGames(games_dir)
    try:
        (entry,) = games.list()
        state = games.get(entry["id"]).state
    finally:
        games.close()
    letters = mass_letters(state)
    table = state.result["table"]
    assert [r[0] for r in rows] == [chr(ord("A") + i) for i in range(len(table))]
    for (letter, size), row in zip(rows, table):
        assert int(size) == row["size"]
        assert {letters[tuple(map(int, t.split(",")))] for t in row["tiles"]} == {letter}
    masses = final.split("Land masses")[1].split("Final scoring")[0]
    assert all(f" {r[0]}" in masses for r in rows) and " *" in masses
    assert re.search(r"(?m)^  [A-Z]: 1 tile \(", final) or "1 tiles" not in final
