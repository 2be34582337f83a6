"""The terrabank command, through main([...]): output, files written, exit codes."""

from __future__ import annotations

import csv
import json
import sqlite3

import pytest

from bank.cli.main import main
from bank.game.config import load_config
from bank.services.bank import Bank
from conftest import CONFIG_PATH


@pytest.fixture
def cli(bank_path, monkeypatch):
    """main() with --config and --db pointing at the test's game."""
    monkeypatch.delenv("TERRABANK_CONFIG", raising=False)
    monkeypatch.delenv("TERRABANK_DB", raising=False)
    return lambda *args: main(["--config", str(CONFIG_PATH), "--db", str(bank_path), *args])


@pytest.fixture
def game(cli, bank_path, capsys):
    """A game created with `init`, with a few commands played."""
    assert cli("init") == 0
    with Bank.open(bank_path, load_config(CONFIG_PATH)) as bank:
        bank.execute({"id": "go", "type": "start_clock"})
        bank.execute({"id": "h1", "type": "harvest", "team": "red", "card": "harvester-1",
                      "resource": "dioxygen", "actor": "ana"})
        bank.execute({"id": "a1", "type": "award", "team": "red", "points": 2,
                      "reason": "fair play"})
    capsys.readouterr()


def _error_line(capsys) -> str:
    err = capsys.readouterr().err
    assert err.startswith("terrabank: ") and err.count("\n") == 1, err
    assert "Traceback" not in err
    return err


def test_init_creates_the_game_and_says_where(cli, bank_path, capsys):
    assert cli("init") == 0
    assert str(bank_path) in capsys.readouterr().out
    assert bank_path.exists()


def test_init_refuses_an_existing_game_unless_forced(cli, game, capsys):
    assert cli("init") == 2
    assert "--force" in _error_line(capsys)
    assert cli("init", "--force") == 0


def test_standings_table(cli, game, capsys):
    assert cli("standings") == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].split() == ["Rank", "Team", "Reputation", "Animals", "Buildings"]
    assert lines[1].split() == ["1", "Rouges", "2", "0", "0"]  # labels in the game's language
    assert len(lines) == 5


def test_standings_columns_line_up_whatever_the_names_emoji_flags_and_families(tmp_path, capsys):
    """Padded by code points, a name with a family emoji (seven of them, two columns on a terminal) pushed its
    row's figures five columns left of the others'."""
    import unicodedata

    from bank.game.graphemes import graphemes
    from print_names_kit import config_text_with_teams

    def columns(text):  # as a terminal shows it: an emoji (with its joiners, tones, selector) or a flag takes two
        return sum(2 if len(g) > 1 and not unicodedata.combining(g[1]) or unicodedata.east_asian_width(g[0]) == "W"
                   else 1 for g in graphemes(text))

    config = tmp_path / "config.toml"
    config.write_text(config_text_with_teams([("L’Équipe 👨‍👩‍👧‍👦 des Ébènes", "Ebony"), ("Les 🇫🇷 Bleus 👍🏽", "Blues"),
                                              ("Zoé ❤️", "Zoe"), ("Verts", "Greens")]), encoding="utf-8")
    cli = lambda *args: main(["--config", str(config), "--db", str(tmp_path / "g.db"), *args])  # noqa: E731
    assert cli("init") == 0 and cli("standings") == 0
    lines = capsys.readouterr().out.splitlines()[-5:]
    assert lines[0].startswith("Rank  Team") and "L’Équipe 👨‍👩‍👧‍👦 des Ébènes" in lines[1]
    ends = {columns(line[:line.index(" 0 ") + 2]) for line in lines[1:]}  # where each row's reputation ends
    assert ends == {columns(lines[0][:lines[0].index("Reputation") + len("Reputation")])}, lines


def test_team_shows_stock_and_reputation(cli, game, capsys):
    assert cli("team", "red") == 0
    out = capsys.readouterr().out
    assert "Rouges (red)" in out
    assert "Reputation: 2" in out
    assert "Dioxygène 6" in out
    assert "Buildings: none" in out


def test_r19_team_shows_a_pirate_cooldown(cli, game, bank_path, capsys):
    with Bank.open(bank_path, load_config(CONFIG_PATH)) as bank:
        bank.execute({"id": "f1", "type": "fight", "attacker_team": "blue",
                      "attacker_card": "pirate-1", "defender_team": "red",
                      "defender_card": "harvester-2", "winner": "attacker", "tokens": {}})
    assert cli("team", "blue") == 0
    out = capsys.readouterr().out
    assert "Cooldowns: pirate-1 " in out  # about 30 s left (R19)


