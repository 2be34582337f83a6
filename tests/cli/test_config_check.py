"""Config where operators keep it, checked by name before a start.

Before: the steps kept config.toml in the root-owned checkout (an edit conflicted with `git pull`),
nothing but a start checked an edit, and no editor could: there was no `config check` command and
no schema. Now /etc/terrabank/config.toml through TERRABANK_CONFIG (the unit, the docs), `terrabank
config check` naming the key of a mistake, and docs/config.schema.json drawn from the reader itself.
"""

from __future__ import annotations

import configparser
import json
import tomllib

import pytest

from bank.cli.main import main
from test_state_directory import ROOT

SCHEMA = ROOT / "docs" / "config.schema.json"


def shipped_with(old: str, new: str) -> str:
    text = (ROOT / "config.toml").read_text(encoding="utf-8")
    assert old in text
    return text.replace(old, new, 1)


def test_the_committed_schema_is_the_one_the_reader_draws():
    from bank.game.config_schema import schema_text

    assert SCHEMA.read_text(encoding="utf-8") == schema_text(), (
        "docs/config.schema.json is out of date: terrabank config schema > docs/config.schema.json")


def test_the_schema_accepts_the_shipped_config_and_names_a_misspelt_key():
    jsonschema = pytest.importorskip("jsonschema")
    validator = jsonschema.Draft7Validator(json.loads(SCHEMA.read_text(encoding="utf-8")))
    assert list(validator.iter_errors(tomllib.loads((ROOT / "config.toml").read_text(encoding="utf-8")))) == []
    typo = tomllib.loads(shipped_with("[server]", "[server]\nprot = 5001"))
    errors = list(validator.iter_errors(typo))
    assert len(errors) == 1 and "prot" in errors[0].message and list(errors[0].path) == ["server"]
    unknown_language = tomllib.loads(shipped_with('language = "fr"', 'language = "de"'))
    assert any(list(e.path) == ["game", "language"] for e in validator.iter_errors(unknown_language))


def test_config_check_reads_terrabank_config_and_names_the_key_of_a_mistake(tmp_path, monkeypatch, capsys):
    etc = tmp_path / "etc" / "terrabank"
    etc.mkdir(parents=True)
    config = etc / "config.toml"
    config.write_text((ROOT / "config.toml").read_text(encoding="utf-8"), encoding="utf-8")
    monkeypatch.setenv("TERRABANK_CONFIG", str(config))
    monkeypatch.chdir(tmp_path)  # no config.toml here: only the variable can lead to it
    assert main(["config", "check"]) == 0
    said = capsys.readouterr().out
    assert str(config) in said and "TERRABANK_CONFIG" in said and "4 teams" in said
    config.write_text(shipped_with("[server]", "[server]\nprot = 5001"), encoding="utf-8")
    assert main(["config", "check"]) == 2
    said = capsys.readouterr().err.strip().splitlines()
    assert len(said) == 1 and "'server.prot'" in said[0] and str(config) in said[0]


def test_the_unit_reads_the_config_from_etc():
    unit = configparser.ConfigParser(strict=False, interpolation=None, delimiters=("=",))
    unit.optionxform = str
    text = (ROOT / "deploy" / "terrabank@.service").read_text()
    unit.read_string(text)
    assert "Environment=TERRABANK_CONFIG=/etc/terrabank/config.toml" in text.splitlines()
    assert unit.get("Service", "ExecReload") == "/bin/kill -HUP $MAINPID"
    assert unit.get("Service", "StateDirectory") == "terrabank"


def test_config_check_names_an_entry_of_a_table_array_as_the_schema_counts_it(tmp_path, monkeypatch, capsys):
    """`config check` said 'teams[1].resource' where the schema (and an editor using it) said
    teams/0/resource: the operator looked at the second team. Now the schema's index, and the table in words."""
    jsonschema = pytest.importorskip("jsonschema")
    team = 'id = "blue"\nlabel = { fr = "Bleus", en = "Blue" }\ncolour = '
    broken = shipped_with(team + '"#1f6fd1"', team + '"blue"')  # the first team's colour
    validator = jsonschema.Draft7Validator(json.loads(SCHEMA.read_text(encoding="utf-8")))
    paths = [list(e.path) for e in validator.iter_errors(tomllib.loads(broken))]
    assert ["teams", 0, "colour"] in paths, paths
    config = tmp_path / "config.toml"
    config.write_text(broken, encoding="utf-8")
    monkeypatch.setenv("TERRABANK_CONFIG", str(config))
    assert main(["config", "check"]) == 2
    said = capsys.readouterr().err.strip()
    assert "'teams[0].colour' (the first [[teams]] table)" in said, said
