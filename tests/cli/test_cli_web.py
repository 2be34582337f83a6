"""The live bank's terminal commands: accounts and team links."""

import io
from pathlib import Path

from bank.cli.main import main

ROOT = Path(__file__).resolve().parents[2]


def test_user_then_links(tmp_path, capsys, monkeypatch):
    db, config = str(tmp_path / "g.db"), "config.toml"
    monkeypatch.chdir(ROOT)
    assert main(["--db", db, "--config", config, "init"]) == 0
    monkeypatch.setattr("sys.stdin", io.StringIO("a long password\n"))
    assert main(["--db", db, "--config", config, "user", "alice", "--role", "banker", "--password-stdin"]) == 0
    assert "alice (banker)" in capsys.readouterr().out
    assert main(["--db", db, "--config", config, "links", "--base", "http://bank.local:5000"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert [line.split()[0] for line in lines] == ["blue", "yellow", "red", "green"]
    assert all(line.split()[1].startswith("http://bank.local:5000/t/") for line in lines)


def test_weak_password_is_refused_with_a_clear_line(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(ROOT)
    db = str(tmp_path / "g.db")
    main(["--db", db, "init"])
    monkeypatch.setattr("sys.stdin", io.StringIO("short\n"))
    assert main(["--db", db, "user", "bob", "--role", "lead", "--password-stdin"]) == 2
    assert "at least 8 characters" in capsys.readouterr().err
