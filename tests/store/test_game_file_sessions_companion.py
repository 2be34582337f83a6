"""The session generation file `<game>-sessions` (bank/store/accounts/sessions.py) lives and dies with
its game: `init --force` and a failed or replaced game file take it along (bank/store/sqlite_file.py).

Before, remove_database/move_database knew only -wal and -shm: a replaced game kept the old game's
generation file beside it, and a removed game left it behind in the folder.
"""

from __future__ import annotations

import io
import os
from pathlib import Path

import pytest

from bank.cli.main import main
from bank.store.accounts.sessions import generation_file
from bank.store.sqlite_file import move_database, remove_database

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def game(tmp_path, monkeypatch, capsys):
    """A new game in tmp_path whose account was replaced once (so its generation file exists)."""
    monkeypatch.chdir(ROOT)
    monkeypatch.delenv("TERRABANK_DB", raising=False)
    db = tmp_path / "g.db"
    assert main(["--db", str(db), "init"]) == 0
    for password in ("first-password-1", "second-password-2"):  # the replace ends alice's sessions: a bump
        monkeypatch.setattr("sys.stdin", io.StringIO(password + "\n"))
        assert main(["--db", str(db), "user", "alice", "--role", "banker", "--password-stdin"]) == 0
    capsys.readouterr()
    assert os.path.exists(generation_file(db))
    return db


def test_init_force_leaves_no_generation_file_of_the_replaced_game(game):
    assert main(["--db", str(game), "init", "--force"]) == 0
    assert not os.path.exists(generation_file(game))


def test_a_removed_game_leaves_no_file_of_its_own(game):
    remove_database(game)
    assert [p.name for p in game.parent.iterdir() if p.name.startswith("g.db-")] == []


def test_a_moved_game_takes_its_generation_file_along(game, tmp_path):
    stamp = Path(generation_file(game)).read_bytes()
    moved = tmp_path / "moved.db"
    move_database(game, moved)
    assert not os.path.exists(generation_file(game))
    assert Path(generation_file(moved)).read_bytes() == stamp  # the same generation, not a new one
