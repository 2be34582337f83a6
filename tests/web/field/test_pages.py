"""The HTML pages: each renders or sends a visitor to the log-in, works offline, speaks French first."""

from __future__ import annotations

import gzip
import re
from pathlib import Path

import pytest
from babel.messages.extract import extract_from_dir
from babel.messages.pofile import read_po
from words_kit import strings

ROOT = Path(__file__).resolve().parents[3]
TEMPLATES, STATIC, TRANSLATIONS = ROOT / "templates", ROOT / "static", ROOT / "translations"
VENDOR_LICENCE = STATIC / "vendor" / "socket.io-LICENSE"
# The vendored Socket.IO client names two URLs in its code: the default scheme for a URL given
# without one (we give none) and a link in an error message. Neither is ever fetched.
VENDOR_KNOWN_URLS = {"https://", "https://socket.io/docs/v3/migrating-from-2-x-to-3-0/"}
FACILITATOR_PAGES = ["/console", "/fight", "/admin"]
PAGE_BUDGET = 150 * 1024  # bytes per page, gzip-compressed, scripts and styles included


@pytest.fixture
def client(app):
    """A browser-like client of the conftest app (facilitators lead, banker, referee)."""
    return app.test_client()


def login(client, username="lead", password="correct horse"):
    csrf = client.get("/api/csrf").get_json()["csrf"]
    reply = client.post("/api/login", json={"username": username, "password": password}, headers={"X-CSRF-Token": csrf})
    assert reply.status_code == 200, reply.get_json()
    return reply.get_json()


@pytest.mark.parametrize("path", ["/login", "/display"])
def test_open_pages_render_for_anyone(client, path):
    reply = client.get(path)
    assert reply.status_code == 200
    html = reply.get_data(as_text=True)
    assert re.search(r"<html lang=\"fr\"[ >]", html)
    assert '<meta name="csrf-token" content="' in html
    assert 'name="viewport"' in html


@pytest.mark.parametrize("path", FACILITATOR_PAGES)
def test_facilitator_pages_send_a_visitor_to_the_login(client, path):
    reply = client.get(path)
    assert reply.status_code == 302
    assert reply.headers["Location"].endswith("/login")


@pytest.mark.parametrize("path", FACILITATOR_PAGES)
def test_facilitator_pages_render_after_login(client, path):
    login(client)
    reply = client.get(path)
    assert reply.status_code == 200
    assert '<span class="user">lead' in reply.get_data(as_text=True)


def test_home_leads_to_login_then_to_the_bank_counter(client):
    assert client.get("/").headers["Location"].endswith("/login")
    login(client)
    assert client.get("/").headers["Location"].endswith("/console")


def test_game_control_link_only_for_the_lead(client):
    login(client, "referee")
    html = client.get("/fight").get_data(as_text=True)
    assert 'href="/admin"' not in html
    assert 'href="/fight"' in html


def test_team_page_renders_with_its_token(app, client):
    token = app.extensions["terrabank"].access.team_tokens()["blue"]
    reply = client.get(f"/t/{token}")
    assert reply.status_code == 200
    assert f'data-token="{token}"' in reply.get_data(as_text=True)


def test_team_page_with_a_wrong_token_is_404_and_says_what_to_do(client):
    reply = client.get("/t/not-a-real-token")
    assert reply.status_code == 404
    html = reply.get_data(as_text=True)
    assert "Ce lien d’équipe n’est pas valable" in html
    assert "QR code" in html


def test_a_rotated_team_link_stops_working(app, client):
    access = app.extensions["terrabank"].access
    old = access.team_tokens()["red"]
    access.rotate("red")
    assert client.get(f"/t/{old}").status_code == 404


def test_french_by_default_and_english_after_switching(client):
    html = client.get("/login").get_data(as_text=True)
    assert '<html lang="fr">' in html and "Connexion des animateurs" in html
    assert strings(html)["live"] == "en direct"
    token = client.get("/api/csrf").get_json()["csrf"]  # the switch needs it
    assert client.post("/api/lang/en", headers={"X-CSRF-Token": token}).status_code == 200
    html = client.get("/login").get_data(as_text=True)
    assert '<html lang="en">' in html and "Facilitator log-in" in html
    assert strings(html)["live"] == "live"


@pytest.mark.parametrize("path", ["/login", "/display", "/console", "/fight", "/admin", "team"])
def test_script_strings_are_valid_json(app, client, path):
    login(client)
    if path == "team":
        path = "/t/" + app.extensions["terrabank"].access.team_tokens()["green"]
    found = strings(client.get(path).get_data(as_text=True))
    assert found["offline_ago"] == "hors ligne, données d’il y a %(age)s"
    # A plural entry (a template's ngettext) is its [one, other] forms, page.js's TB.t picking by count.
    assert all((isinstance(v, str) and v) or (isinstance(v, list) and len(v) == 2 and all(v)) for v in found.values())


def test_data_text_never_goes_through_html_parsing():
    """Team names, titles and reasons are set with textContent: innerHTML only parses a constant."""
    for path in (STATIC / "js").glob("*.js"):
        for line in path.read_text(encoding="utf-8").splitlines():
            if "innerHTML" in line or "outerHTML" in line or "insertAdjacentHTML" in line:
                assert re.search(r'innerHTML = "<svg></svg>";', line), f"{path.name}: {line.strip()}"


