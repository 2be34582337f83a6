"""Shared fixtures: the repo's config, a fresh game database, a created bank."""

from __future__ import annotations

import itertools
import uuid
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


class WebClient:
    """A browser-like client of the API: keeps its cookie and CSRF token, numbers its command ids."""

    def __init__(self, client):
        self.client = client
        self.csrf = client.get("/api/csrf").get_json()["csrf"]
        self.ids = itertools.count(1)
        # Not id(self): a client garbage-collected earlier may leave its id to a new one,
        # whose first command would then reuse a booked key (409 id_conflict).
        self.name = uuid.uuid4().hex[:12]

    def login(self, username: str, password: str = "correct horse"):
        reply = self.client.post("/api/login", json={"username": username, "password": password},
                                 headers={"X-CSRF-Token": self.csrf})
        if reply.status_code == 200:
            self.csrf = reply.get_json()["csrf"]
        return reply

    def command(self, key: str | None = None, **command):
        key = key or f"{self.name}-{next(self.ids)}"
        return self.client.post("/api/commands", json=command, headers={"X-CSRF-Token": self.csrf, "Idempotency-Key": key})


@pytest.fixture
def app(tmp_path, config):
    """The live bank app on a fresh game, with one facilitator of each role."""
    from bank.web import create_app

    app = create_app({"DB": tmp_path / "web.db", "CONFIG": config, "TESTING": True,
                      "PASSWORD_HASH": "pbkdf2:sha256:1000"})
    access = app.extensions["terrabank"].access
    for role in ("lead", "banker", "referee"):
        access.add_user(role, "correct horse", role)
    yield app
    app.extensions["terrabank"].bank.close()
    access.close()


@pytest.fixture
def web(app):
    """A factory of API clients: web() is anonymous, web("lead") is logged in as the lead."""
    def make(role: str | None = None) -> WebClient:
        client = WebClient(app.test_client())
        if role:
            assert client.login(role).status_code == 200
        return client
    return make


@pytest.fixture
def tokens(app):
    """Each team's secret phone token."""
    return app.extensions["terrabank"].access.team_tokens()


@pytest.fixture(scope="module")
def chromium():
    """One headless Debian Chromium per test module, driven by Playwright (skips without them)."""
    from browserkit import ARGS, CHROMIUM

    sync_api = pytest.importorskip("playwright.sync_api")
    if not Path(CHROMIUM).exists():
        pytest.skip("needs Debian's chromium at /usr/bin/chromium")
    with sync_api.sync_playwright() as p:
        launched = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        yield launched
        launched.close()
