"""Shared fixtures: the repo's config, a fresh game database, a created bank."""

from __future__ import annotations

import itertools
from pathlib import Path

import pytest

from bank.config import load_config
from bank.service import Bank

ROOT = Path(__file__).resolve().parents[1]
CONFIG_PATH = ROOT / "config.toml"


@pytest.fixture
def config():
    """The config.toml that ships with Terrabank."""
    return load_config(CONFIG_PATH)


@pytest.fixture
def bank_path(tmp_path):
    """Where the test's game database lives (not created yet)."""
    return tmp_path / "game.db"


@pytest.fixture
def bank(config, bank_path):
    """A newly created game (set up, clock not started), closed after the test."""
    created = Bank.create(bank_path, config)
    yield created
    created.close()


@pytest.fixture
def run(bank):
    """Execute a command on `bank` with a fresh id: run({"type": ...}) -> Result."""
    ids = itertools.count(1)

    def _run(command: dict, now: float | None = None):
        return bank.execute({"id": f"test-{next(ids)}", **command}, now=now)

    return _run


@pytest.fixture
def started(bank, run):
    """The bank with its game clock running, so play commands are accepted."""
    run({"type": "start_clock"})
    return bank
