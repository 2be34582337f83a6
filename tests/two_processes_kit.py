"""Two processes of one game, as two apps made by create_app on one store: nothing in memory is shared.

For what every `terrabank serve` process of a game must see alike (reports kept with the accounts): a test
parametrises its store on the game's SQLite file and on the test PostgreSQL server, and makes its pair here.
"""

from __future__ import annotations

import os
from contextlib import contextmanager

import pytest

from bank.store.storage_url import ENV_VAR
from bank.web import create_app

PASSWORD_HASH = "pbkdf2:sha256:1000"  # a cheap hash: log-ins are not what these tests time


@contextmanager
def on_store(request):
    """The store both apps share for the fixture's `request.param`: "sqlite" or "postgresql"."""
    before = os.environ.pop(ENV_VAR, None)
    if request.param == "postgresql":
        os.environ[ENV_VAR] = request.getfixturevalue("postgres_server").url
    try:
        yield request.param
    finally:
        os.environ.pop(ENV_VAR, None)
        if before is not None:
            os.environ[ENV_VAR] = before


@contextmanager
def two_apps(tmp_path, config, roles=("lead",)):
    """Two apps on one game, with a facilitator of each role (password "correct horse", name = role)."""
    made = [create_app({"DB": tmp_path / "shared.db", "CONFIG": config, "TESTING": True,
                        "PASSWORD_HASH": PASSWORD_HASH}) for _ in range(2)]
    for role in roles:
        made[0].extensions["terrabank"].access.add_user(role, "correct horse", role)
    try:
        yield made
    finally:
        for app in made:
            app.extensions["terrabank"].bank.close()
            app.extensions["terrabank"].access.close()


@pytest.fixture(params=["sqlite", "postgresql"])
def store(request):
    """The store both processes share: the game's SQLite file, or the game in the test PostgreSQL server."""
    with on_store(request) as name:
        yield name
