"""Stored cross-site scripting is inert: hostile text in config labels, event titles, reasons and a
facilitator's username shows literally on every page, opens no dialog and adds no element.
Also: a CSV export cannot run a formula in a spreadsheet, and the PDFs are still drawn.

The browser part needs Playwright and Debian's Chromium, like tests/web/field/test_browser.py.
"""

from __future__ import annotations

import csv
import io
import itertools
import logging
import re
from pathlib import Path

import pytest

from bank.game.config import parse_config

ROOT = Path(__file__).resolve().parents[3]
from browserkit import CHROMIUM, log_in_to, serve_in_thread  # noqa: E402

IMG = "<img src=x onerror=alert(1)>"
SCRIPT = '"><script>alert(1)</script>'
JINJA = "{{7*7}}"
JS_URL = "javascript:alert(1)"
SVG = "<svg onload=alert(1)>"
USER = "<img src=x onerror=alert(2)>"  # a facilitator's username, shown as the actor in the journal
PAYLOADS = [IMG, SCRIPT, JINJA, JS_URL, SVG]


def hostile_config():
    """The shipped config with every team label and the game title replaced by a payload."""
    text = (ROOT / "config.toml").read_text(encoding="utf-8")
    for old, new in [('{ fr = "Bleus", en = "Blue" }', IMG), ('{ fr = "Rouges", en = "Red" }', SCRIPT),
                     ('{ fr = "Jaunes", en = "Yellow" }', JINJA), ('{ fr = "Verts", en = "Green" }', JS_URL),
                     ('{ fr = "Terraformation", en = "Terraforming" }', SVG)]:
        assert old in text
        text = text.replace(old, "{ fr = '" + new + "', en = '" + new + "' }", 1)
    return parse_config(text, "hostile config")


def book_hostile_text(services):
    """Event titles and every free-text reason carry a payload, booked by the hostile username."""
    ids = itertools.count(1)

    def do(**cmd):
        return services.bank.execute({"id": f"x-{next(ids)}", "actor": USER, **cmd})

    do(type="start_clock")
    do(type="inventory", team="blue", counted={"water": 12}, reason=IMG)
    award = do(type="award", team="red", points=3, reason=SCRIPT)
    do(type="award", team="yellow", points=1, reason=JS_URL)
    do(type="reverse", seq=award.seq, reason=JINJA)
    for title in (IMG, SCRIPT, JINJA):
        do(type="open_event", title=title, rewards=[{"points": 2}])
    do(type="award", team="green", points=2, reason="=HYPERLINK(\"http://x\",\"click\")")


# ---- exports: CSV formulas, PDFs ----

@pytest.fixture
def hostile_app(tmp_path):
    from bank.web import create_app

    app = create_app({"DB": tmp_path / "x.db", "CONFIG": hostile_config(), "TESTING": True, "PASSWORD_HASH": "pbkdf2:sha256:1000"})
    services = app.extensions["terrabank"]
    services.access.add_user(USER, "correct horse", "lead")
    services.access.add_user("=1+2", "correct horse", "lead")
    book_hostile_text(services)
    services.bank.execute({"id": "f-1", "actor": "=1+2", "type": "inventory", "team": "red", "counted": {"water": 1},
                           "reason": "-2+3"})
    yield app
    services.bank.close()
    services.access.close()


def _cells(text: str) -> list:
    return [cell for row in csv.reader(io.StringIO(text)) for cell in row]


@pytest.mark.parametrize("what", ["journal", "standings"])
def test_csv_exports_cannot_run_a_formula(hostile_app, web, what):
    from conftest import WebClient

    lead = WebClient(hostile_app.test_client())
    assert lead.login(USER).status_code == 200
    text = lead.client.get(f"/api/export/{what}.csv").get_data(as_text=True)
    cells = _cells(text)
    assert cells, text
    risky = [c for c in cells if c[:1] in ("=", "+", "@", "\t", "\r") or (c[:1] == "-" and not re.fullmatch(r"-\d+(\.\d+)?", c))]
    assert risky == [], risky
    if what == "journal":
        assert "'=1+2" in cells  # the username is still readable, as text
    else:
        assert any(IMG in c for c in cells)  # labels are kept as they are: a CSV is not HTML


