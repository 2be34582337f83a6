"""Patches in the browser: static/js/delta.js agrees with bank/web/push/delta.py, and a
phone that loses one patch on the Wi-Fi recovers the exact picture.

Needs Playwright's Python package and Debian's Chromium; skipped without them.
"""

from __future__ import annotations

import json
import logging
import time
from pathlib import Path

import pytest
from hypothesis import given, settings
from test_delta import PATCHES_THAT_DO_NOT_FIT, json_values, related

from bank.web.push.delta import PatchError, apply, diff

from needs import module, needs  # noqa: E402
sync_api = module("playwright.sync_api")  # a stand-in without Playwright: pytestmark skips the tests
from browserkit import CHROMIUM, serve_in_thread  # noqa: E402
from ws_proxy import WsProxy  # noqa: E402

pytestmark = needs("playwright", "chromium")

ROOT = Path(__file__).resolve().parents[3]
PHONE = {"width": 390, "height": 844}
DELTA_JS = (ROOT / "static" / "js" / "delta.js").read_text()
RUN_ALL = """cases => JSON.stringify(JSON.parse(cases).map(function (c) {
  try { return {picture: TBDelta.apply(c[0], c[1])}; }
  catch (e) { return {error: e instanceof TBDelta.Misfit ? "misfit" : String(e)}; }
}))"""


def json_equal(a, b) -> bool:
    """Equal as JSON a browser reads it: numbers by value (JS has one number type), true is not 1."""
    if isinstance(a, bool) or isinstance(b, bool):
        return type(a) is type(b) and a == b
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        return float(a) == float(b)  # JS writes 4.67e16 as 46704317446006730: the same double
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(json_equal(a[k], b[k]) for k in a)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(json_equal(x, y) for x, y in zip(a, b))
    return type(a) is type(b) and a == b


def _cases() -> list:
    """Random (old, patch) pairs, from unrelated and from edited pictures, as test_delta.py draws them."""
    cases = []

    @settings(max_examples=250, deadline=None, database=None)
    @given(json_values, json_values)
    def unrelated(old, new):
        cases.append((old, diff(old, new)))

    @settings(max_examples=250, deadline=None, database=None)
    @given(related(json_values))
    def edited(pair):
        cases.append((pair[0], diff(*pair)))

    unrelated()
    edited()
    return cases + [({"n": 1, "rows": [1]}, patch) for patch in PATCHES_THAT_DO_NOT_FIT]


def test_the_browser_applies_every_patch_exactly_as_the_server_computes_it(chromium):
    cases = _cases()
    page = chromium.new_page()
    page.set_content("<html><body></body></html>")
    page.add_script_tag(content=DELTA_JS)
    results = json.loads(page.evaluate(RUN_ALL, json.dumps(cases)))
    page.close()
    assert len(results) == len(cases)
    for (old, patch), result in zip(cases, results):
        try:
            expected = apply(old, patch)
        except PatchError:
            assert result == {"error": "misfit"}, (old, patch, result)
            continue
        assert "picture" in result, (old, patch, result)
        assert json_equal(result["picture"], expected), (old, patch, result["picture"], expected)


# --- a phone loses one patch --------------------------------------------------------------


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    from bank.web import create_app

    logging.getLogger("werkzeug").setLevel(logging.ERROR)
    folder = tmp_path_factory.mktemp("browser-delta")
    app = create_app({"DB": str(folder / "game.db"), "CONFIG": str(ROOT / "config.toml"),
                      "PASSWORD_HASH": "pbkdf2:sha256:1000"})
    services = app.extensions["terrabank"]
    services.bank.execute({"id": "setup-1", "actor": "lead", "type": "start_clock"})
    _, port = serve_in_thread(app)
    with WsProxy(port) as proxy:
        yield app, proxy


def _book(app, n: int) -> None:
    """A harvest for blue, then a round of live updates, as the console's command would make."""
    from bank.web.push.live import broadcaster

    app.extensions["terrabank"].bank.execute({"id": f"harvest-{n}", "actor": "lead", "type": "harvest", "team": "blue",
                                             "card": "harvester-1", "resource": "water"})
    broadcaster(app).ask()


def _wait(condition, what: str, timeout: float = 15.0) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, f"never happened: {what}"
        time.sleep(0.05)


def _shown_stock(page) -> dict:
    return page.evaluate("""() => { var out = {};
      document.querySelectorAll('#stock .stock-item').forEach(function (n) {
        out[n.dataset.resource] = +n.querySelector('.n').textContent; });
      return out; }""")


def test_a_phone_that_loses_one_patch_asks_for_the_whole_picture_and_shows_the_exact_state(chromium, served):
    from bank.web.push.live import broadcaster

    app, proxy = served
    bank, token = app.extensions["terrabank"].bank, app.extensions["terrabank"].access.team_tokens()["blue"]
    context = chromium.new_context(viewport=PHONE)
    page = context.new_page()
    errors = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.goto(f"{proxy.url}/t/{token}")
    version = lambda: page.evaluate("() => document.body.dataset.teamVersion")  # noqa: E731
    base = lambda: broadcaster(app).base_of("team:blue")  # noqa: E731
    _wait(lambda: proxy.websockets and version(), "the phone's socket upgraded and its team picture arrived")
    earlier = base().version if base() else None  # a round the phone's own connection may have made
    _book(app, 0)  # a round: from now on the phone holds the room's version and gets patches
    # Wait for this round's version, not an earlier one: the round runs on the broadcaster's thread
    # (CI: the earlier base matched at once and the harvest was not yet shown).
    _wait(lambda: base() and base().version != earlier and version() == base().version,
          "the phone holds the room's version after the first harvest")
    stock = lambda: {r: bank.state.balance("team:blue", r) for r in _shown_stock(page)}  # noqa: E731
    before = _shown_stock(page)
    assert before == stock()

    # The round's one message to the phone (public + team parts), its team part a patch.
    proxy.drop_next(lambda text: text.startswith('42["round"') and '"team":{' in text and '"patch"' in text)
    _book(app, 1)
    _wait(lambda: proxy.dropped, "the patch of the first harvest was lost")
    time.sleep(0.3)
    assert _shown_stock(page) == before != stock(), "the lost patch is not shown"

    syncs = len([t for t in proxy.sent if t.startswith('42["sync"')])
    _book(app, 2)  # its patch applies to the version the phone missed: the phone asks for the whole picture
    _wait(lambda: len([t for t in proxy.sent if t.startswith('42["sync"')]) > syncs, "the phone asked for `sync`")
    _wait(lambda: _shown_stock(page) == stock(), "the phone shows the bank's stock")

    earlier = base().version
    _book(app, 3)  # the next round makes it hold the room's one version again, patch or whole
    _wait(lambda: base().version != earlier and version() == base().version,
          "the phone holds the room's version after the last harvest")
    held = page.evaluate("() => TB.pictures.held.team.picture")
    assert json_equal(held, base().picture), "the phone's picture is exactly the server's for its version"
    assert _shown_stock(page) == stock()
    assert not errors
    context.close()
