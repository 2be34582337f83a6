"""What the Trias service tests share: seats, opened games, a game played to its end.

`games` keeps its games where the app would for a bank at `<tmp>/terrabank.db`
(bank/store/trias_store.py): the folder beside it, or, in the PostgreSQL run of a module in
conftest.BOTH_STORES, the test server's database under that bank game's name.
"""

from __future__ import annotations

import itertools
import json
import sqlite3
from contextlib import contextmanager

import pytest

import trias
from bank.cli.main import main
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


@pytest.fixture
def cli(tmp_path):
    """`terrabank --db <tmp>/terrabank.db trias ...` through main(): its exit code."""
    return lambda *args: main(["--db", str(tmp_path / "terrabank.db"), "trias", *args])


def edit_identity(path, change, before_the_seed: bool = False) -> None:
    """Edit a stored game's identity by hand. `before_the_seed`: the game as stored before its creation
    record was bound into the chain (no chain seed, row 1 linked to GENESIS), so that an older identity's
    shape is imitated rather than forged; without it the chain names the edit."""
    from bank.store import chain

    conn = sqlite3.connect(path)
    conn.execute("DROP TRIGGER IF EXISTS meta_no_update")
    identity = json.loads(conn.execute("SELECT value FROM meta WHERE key='identity'").fetchone()[0])
    change(identity)
    conn.execute("UPDATE meta SET value=? WHERE key='identity'", (json.dumps(identity),))
    if before_the_seed:
        conn.execute("DROP TRIGGER IF EXISTS meta_no_delete")
        conn.execute("DROP TRIGGER IF EXISTS chain_no_update")
        conn.execute("DELETE FROM meta WHERE key=?", (chain.SEED_KEY,))
        rows = conn.execute(chain.SELECT_ROWS + " ORDER BY seq").fetchall()
        seals = dict(conn.execute("SELECT seq, seal FROM chain_snapshot").fetchall())
        conn.executemany("UPDATE chain SET hash=? WHERE seq=?",
                         [(h, s) for s, h in chain.replay(rows, seals, chain.GENESIS)])
    conn.commit()
    conn.close()


class Table:
    """A browser at the table: its cookie, its CSRF token, fresh command keys."""

    def __init__(self, app):
        self.app, self.client = app, app.test_client()
        self.csrf = self.client.get("/api/csrf").get_json()["csrf"]
        self.keys = itertools.count(1)

    def post(self, url, body=None, key=None):
        return self.client.post(url, json=body if body is not None else {},
                                headers={"X-CSRF-Token": self.csrf, "Idempotency-Key": key or f"k{next(self.keys)}"})

    def new_game(self, *seats, mode="play", seed=7):
        reply = self.post("/trias/api/games", {"seats": [dict(s, name=s.get("name", f"P{i}")) for i, s in enumerate(seats)],
                                               "mode": mode, "seed": seed})
        assert reply.status_code == 201, reply.get_json()
        body = reply.get_json()
        return self.app.extensions["trias_games"].get(body["id"]), body

    def seat_move(self, game, command, key=None):
        token = game.seats[game.state.current]["token"]
        return self.post(f"/trias/api/s/{token}/commands", command, key)
