"""A computer seat never stops the table, even when its bot is wrong.

At a 4-player table a computer seat proposed a refused move; the server logged it and stopped
that game's computer seat, and every phone and the TV said "waiting for Ordinateur · facile" for
6+ minutes, until the server was restarted. Now a bot that proposes a refused move, or raises,
has its seat play a legal move at random instead: the game goes on, the journal row says it was a
fallback (so every screen can say so), and the log has one line per such move, no traceback.
"""

from __future__ import annotations

import logging

import pytest

import trias
import trias.bots
from bank.web.push.extensions import socketio_of
from trias_kit import trias_web_app

NS = "/trias"


@pytest.fixture
def app(tmp_path, config):
    with trias_web_app(tmp_path / "web.db", config) as made:
        yield made


def new_game(app, seats):
    games = app.extensions["trias_games"]
    return games.create(seats=seats, seed=11)


def refused_move(view, level, budget, rng, table=None):
    """A bot gone wrong: a move no phase allows."""
    return {"type": "reproduce", "at": [99, 99]}


def crashing_bot(view, level, budget, rng, table=None):
    raise RuntimeError("the search ran out of memory")


@pytest.mark.parametrize("broken", [refused_move, crashing_bot], ids=["refused", "raises"])
def test_a_broken_bot_plays_a_legal_fallback_and_the_game_reaches_its_end(app, broken, monkeypatch, caplog):
    game = new_game(app, [{"name": "Bot A", "kind": "computer", "level": "easy"},
                          {"name": "Bot B", "kind": "computer", "level": "hard"}])
    board = socketio_of(app).test_client(app, namespace=NS, auth={"game": game.id})
    monkeypatch.setattr(trias.bots, "choose", broken)
    player = app.extensions["trias_computer"]
    player.poke(game.id)  # as the route that makes a game does
    with caplog.at_level(logging.ERROR, logger="terrabank.trias"):
        for _ in range(3000):
            if game.state.phase == "over":
                break
            assert player.step(force=True) == 1, "the computer seat stopped"
    assert game.state.phase == "over" and game.verify() == []
    rows = list(game.public_rows(0, None))
    computer_rows = [r for r in rows if str(r.get("actor", "")).startswith("computer:")]
    assert computer_rows and all(r["command"].get("fallback") is True for r in computer_rows)
    lines = [r for r in caplog.records if r.name == "terrabank.trias"]
    assert len(lines) == len(computer_rows)  # one line per fallback move ...
    assert all(r.exc_info is None for r in lines)  # ... and no traceback
    assert ("rules refuse" if broken is refused_move else "RuntimeError") in lines[0].getMessage()
    # The screens got the rows that say so (the pages announce `command.fallback`, common.js).
    sent = [m["args"][0] for m in board.get_received(NS) if m["name"] == "state"]
    assert any(row["command"].get("fallback") for picture in sent for row in picture.get("rows", []))


def test_a_sound_bot_plays_its_own_move_not_a_fallback(app, caplog):
    game = new_game(app, [{"name": "Bot", "kind": "computer", "level": "easy"}, {"name": "Ana", "kind": "human"}])
    with caplog.at_level(logging.ERROR, logger="terrabank.trias"):
        game.play_computer({"seconds": 0.0})
    row = list(game.public_rows(0, None))[-1]
    assert row["actor"] == "computer:0" and "fallback" not in row["command"]
    assert trias.legal_actions(game.state) and not [r for r in caplog.records if r.name == "terrabank.trias"]
