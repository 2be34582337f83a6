"""The terminal, seen by a volunteer on game day: the command they really have, no tracebacks, a busy port."""

from __future__ import annotations

import importlib.util
import io
import socket
from pathlib import Path

import pytest

from bank.cli import serve as cli_web
from bank.cli.main import main

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def game(tmp_path, monkeypatch, capsys):
    """A new game in tmp_path, created with the repo's config; its database path."""
    monkeypatch.chdir(ROOT)
    db = str(tmp_path / "g.db")
    assert main(["--db", db, "init"]) == 0
    capsys.readouterr()
    return db


def _users(db) -> list:
    return [row["username"] for row in cli_web._app("config.toml", db).extensions["terrabank"].access.users()]


@pytest.mark.parametrize("typed", ["", EOFError, KeyboardInterrupt])
def test_no_password_at_the_prompt_is_one_clear_line(game, capsys, monkeypatch, typed):
    def fake_getpass(prompt=""):
        if isinstance(typed, str):
            return typed
        raise typed()

    monkeypatch.setattr(cli_web.getpass, "getpass", fake_getpass)
    assert main(["--db", game, "user", "alice", "--role", "banker"]) == 2
    err = capsys.readouterr().err
    assert "no password" in err and "nothing was changed" in err and "Traceback" not in err
    assert "alice" not in _users(game)


def test_empty_standard_input_is_one_clear_line(game, capsys, monkeypatch):
    monkeypatch.setattr("sys.stdin", io.StringIO(""))
    assert main(["--db", game, "user", "alice", "--role", "banker", "--password-stdin"]) == 2
    assert "no password" in capsys.readouterr().err


def test_messages_name_the_launcher_the_user_has(monkeypatch):
    spec = importlib.util.spec_from_file_location("run_launcher", ROOT / "run.py")
    run = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(run)
    monkeypatch.delenv("TERRABANK_LAUNCHER", raising=False)
    launched = run.bank_env()["TERRABANK_LAUNCHER"]
    assert launched.endswith("run.py")
    assert cli_web.launcher() == "terrabank"
    monkeypatch.setenv("TERRABANK_LAUNCHER", launched)
    assert cli_web.launcher() == launched


def test_first_start_names_the_launcher(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("TERRABANK_LAUNCHER", "python3 run.py")

    class Accounts:
        def add_user(self, *args):
            pass

    cli_web.first_lead(Accounts(), tmp_path / "g.db")  # stdout is not a terminal here: the password goes to a file
    out = capsys.readouterr().out
    assert "python3 run.py user NAME --role banker" in out and "terrabank user" not in out


def test_a_busy_port_is_refused_before_anything_is_printed(game, capsys):
    busy = socket.socket()
    busy.bind(("127.0.0.1", 0))
    busy.listen(1)
    port = busy.getsockname()[1]
    try:
        assert main(["--db", game, "serve", "--host", "127.0.0.1", "--port", str(port)]) == 2
    finally:
        busy.close()
    out, err = capsys.readouterr()
    assert "running" not in out and out.strip() == ""
    assert f"port {port} is in use" in err and "already running" in err and len(err.strip().splitlines()) == 1
