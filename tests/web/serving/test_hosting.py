"""Several games on one server (bank/web/serving/hosting.py): the host's lead creates and lists
games, each served under /g/<name>/ with its own journal, accounts, cookie, links and live updates.

Every test runs twice: on the SQLite folder and on PostgreSQL, where the list of
hosted games lives in the database (bank/store/hosted_pg.py); the same behaviour on both."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from bank.web import create_app
from bank.web.push.extensions import socketio_of
from live_kit import live_client
from bank.web.push.live import broadcaster

ROOT = Path(__file__).resolve().parents[3]
HASH = "pbkdf2:sha256:1000"


def pytest_generate_tests(metafunc):
    """Both stores, as tests/conftest.py does for the journal's suites (storage_backend sets the URL)."""
    metafunc.parametrize("storage_backend", ["sqlite", "postgresql"], indirect=True, scope="module")


@pytest.fixture
def host(tmp_path):
    """The host's own game at / (its lead is the host's lead), serving the games of tmp/games."""
    app = create_app({"DB": tmp_path / "host.db", "CONFIG": str(ROOT / "config.toml"), "TESTING": True,
                      "PASSWORD_HASH": HASH, "GAMES_DIR": str(tmp_path / "games")})
    app.extensions["terrabank"].access.add_user("boss", "correct horse", "lead")
    app.extensions["terrabank"].access.add_user("cashier", "correct horse", "banker")
    yield app
    close(app)


def close(app) -> None:
    """Let go of the host's game and of every game it opened (their connections, on PostgreSQL)."""
    if "terrabank_hosted" in app.extensions:
        app.extensions["terrabank_hosted"].close()
    app.extensions["terrabank"].bank.close()
    app.extensions["terrabank"].access.close()
    app.extensions["trias_games"].close()


class Browser:
    """A test client under a path prefix ("" for the host's game, "/g/camp" for a hosted one)."""

    def __init__(self, app, root: str = ""):
        self.client, self.root = app.test_client(), root
        reply = self.get("/api/csrf")
        # What the game answered, when it is not the token: a 503 says why it cannot be served (its hold, the database).
        assert reply.status_code == 200 and reply.is_json, (reply.status_code, reply.get_data(as_text=True)[:400])
        self.csrf = reply.get_json()["csrf"]

    def get(self, path: str, **kw):
        return self.client.get(self.root + path, **kw)

    def post(self, path: str, json=None, **kw):
        return self.client.post(self.root + path, json=json, headers={"X-CSRF-Token": self.csrf}, **kw)

    def login(self, user: str, password: str = "correct horse"):
        reply = self.post("/api/login", {"username": user, "password": password})
        if reply.status_code == 200:
            self.csrf = reply.get_json()["csrf"]
        return reply


def _host_lead(host) -> Browser:
    lead = Browser(host)
    assert lead.login("boss").status_code == 200
    return lead


def test_the_hosts_lead_creates_a_game_and_its_lead_logs_in_under_its_own_path(host):
    lead = _host_lead(host)
    made = lead.post("/api/host/games", {"name": "summer-camp"})
    assert made.status_code == 201, made.get_json()
    body = made.get_json()
    assert body["path"] == "/g/summer-camp/" and body["lead_user"] == "lead" and len(body["lead_password"]) >= 12
    assert [g["name"] for g in lead.get("/api/host/games").get_json()["games"]] == ["summer-camp"]

    camp = Browser(host, "/g/summer-camp")
    assert camp.login("lead", body["lead_password"]).status_code == 200
    me = camp.get("/api/me").get_json()
    assert me["user"] == "lead" and me["role"] == "lead"
    # Its own accounts: the host's lead is nobody there, and the camp's lead is nobody at the host's.
    assert Browser(host, "/g/summer-camp").login("boss").status_code == 401
    assert Browser(host).login("lead", body["lead_password"]).status_code == 401


def test_each_game_has_its_own_journal(host, storage_backend):
    lead = _host_lead(host)
    password = lead.post("/api/host/games", {"name": "camp"}).get_json()["lead_password"]
    camp = Browser(host, "/g/camp")
    camp.login("lead", password)
    reply = camp.client.post("/g/camp/api/commands", json={"type": "start_clock"},
                             headers={"X-CSRF-Token": camp.csrf, "Idempotency-Key": "camp-1"})
    assert reply.status_code == 200, reply.get_json()
    hosted = host.extensions["terrabank_hosted"].app("camp").extensions["terrabank"].bank
    assert hosted.state.clock["status"] == "running"
    assert host.extensions["terrabank"].bank.state.clock["status"] == "setup"  # the host's game did not move
    journal = hosted._journal  # the hosted game's own journal, made from the host's config.toml
    if storage_backend == "sqlite":  # FOLDER/<name>/: its file and its own config.toml to edit
        assert (Path(host.config["GAMES_DIR"]) / "camp" / "game.db").exists()
        assert (Path(host.config["GAMES_DIR"]) / "camp" / "config.toml").read_text() == (ROOT / "config.toml").read_text()
    else:  # in the database, named after the host's game and its own name: no folder, no path in it
        host_game = host.extensions["terrabank"].bank._journal.game
        assert journal.game == f"{host_game}/g/camp"
        assert not (Path(host.config["GAMES_DIR"]) / "camp").exists()
    assert journal.meta("config_text") == (ROOT / "config.toml").read_text()


