"""`links` prints the address the phones really use: it printed the configured
port 5000 while the bank served on another, though the admin page and the join cards were right."""

from pathlib import Path

from bank.cli.main import main
from bank.cli.serve import remember_address

ROOT = Path(__file__).resolve().parents[2]


def _links(db, *extra):
    return main(["--db", db, "--config", "config.toml", "links", *extra])


def test_links_use_the_address_serve_last_printed_with_its_port(tmp_path, capsys, monkeypatch):
    db = str(tmp_path / "g.db")
    monkeypatch.chdir(ROOT)
    assert main(["--db", db, "--config", "config.toml", "init"]) == 0
    capsys.readouterr()
    remember_address(db, "http://192.168.4.1:8123")  # as `serve --port 8123` notes it beside the game
    assert _links(db) == 0
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == 4 and all(line.split()[1].startswith("http://192.168.4.1:8123/t/") for line in lines), lines


def test_links_base_still_wins_over_the_remembered_address(tmp_path, capsys, monkeypatch):
    db = str(tmp_path / "g.db")
    monkeypatch.chdir(ROOT)
    assert main(["--db", db, "--config", "config.toml", "init"]) == 0
    remember_address(db, "http://192.168.4.1:8123")
    capsys.readouterr()
    assert _links(db, "--base", "http://bank.local:9000") == 0
    assert all(" http://bank.local:9000/t/" in line for line in capsys.readouterr().out.splitlines())


def test_links_without_a_served_address_use_the_configured_port(tmp_path, capsys, monkeypatch):
    db = str(tmp_path / "g.db")
    monkeypatch.chdir(ROOT)
    monkeypatch.setattr("bank.cli.serve.addresses", lambda: ["10.0.0.7"])
    assert main(["--db", db, "--config", "config.toml", "init"]) == 0
    capsys.readouterr()
    assert _links(db) == 0
    assert all(" http://10.0.0.7:5000/t/" in line for line in capsys.readouterr().out.splitlines())
