"""Shared fixtures: the repo's config, a fresh game database, a created bank.

The journal's store: the suites in BOTH_STORES run twice, on the SQLite file
and on PostgreSQL (a throwaway server, tests/postgres_kit.py); every other test, and
the SQLite run, see no database URL at all.
"""

from __future__ import annotations

import itertools
import os
import uuid
from pathlib import Path

import pytest

from bank.game.config import load_config
from bank.services.bank import Bank
from needs import pytest_terminal_summary, require  # noqa: F401 (the hook: what was not tested, at the end)

# The suite's markers, order and durations (tests/suite_kit.py).
pytest_plugins = ("suite_kit",)

ROOT = Path(__file__).resolve().parents[1]
CONFIG_PATH = ROOT / "config.toml"

# Module names (or their beginnings) whose tests run on both stores of the journal.
BOTH_STORES = ("test_journal", "test_journal_chain", "test_service", "test_rules_", "test_properties",
               "test_trias_games")


def pytest_configure(config):
    config.addinivalue_line("markers", "sqlite_file: the test works on the SQLite file itself "
                            "(opens it with sqlite3, reads its PRAGMAs); not run on PostgreSQL")


def pytest_generate_tests(metafunc):
    name = metafunc.module.__name__.rpartition(".")[2]
    if "storage_backend" in metafunc.fixturenames and name.startswith(BOTH_STORES):
        metafunc.parametrize("storage_backend", ["sqlite", "postgresql"], indirect=True, scope="module")


def _throwaway(kit_name: str):
    """A server from tests/<kit_name>.py for the whole session; skips (saying why) where it cannot run."""
    import importlib

    kit = importlib.import_module(kit_name)
    reason = kit.missing_reason()
    if reason:
        pytest.skip(reason)
    server = kit.Server()
    yield server
    server.stop()


@pytest.fixture(scope="session")
def postgres_server():
    """One throwaway PostgreSQL server for the session (tests/postgres_kit.py)."""
    yield from _throwaway("postgres_kit")


@pytest.fixture(scope="session")
def redis_server():
    """One throwaway Redis for the session (tests/redis_kit.py): several server processes."""
    yield from _throwaway("redis_kit")


@pytest.fixture(scope="module", autouse=True)
def storage_backend(request):
    """"sqlite" (no database URL) or "postgresql" (TERRABANK_DATABASE_URL set to the test server).
    Module-scoped and set by hand, not monkeypatched: hypothesis refuses function-scoped fixtures."""
    from bank.store.storage_url import ENV_VAR

    backend = getattr(request, "param", "sqlite")
    before = os.environ.pop(ENV_VAR, None)
    if backend == "postgresql":
        os.environ[ENV_VAR] = request.getfixturevalue("postgres_server").url
    yield backend
    os.environ.pop(ENV_VAR, None)
    if before is not None:
        os.environ[ENV_VAR] = before


def pytest_runtest_setup(item):
    """Skip a test marked sqlite_file in its PostgreSQL run, with its reason (a hook, not a
    fixture: hypothesis refuses function-scoped fixtures); stop the shared Chromium before a module
    that starts its own Playwright."""
    _stop_the_shared_chromium_before_its_own(item)
    mark = item.get_closest_marker("sqlite_file")
    callspec = getattr(item, "callspec", None)
    if mark and callspec and callspec.params.get("storage_backend") == "postgresql":
        pytest.skip(f"works on the SQLite file itself{': ' + mark.args[0] if mark.args else ''}")


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


def facilitated_app(folder: Path, config):
    """The live bank app on a fresh game in `folder`, with one facilitator of each role (password
    "correct horse"); yields it, then closes its bank and accounts."""
    from bank.web import create_app

    app = create_app({"DB": folder / "web.db", "CONFIG": config, "TESTING": True,
                      "PASSWORD_HASH": "pbkdf2:sha256:1000"})
    access = app.extensions["terrabank"].access
    for role in ("lead", "banker", "referee"):
        access.add_user(role, "correct horse", role)
    yield app
    app.extensions["terrabank"].bank.close()
    access.close()


@pytest.fixture
def app(tmp_path, config):
    """The live bank app on a fresh game, with one facilitator of each role."""
    yield from facilitated_app(tmp_path, config)


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


class SharedChromium:
    """One headless Debian Chromium per test process, lent to each browser test module in turn.

    Starting Playwright's driver and Chromium costs a CPU-second and more on a loaded machine, and
    the browser tests are dozens of modules: each of them gets the same browser, and its tests
    their own fresh contexts (cookies, storage and cache are a context's, not the browser's). A
    module's contexts left open are closed after it; a browser that died is started again."""

    def __init__(self):
        self.playwright = self.browser = None

    def get(self):
        if self.browser is not None and self.browser.is_connected():
            return self.browser
        self.stop()
        from browserkit import ARGS, CHROMIUM
        from playwright import sync_api

        self.playwright = sync_api.sync_playwright().start()
        self.browser = self.playwright.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        return self.browser

    def stop(self):
        """Close the browser and the driver (Playwright's sync API allows one driver at a time per thread)."""
        playwright, browser, self.playwright, self.browser = self.playwright, self.browser, None, None
        try:
            if browser is not None and browser.is_connected():
                browser.close()
        finally:
            if playwright is not None:
                playwright.stop()


SHARED_CHROMIUM = SharedChromium()
_OWN_PLAYWRIGHT: dict = {}  # module name -> whether the module starts Playwright itself


def _stop_the_shared_chromium_before_its_own(item):
    # A module that starts its own Playwright (a persistent profile, its own launch) could not while
    # the shared one runs: stop it first; the next module that asks for `chromium` starts it again.
    module = getattr(item, "module", None)
    if module is None or SHARED_CHROMIUM.playwright is None:
        return
    if module.__name__ not in _OWN_PLAYWRIGHT:
        try:
            _OWN_PLAYWRIGHT[module.__name__] = "sync_playwright()" in Path(module.__file__).read_text(encoding="utf-8")
        except (OSError, TypeError):
            _OWN_PLAYWRIGHT[module.__name__] = False
    if _OWN_PLAYWRIGHT[module.__name__]:
        SHARED_CHROMIUM.stop()


@pytest.fixture(scope="session")
def _shared_chromium():
    yield SHARED_CHROMIUM
    SHARED_CHROMIUM.stop()


@pytest.fixture(scope="module")
def chromium(_shared_chromium):
    """The test process's headless Debian Chromium, driven by Playwright (skips without them)."""
    require("playwright", "chromium")
    browser = _shared_chromium.get()
    yield browser
    if browser.is_connected():
        for context in list(browser.contexts):
            context.close()  # what this module's tests left open