def test_unknown_team(cli, game, capsys):
    assert cli("team", "purple") == 2
    assert "purple" in _error_line(capsys)


def test_export_journal_json(cli, game, tmp_path, capsys):
    out = tmp_path / "journal.json"
    assert cli("export", "journal", "--format", "json", "--out", str(out)) == 0
    rows = json.loads(out.read_text(encoding="utf-8"))
    assert [r["command_id"] for r in rows] == ["setup", "go", "h1", "a1"]
    assert rows[2]["actor"] == "ana"
    assert "Wrote 4 rows" in capsys.readouterr().out


def test_export_journal_csv_has_one_line_per_transfer(cli, game, tmp_path):
    out = tmp_path / "journal.csv"
    assert cli("export", "journal", "--format", "csv", "--out", str(out)) == 0
    with out.open(encoding="utf-8", newline="") as f:
        lines = list(csv.DictReader(f))
    assert list(lines[0]) == ["seq", "at", "type", "actor", "from", "to", "resource",
                              "amount", "reason", "chain"]  # its entry's head (test_verify_witness.py)
    harvest = [line for line in lines if line["type"] == "harvest"]
    assert harvest == [{**harvest[0], "seq": "3", "actor": "ana", "to": "team:red",
                        "resource": "dioxygen", "amount": "1", "reason": "harvest"}]
    assert all(line["type"] == "setup" for line in lines if line["seq"] == "1")


def test_export_standings_json_and_csv(cli, game, tmp_path):
    as_json, as_csv = tmp_path / "s.json", tmp_path / "s.csv"
    assert cli("export", "standings", "--format", "json", "--out", str(as_json)) == 0
    assert cli("export", "standings", "--format", "csv", "--out", str(as_csv)) == 0
    rows = json.loads(as_json.read_text(encoding="utf-8"))
    assert (rows[0]["team"], rows[0]["reputation"], rows[0]["rank"]) == ("red", 2, 1)
    with as_csv.open(encoding="utf-8", newline="") as f:
        lines = list(csv.DictReader(f))
    assert lines[0] == {"rank": "1", "team": "red", "label": "Rouges", "reputation": "2",
                        "animals": "0", "buildings": "0"}
    assert len(lines) == 4
    assert sorted(p.name for p in tmp_path.iterdir() if p.name.startswith(".")) == []


def test_export_to_a_missing_folder(cli, game, tmp_path, capsys):
    out = tmp_path / "nope" / "j.json"
    assert cli("export", "journal", "--out", str(out)) == 2
    assert "folder" in _error_line(capsys)


def test_verify_ok(cli, game, capsys):
    assert cli("verify") == 0
    assert capsys.readouterr().out.splitlines()[0] == "ok"


def test_verify_lists_problems_and_exits_1(cli, game, bank_path, capsys):
    raw = sqlite3.connect(bank_path)
    raw.execute("DROP TRIGGER journal_no_update")
    raw.execute("UPDATE journal SET command = replace(command, 'fair play', 'bribe') "
                "WHERE command_id = 'a1'")
    raw.commit()
    raw.close()
    assert cli("verify") == 1
    assert "seq 4: command content differs from its fingerprint" in capsys.readouterr().out


def test_missing_database_says_to_run_init(cli, capsys):
    assert cli("standings") == 2
    assert "terrabank init" in _error_line(capsys)


def test_broken_config_is_one_line(bank_path, tmp_path, capsys):
    broken = tmp_path / "config.toml"
    broken.write_text("[game\nduration_minutes = 180\n", encoding="utf-8")
    assert main(["--config", str(broken), "--db", str(bank_path), "init"]) == 2
    assert "not valid TOML" in _error_line(capsys)
    assert not bank_path.exists()


def test_missing_config(bank_path, tmp_path, capsys):
    assert main(["--config", str(tmp_path / "none.toml"), "--db", str(bank_path), "init"]) == 2
    assert "none.toml" in _error_line(capsys)


