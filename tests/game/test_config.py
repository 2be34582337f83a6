"""config.toml is the single source of truth: the defaults of docs/rules/field-game.md, and clear errors."""

import pytest

from bank.game.config import load_config, parse_config
from bank.errors import ConfigError
from play import DEFAULT_CONFIG, config_with


def test_default_config_holds_rules_defaults():
    """R1, R2, R10, R21, R27, R30, R32: the numbers of the rules pages."""
    c = load_config(DEFAULT_CONFIG)
    assert list(c.teams) == ["blue", "yellow", "red", "green"]
    assert {t: c.teams[t].resource for t in c.teams} == {"blue": "water", "yellow": "energy", "red": "dioxygen", "green": "flora"}
    assert {r: c.roles[r].strength for r in c.roles} == {"harvester": 1, "merchant": 1, "builder": 2, "pirate": 3}
    assert c.buildings["greenhouse"].cost == {"energy": 15, "flora": 10, "water": 10, "dioxygen": 5}
    assert c.tracks["hydrosphere"].icons[10] == {"dice": 3}
    assert c.animals["otter"].cost == {"fauna": 12, "water": 8, "flora": 4, "energy": 10}
    assert (c.exchange_tokens, c.exchange_points) == (10, 1)
    assert c.cards() == ["harvester-1", "harvester-2", "merchant-1", "builder-1", "pirate-1"]


@pytest.mark.parametrize("old, new, names", [
    ("reputation = 5\nharvest_multiplier", "reputaton = 5\nharvest_multiplier", "'reputaton': a misspelling"),
    ("step_cost = 6", "step_cost = \"six\"", "tracks.phytosphere.step_cost"),
    ("cost = { energy = 15, water = 10 }", "cost = { energy = 15, watr = 10 }", "buildings.purification_centre.cost.watr"),
    ("resource = \"water\"\n\n[[teams]]", "resource = \"joker\"\n\n[[teams]]", "'teams[0].resource' (the first [[teams]] table)"),
    ("requires_buildings = [\"power_plant_1\"]", "requires_buildings = [\"power_plant_9\"]", "buildings.power_plant_2.requires_buildings"),
    ("duration_minutes = 180", "duration_minutes = 0", "game.duration_minutes"),
    ("animal_unlock_level = 4", "animal_unlock_level = 40", "track_rules.animal_unlock_level"),
    ("rounds = [1, 3]", "rounds = [1]", "'fights.pairs[0].rounds' (the first [[fights.pairs]] table)"),
    ("colour = \"#1f6fd1\"\nharvestable", "colour = \"blue\"\nharvestable", "resources.water.colour"),
])
def test_config_mistake_names_the_key(old, new, names):
    with pytest.raises(ConfigError) as err:
        config_with((old, new))
    assert names in str(err.value)


def test_config_refuses_a_single_team():
    """R1: 2 to 6 teams."""
    text = DEFAULT_CONFIG.read_text(encoding="utf-8")
    first = text.index("[[teams]]")
    last = text.index("# Roles (R9")
    one_team = text[:first] + text[first:last].split("\n[[teams]]")[0] + "\n" + text[last:]
    with pytest.raises(ConfigError, match="2 to 6 teams"):
        parse_config(one_team)


def test_broken_toml_and_missing_file_give_one_sentence(tmp_path):
    with pytest.raises(ConfigError, match="not valid TOML"):
        parse_config("[game\ntitle = 1")
    with pytest.raises(ConfigError, match="no such file"):
        load_config(tmp_path / "nope.toml")


def test_every_key_of_the_default_config_is_commented():
    """Every section of config.toml carries a comment a facilitator can read."""
    lines = DEFAULT_CONFIG.read_text(encoding="utf-8").splitlines()
    for i, line in enumerate(lines):
        if line.startswith("[") and not line.startswith("[["):
            above = [l for l in lines[max(0, i - 12):i + 4] if l.strip()]
            section = line.strip("[]")
            same_family = any(l.startswith("[" + section.split(".")[0]) for l in above)
            assert same_family or any(l.startswith("#") for l in above), f"section {line} has no comment above it"

