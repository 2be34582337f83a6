"""config.toml: the game's numbers, loaded once and validated with clear messages."""

from __future__ import annotations

import tomllib
from pathlib import Path

from bank.game.config_model import GameConfig  # noqa: F401  (re-exported: the config's shape)
from bank.game.config_reader import Reader
from bank.game.config_sections import read_all
from bank.errors import ConfigError


def load_config(path) -> GameConfig:
    """Read and validate a config.toml file."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise ConfigError(f"{path}: no such file; copy the config.toml that ships with Terrabank next to the bank and edit it") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"{path}: cannot be read ({exc})") from None
    return parse_config(text, str(path))


def parse_config(text: str, source: str = "config.toml") -> GameConfig:
    """Validate config text; the first mistake raises a ConfigError naming its key."""
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{source}: not valid TOML ({exc}); check quotes, brackets and '=' signs there") from None
    return read_all(Reader(data, "", source), text)