def test_no_page_or_asset_points_outside_the_field():
    """No CDN: nothing in templates or static files names an http(s) URL (vendored licence aside)."""
    for path in sorted(TEMPLATES.rglob("*")) + sorted(STATIC.rglob("*")):
        if not path.is_file() or path == VENDOR_LICENCE:
            continue
        text = path.read_text(encoding="utf-8")
        urls = set(re.findall(r'https?://[^\s"\'`)]*', text))
        if path.parent.name == "vendor":
            assert urls <= VENDOR_KNOWN_URLS, f"{path.name} names {urls - VENDOR_KNOWN_URLS}"
        else:
            assert not urls, f"{path.relative_to(ROOT)} names {urls}"
        assert not re.search(r'(src|href)="//', text), f"{path.relative_to(ROOT)} has a protocol-relative URL"


@pytest.mark.parametrize("path", ["/login", "/display", "/console", "/fight", "/admin", "team"])
def test_every_asset_a_page_uses_is_served_and_the_page_stays_light(app, client, path):
    login(client)
    if path == "team":
        path = "/t/" + app.extensions["terrabank"].access.team_tokens()["blue"]
    html = client.get(path).get_data()
    total = len(gzip.compress(html))
    for asset in re.findall(rb'(?:src|href)="(/static/[^"]+)"', html):
        reply = client.get(asset.decode())
        assert reply.status_code == 200, asset
        total += len(gzip.compress(reply.get_data()))
        reply.close()
    assert total < PAGE_BUDGET


def test_vendored_socket_io_client_is_there_with_its_licence():
    script = (STATIC / "vendor" / "socket.io.min.js").read_text(encoding="utf-8")
    assert script.startswith("/*!\n * Socket.IO v4.")
    assert "MIT License" in VENDOR_LICENCE.read_text(encoding="utf-8")


def _template_messages() -> list:
    found = extract_from_dir(str(ROOT), method_map=[("templates/**.html", "jinja2")])
    return sorted({message for _, _, message, _, _ in found if isinstance(message, (str, tuple))}, key=str)


def _catalogue(lang: str) -> dict:
    with (TRANSLATIONS / lang / "LC_MESSAGES" / "messages.po").open("rb") as f:
        return {m.id: m.string for m in read_po(f) if m.id}


def test_every_template_string_has_a_french_translation():
    french = _catalogue("fr")
    missing = [m for m in _template_messages() if not french.get(m)]
    assert not missing, f"add these to translations/fr/LC_MESSAGES/messages.po: {missing}"


@pytest.mark.parametrize("lang", ["fr", "en", "it"])
def test_translations_keep_every_placeholder(lang):
    for msgid, msgstr in _catalogue(lang).items():
        if isinstance(msgid, tuple):  # ngettext: the plural form keeps them all, the singular may say "the only one"
            said = set(re.findall(r"%\(\w+\)s", " ".join(msgid)))
            assert not msgstr[-1] or set(re.findall(r"%\(\w+\)s", msgstr[-1])) == said, msgid
            assert all(set(re.findall(r"%\(\w+\)s", form)) <= said for form in msgstr), msgid
        elif msgstr:
            assert sorted(re.findall(r"%\(\w+\)s", msgid)) == sorted(re.findall(r"%\(\w+\)s", msgstr)), msgid


def test_english_catalogue_lists_the_same_messages():
    assert set(_catalogue("en")) == set(_catalogue("fr")) == set(_template_messages())


def _trias_messages() -> list:
    """What a Trias page can show: its templates' messages, the language switch's, and the shared
    script strings (templates/_strings.html) that the scripts a Trias page loads ask for."""
    found = extract_from_dir(str(ROOT), method_map=[("templates/trias/**.html", "jinja2"), ("templates/_lang.html", "jinja2")])
    messages = {message for _, _, message, _, _ in found if isinstance(message, (str, tuple))}
    shared = dict(re.findall(r'"([\w.]+)": _\("((?:[^"\\]|\\.)*)"\)', (TEMPLATES / "_strings.html").read_text(encoding="utf-8")))
    shared_list = re.search(r"set SHARED = \[([^\]]*)\]", (TEMPLATES / "_scripts.html").read_text(encoding="utf-8"))
    scripts = [STATIC / name for name in re.findall(r'"(js/[\w/]+\.js)"', shared_list.group(1))]
    assert scripts, "templates/_scripts.html lists the shared scripts"
    used = set()
    for script in scripts + sorted((STATIC / "js" / "trias").glob("*.js")):
        used |= set(re.findall(r'\bt\("([\w.]+)"', script.read_text(encoding="utf-8")))
    # A key a Trias template sets itself (undo_confirm, refused) replaces the shared one on its pages.
    own = {key for path in (TEMPLATES / "trias").glob("*.html")
           for key in re.findall(r'"([\w.]+)": _\(', path.read_text(encoding="utf-8"))}
    return sorted(messages | {shared[key] for key in used - own if key in shared}, key=str)


def test_italian_catalogue_covers_every_trias_message():
    """Italian is Trias's: every message a Trias page shows has an Italian entry."""
    italian = _catalogue("it")
    missing = [m for m in _trias_messages() if not italian.get(m)]
    assert not missing, f"add these to translations/it/LC_MESSAGES/messages.po: {missing}"


def test_italian_catalogue_holds_trias_messages_only():
    """No field-game message in Italian (its pages fall back to French), no entry left from a removed string."""
    extra = sorted(set(_catalogue("it")) - set(_trias_messages()))
    assert not extra, f"not shown on any Trias page: {extra}"