def test_defaults_come_from_the_environment(game, bank_path, tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("TERRABANK_CONFIG", str(CONFIG_PATH))
    monkeypatch.setenv("TERRABANK_DB", str(bank_path))
    assert main(["verify"]) == 0
    assert capsys.readouterr().out.splitlines()[0] == "ok"


def test_unknown_subcommand_is_a_usage_error(capsys):
    with pytest.raises(SystemExit) as exit_:
        main(["fly"])
    assert exit_.value.code == 2


def test_a_command_that_prints_nothing_loads_no_reportlab(tmp_path):
    """ReportLab and the print fonts are `print`'s and `config check`'s: `init`, `user`, `serve` (before it
    becomes its lean master) started with them, about a fifth of a CPU-second each (config check's font
    check imported them at every start), a cost every process a game day or a test starts paid."""
    import os
    import subprocess
    import sys
    from pathlib import Path

    terrabank = str(Path(sys.executable).with_name("terrabank"))
    env = {**os.environ, "PYTHONPROFILEIMPORTTIME": "1"}  # each module imported, one line on stderr
    env.pop("TERRABANK_DATABASE_URL", None)
    init = subprocess.run([terrabank, "--config", str(CONFIG_PATH), "--db", str(tmp_path / "game.db"), "init"],
                          capture_output=True, text=True, env=env, cwd=tmp_path, timeout=120)
    assert init.returncode == 0, init.stderr[-2000:]
    loaded = [line.rsplit("|", 1)[-1].strip() for line in init.stderr.splitlines() if line.startswith("import time:")]
    assert "bank.cli.main" in loaded  # the lines are there
    assert [m for m in loaded if m.split(".")[0] == "reportlab" or m == "printables.fonts"] == []
    check = subprocess.run([terrabank, "--config", str(CONFIG_PATH), "--db", str(tmp_path / "game.db"), "config",
                            "check"], capture_output=True, text=True, env=env, cwd=tmp_path, timeout=120)
    assert check.returncode == 0, check.stderr[-2000:]
    assert "printables.fonts" in check.stderr  # config check still checks every name against the print fonts


def _imports(tmp_path, *command: str, stdin: str | None = None) -> list:
    """The modules a `terrabank` command imports (PYTHONPROFILEIMPORTTIME: one line each on stderr)."""
    import os
    import subprocess
    import sys
    from pathlib import Path

    terrabank = str(Path(sys.executable).with_name("terrabank"))
    env = {**os.environ, "PYTHONPROFILEIMPORTTIME": "1"}
    env.pop("TERRABANK_DATABASE_URL", None)
    run = subprocess.run([terrabank, "--config", str(CONFIG_PATH), "--db", str(tmp_path / "game.db"), *command],
                         input=stdin, capture_output=True, text=True, env=env, cwd=tmp_path, timeout=120)
    assert run.returncode == 0, run.stderr[-2000:]
    loaded = [line.rsplit("|", 1)[-1].strip() for line in run.stderr.splitlines() if line.startswith("import time:")]
    assert "bank.cli.main" in loaded  # the lines are there
    return loaded


def test_user_and_links_build_no_web_app_and_init_loads_only_what_it_uses(tmp_path):
    """`user` and `links` are one-off commands on the game's accounts: they built the whole Flask app (Flask,
    Socket.IO, every route and template global), about 0.6 CPU-s a start, for one row. And every command loaded
    the modules of `trias` (the engine, its computer players), `migrate` (the PostgreSQL copy) and Babel
    (the web's translations), which only those commands and the web pages use."""
    from bank.store.accounts import open_access

    init = _imports(tmp_path, "init")
    unused = ("flask", "werkzeug", "socketio", "babel", "trias", "bank.web.app", "bank.services.migrate",
              "bank.store.journal_pg", "bank.services.trias_games")
    assert [m for m in init if m.split(".")[0] in unused or m in unused] == []
    user = _imports(tmp_path, "user", "alice", "--role", "banker", "--password-stdin", stdin="correct horse\n")
    assert [m for m in user if m.split(".")[0] in ("flask", "socketio", "flask_socketio", "jinja2")] == []
    access = open_access(tmp_path / "game.db", load_config(CONFIG_PATH))
    try:  # the account is there, and works
        assert [(u["username"], u["role"]) for u in access.users()] == [("alice", "banker")]
        assert access.check("alice", "correct horse") == "banker"
        tokens = access.team_tokens()
    finally:
        access.close()
    links = _imports(tmp_path, "links", "--base", "http://192.168.4.1:5000")
    assert [m for m in links if m.split(".")[0] in ("flask", "socketio", "flask_socketio", "jinja2")] == []
    assert tokens and set(tokens) == set(load_config(CONFIG_PATH).teams)


def test_the_trias_commands_levels_are_the_engines():
    """`terrabank trias`'s parser names the computer players' levels without loading the engine."""
    import trias
    from bank.cli import trias_parser
    from bank.web.i18n import TRIAS_LANGUAGES

    assert trias_parser.LEVELS == trias.bots.LEVELS
    assert trias_parser.LANGS == TRIAS_LANGUAGES