def test_a_game_cookie_is_named_and_scoped_to_its_own_path(host):
    lead = _host_lead(host)
    password = lead.post("/api/host/games", {"name": "camp"}).get_json()["lead_password"]
    camp = Browser(host, "/g/camp")
    reply = camp.post("/api/login", {"username": "lead", "password": password})
    cookie = reply.headers["Set-Cookie"]
    assert cookie.startswith("terrabank-camp=") and "Path=/g/camp/" in cookie


def test_pages_of_a_hosted_game_use_its_path(host):
    lead = _host_lead(host)
    lead.post("/api/host/games", {"name": "camp"})
    page = Browser(host, "/g/camp").get("/login")
    assert page.status_code == 200
    html = page.get_data(as_text=True)
    assert '<meta name="root" content="/g/camp">' in html
    # Every address in the page is under the game's path: no link leads to the host's game.
    for link in re.findall(r'(?:href|src|action)="(/[^"]*)"', html):
        assert link.startswith("/g/camp/"), link
    # Its team links and their QR codes carry the path too.
    camp_app = host.extensions["terrabank_hosted"].app("camp")
    token = camp_app.extensions["terrabank"].access.team_tokens()["blue"]
    assert Browser(host, "/g/camp").get(f"/t/{token}").status_code == 200
    assert Browser(host).get(f"/t/{token}").status_code == 404  # not a link of the host's game


def test_a_phone_of_a_hosted_game_gets_that_games_updates_only(host):
    lead = _host_lead(host)
    password = lead.post("/api/host/games", {"name": "camp"}).get_json()["lead_password"]
    camp_app = host.extensions["terrabank_hosted"].app("camp")
    assert socketio_of(camp_app) is not socketio_of(host)
    camp_token = camp_app.extensions["terrabank"].access.team_tokens()["blue"]
    host_token = host.extensions["terrabank"].access.team_tokens()["blue"]
    camp_phone = live_client(camp_app, auth={"team": camp_token})
    host_phone = live_client(host, auth={"team": host_token})
    assert camp_phone.is_connected() and host_phone.is_connected()
    # The other game's link is not a link here.
    assert not live_client(camp_app, auth={"team": host_token}).is_connected()
    for app in (camp_app, host):  # each broadcaster's first round (it starts with the first page) is over
        sender = broadcaster(app)
        sender.flush(sender.ask())
    camp_phone.get_received(), host_phone.get_received()
    camp = Browser(host, "/g/camp")
    camp.login("lead", password)
    reply = camp.client.post("/g/camp/api/commands", json={"type": "start_clock"},
                             headers={"X-CSRF-Token": camp.csrf, "Idempotency-Key": "camp-1"})
    assert reply.status_code == 200
    assert camp_phone.get_received(), "the camp's phone hears the camp's command"
    assert not host_phone.get_received(), "the host game's phone hears nothing of it"


@pytest.mark.parametrize("name, code", [("Summer Camp", "bad_game_name"), ("", "bad_game_name"),
                                        ("../etc", "bad_game_name"), ("a" * 41, "bad_game_name")])
def test_a_bad_name_is_refused_with_a_sentence_and_makes_nothing(host, name, code):
    lead = _host_lead(host)
    reply = lead.post("/api/host/games", {"name": name})
    assert reply.status_code == 400 and reply.get_json()["error"]["code"] == code
    assert "letters, digits or dashes" in reply.get_json()["error"]["message"]
    assert lead.get("/api/host/games").get_json()["games"] == []


def test_a_name_taken_is_refused_and_the_first_game_is_untouched(host):
    lead = _host_lead(host)
    first = lead.post("/api/host/games", {"name": "camp"}).get_json()["lead_password"]
    again = lead.post("/api/host/games", {"name": "camp"})
    assert again.status_code == 409 and again.get_json()["error"]["code"] == "game_exists"
    assert Browser(host, "/g/camp").login("lead", first).status_code == 200


def test_only_the_hosts_lead_lists_or_creates_games(host):
    banker = Browser(host)
    banker.login("cashier")
    assert banker.post("/api/host/games", {"name": "camp"}).status_code == 403
    assert banker.get("/api/host/games").status_code == 403
    assert Browser(host).get("/api/host/games").status_code == 401
    # A hosted game's lead is not the host's lead.
    lead = _host_lead(host)
    password = lead.post("/api/host/games", {"name": "camp"}).get_json()["lead_password"]
    camp = Browser(host, "/g/camp")
    camp.login("lead", password)
    assert camp.post("/api/host/games", {"name": "other"}).status_code == 404
    assert [g["name"] for g in lead.get("/api/host/games").get_json()["games"]] == ["camp"]