@pytest.mark.parametrize("kind", ["report", "bank-sheets", "join", "cards", "boards"])
def test_pdfs_are_drawn_with_hostile_text(hostile_app, kind):
    from conftest import WebClient
    from pypdf import PdfReader

    lead = WebClient(hostile_app.test_client())
    assert lead.login(USER).status_code == 200
    reply = lead.client.get(f"/api/print/{kind}.pdf?loopback=1")  # the test client is "localhost"
    assert reply.status_code == 200 and reply.data.startswith(b"%PDF")
    text = "".join(page.extract_text() or "" for page in PdfReader(io.BytesIO(reply.data)).pages)
    assert text.strip()


# ---- the pages in a real browser ----

# Only the browser tests need Playwright; the CSV and PDF checks above run without it.
from needs import module, require  # noqa: E402
sync_api = module("playwright.sync_api")


@pytest.fixture(scope="module")
def hostile_server(tmp_path_factory):
    require("playwright", "chromium")
    from bank.web import create_app

    logging.getLogger("werkzeug").setLevel(logging.ERROR)
    folder = tmp_path_factory.mktemp("xss")
    app = create_app({"DB": str(folder / "game.db"), "CONFIG": hostile_config(), "PASSWORD_HASH": "pbkdf2:sha256:1000"})
    services = app.extensions["terrabank"]
    services.access.add_user(USER, "password1", "lead")
    book_hostile_text(services)
    url, _ = serve_in_thread(app)
    return app, url


# Elements or attributes no page makes by itself: any of them means a payload became markup.
INJECTED = """() => {
  const found = [];
  document.querySelectorAll('img[src="x"], [onerror], [onload], [onclick], a[href^="javascript:"], svg[onload]')
    .forEach(n => found.push(n.outerHTML.slice(0, 80)));
  document.querySelectorAll('script').forEach(s => {
    if (!s.src && s.type !== 'application/json') found.push('inline script: ' + s.textContent.slice(0, 60));
  });
  return found;
}"""

PAGES = {  # page: payloads that must show there literally
    "/login": [],
    "/console": [IMG, SCRIPT, JINJA, JS_URL],
    "/fight": [IMG, SCRIPT],
    "/admin": [IMG, SCRIPT, JINJA],
    "/display": [IMG, SCRIPT, JINJA, JS_URL],
    "team": [IMG],
}


@pytest.mark.parametrize("path", list(PAGES))
def test_hostile_text_is_inert_and_literal_on_every_page(hostile_server, chromium, path):
    app, url = hostile_server
    context = chromium.new_context(viewport={"width": 1280, "height": 900})
    dialogs, errors = [], []
    try:
        page = context.new_page()
        page.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
        page.on("pageerror", lambda e: errors.append(str(e)))
        if path in ("/console", "/fight", "/admin"):
            log_in_to(page, url, path, USER, "password1")
        elif path == "team":
            page.goto(f"{url}/t/{app.extensions['terrabank'].access.team_tokens()['blue']}")
        else:
            page.goto(url + path)
        if path != "/login":
            sync_api.expect(page.locator("#conn-badge")).to_have_class(re.compile("badge-live"))
        for tab in ("#tabs [data-tab=\"journal\"]",):  # the journal shows the actor and the reasons
            if page.locator(tab).count():
                page.locator(tab).first.click()
        page.wait_for_timeout(500)
        text = page.inner_text("body")
        for payload in PAGES[path]:
            assert payload in text, f"{payload!r} is not shown literally on {path}"
        assert page.evaluate(INJECTED) == [], path
        assert "49" not in text or JINJA in text
        assert dialogs == [] and errors == [], (dialogs, errors)
    finally:
        context.close()
