"""What the Trias service tests share: seats, opened games, a game played to its end.

`games` keeps its games where the app would for a bank at `<tmp>/terrabank.db`
(bank/store/trias_store.py): the folder beside it, or, in the PostgreSQL run of a module in
conftest.BOTH_STORES, the test server's database under that bank game's name.
"""

from __future__ import annotations

from contextlib import contextmanager

import pytest

import trias
from bank.services.trias_games import open_games

HUMANS = [{"name": "Ana", "kind": "human"}, {"name": "Ben", "kind": "human"}, {"name": "Céline", "kind": "human"}]
VS_BOT = [{"name": "Ana", "kind": "human"}, {"name": "Bot", "kind": "computer", "level": "easy"}]


@pytest.fixture
def folder(tmp_path):
    return tmp_path / "terrabank-trias"


@pytest.fixture
def reopen(tmp_path):
    """Another TriasGames on the same games, as a second process (the CLI, another server) opens them."""
    opened = []

    def make():
        opened.append(open_games(tmp_path / "terrabank.db"))
        return opened[-1]
    yield make
    for games in opened:
        games.close()


@pytest.fixture
def games(tmp_path):
    opened = open_games(tmp_path / "terrabank.db")
    yield opened
    opened.close()


def first_legal(game) -> dict:
    return trias.legal_actions(game.state)[0]


def finish(game) -> None:
    """Play the game to its end (ending each turn as soon as it may), as the terminal would."""
    n = 0
    while game.state.phase != "over":
        legal = trias.legal_actions(game.state)
        command = next((c for c in legal if c["type"] == "end_turn"), legal[0])
        n += 1
        game.execute(command, f"finish-{n}", "cli")


@contextmanager
def trias_web_app(db, config, **settings):
    """The bank's app for Trias route tests: computer moves at once (TRIAS_PACE 0), closed after."""
    from bank.web import create_app

    app = create_app({"DB": db, "CONFIG": config, "TESTING": True, "TRIAS_PACE": 0, **settings})
    try:
        yield app
    finally:
        app.extensions["trias_games"].close()
        app.extensions["terrabank"].bank.close()
        app.extensions["terrabank"].access.close()