def test_an_unknown_game_says_so_and_a_bare_game_path_gets_its_slash(host):
    missing = Browser(host).client.get("/g/nope/console")
    assert missing.status_code == 404 and "nope" in missing.get_data(as_text=True)
    lead = _host_lead(host)
    lead.post("/api/host/games", {"name": "camp"})
    bare = Browser(host).client.get("/g/camp")
    assert bare.status_code == 308 and bare.headers["Location"].endswith("/g/camp/")


def test_without_games_folder_the_server_serves_one_game_and_says_how_to_host(tmp_path):
    app = create_app({"DB": tmp_path / "one.db", "CONFIG": str(ROOT / "config.toml"), "TESTING": True,
                      "PASSWORD_HASH": HASH})
    app.extensions["terrabank"].access.add_user("boss", "correct horse", "lead")
    lead = Browser(app)
    lead.login("boss")
    reply = lead.get("/api/host/games")
    assert reply.status_code == 404 and "--games" in reply.get_json()["error"]["message"]
    assert Browser(app).client.get("/g/camp/console").status_code == 404
    close(app)


def test_games_in_the_folder_are_served_again_after_a_restart(tmp_path, host):
    lead = _host_lead(host)
    password = lead.post("/api/host/games", {"name": "camp"}).get_json()["lead_password"]
    again = create_app({"DB": tmp_path / "host.db", "CONFIG": str(ROOT / "config.toml"), "TESTING": True,
                        "PASSWORD_HASH": HASH, "GAMES_DIR": str(tmp_path / "games")})
    try:
        assert Browser(again, "/g/camp").login("lead", password).status_code == 200
        assert [g["name"] for g in again.extensions["terrabank_hosted"].listing()] == ["camp"]
    finally:
        close(again)


def test_a_hosted_games_qr_codes_and_links_carry_its_path(host):
    from bank.web.field import addresses

    lead = _host_lead(host)
    password = lead.post("/api/host/games", {"name": "camp"}).get_json()["lead_password"]
    camp = Browser(host, "/g/camp")
    camp.login("lead", password)
    token = host.extensions["terrabank_hosted"].app("camp").extensions["terrabank"].access.team_tokens()["red"]
    svg = camp.get("/api/teams/red/qr.svg?base=http://192.168.4.1:5000")
    assert svg.status_code == 200
    assert svg.data == addresses.qr_svg(f"http://192.168.4.1:5000/g/camp/t/{token}")  # what a phone's camera reads


def test_trias_pages_of_a_hosted_game_stay_under_its_path(host):
    lead = _host_lead(host)
    lead.post("/api/host/games", {"name": "camp"})
    html = Browser(host, "/g/camp").get("/trias/").get_data(as_text=True)
    links = re.findall(r'(?:href|src|action)="(/[^"]*)"', html)
    assert links and all(link.startswith("/g/camp/") for link in links), links


def test_a_game_held_by_another_server_says_so_and_the_others_are_served(tmp_path):
    """The serving process holds each hosted game (its file, or the game in PostgreSQL): a second server
    of the same games (or a `serve --db` of one game) is refused for that game with a sentence, never
    two writers; the host's lead sees why in the list."""
    from bank.store import storage_url

    settings = {"CONFIG": str(ROOT / "config.toml"), "TESTING": True, "PASSWORD_HASH": HASH,
                "GAMES_DIR": str(tmp_path / "games")}
    first = create_app({**settings, "DB": tmp_path / "host.db"})
    games = first.extensions["terrabank_hosted"]
    games.create("camp"), games.create("moor")
    held = games.registry.hold("camp", "terrabank serve", False)  # another server has it
    try:
        from bank.web.serving.hosting import HostedGames

        second = HostedGames(tmp_path / "games", ROOT / "config.toml",
                             lambda own: create_app({**settings, **own, "GAMES_DIR": None}), holder="test",
                             host=storage_url.target(tmp_path / "host.db", first.extensions["terrabank"].config))
        serving = create_app({**settings, "DB": tmp_path / "other-host.db"})
        from bank.web.serving.hosting import GameDispatch

        serving.wsgi_app = GameDispatch(serving.wsgi_app.default_wsgi, second)
        client = serving.test_client()
        refused = client.get("/g/camp/login")
        assert refused.status_code == 503 and "already running" in refused.get_data(as_text=True)
        assert client.get("/g/moor/login").status_code == 200
        listed = {g["name"]: g for g in second.listing()}
        assert listed["camp"]["error"]["code"] == "bank_running" and listed["moor"]["entries"] >= 1
    finally:
        held.close()
        for app in (locals().get("serving"), first):
            if app is not None:
                close(app)
        if "second" in locals():
            second.close()
