"""Two `terrabank serve` processes on one game in PostgreSQL share the facilitators' accounts, their
log-ins, the lock-out counts, the team links and the cookie key.

Two apps made by create_app on the same game stand for two processes on two hosts: each has
its own connections, its own bank and nothing in memory shared with the other; only the
database is common. A log-in made on one is valid on the other, a password changed through
one ends the session on the other at once, guesses sent to both are counted together, a link
replaced on one is refused on the other, and both sign cookies with the same key.
"""

from __future__ import annotations

import os
import threading

import pytest

from bank.services.bank import Bank
from bank.store.storage_url import ENV_VAR
from bank.web import create_app
from bank.web.access import auth
from bank.store.accounts.access_pg import PostgresAccess, carry_over
from conftest import WebClient
from security_kit import refusal, services

PASSWORD_HASH = "pbkdf2:sha256:1000"


@pytest.fixture(scope="module", autouse=True)
def storage_backend(postgres_server):
    """Every test of this module runs with the game in the test server."""
    before = os.environ.pop(ENV_VAR, None)
    os.environ[ENV_VAR] = postgres_server.url
    yield "postgresql"
    os.environ.pop(ENV_VAR, None)
    if before is not None:
        os.environ[ENV_VAR] = before


def _app(db, config):
    return create_app({"DB": db, "CONFIG": config, "TESTING": True, "PASSWORD_HASH": PASSWORD_HASH})


@pytest.fixture
def pair(tmp_path, config):
    """Two apps on one game: `one` created it (with a facilitator of each role), `other` opened it.
    `other` names the game without ".db", as another host would: any file either kept at its
    --db would be another file, so only the database can make them agree."""
    one = _app(tmp_path / "shared.db", config)
    for role in ("lead", "banker", "referee"):
        services(one).access.add_user(role, "correct horse", role)
    other = _app(tmp_path / "shared", config)
    yield one, other
    for app in (one, other):
        services(app).bank.close()
        services(app).access.close()


def _client(app, role=None, addr="10.0.0.7"):
    client = WebClient(app.test_client())
    if role:
        assert _login(client, role, "correct horse", addr).status_code == 200
    return client


def _login(client, username, password, addr="10.0.0.7"):
    reply = client.client.post("/api/login", json={"username": username, "password": password},
                               headers={"X-CSRF-Token": client.csrf}, environ_base={"REMOTE_ADDR": addr})
    if reply.status_code == 200:
        client.csrf = reply.get_json()["csrf"]  # a log-in gives the session a new token
    return reply


def _on(app, client):
    """The same browser (its cookie) sending its next request to the other process, as behind nginx."""
    moved = WebClient(app.test_client())
    moved.client.set_cookie("session", client.client.get_cookie("session").value)
    moved.csrf = client.csrf
    return moved


def test_a_log_in_on_one_process_is_valid_on_the_other(pair):
    one, other = pair
    banker = _client(one, "banker")
    there = _on(other, banker)
    assert there.client.get("/api/me").get_json()["user"] == "banker"
    assert there.client.get("/api/state").status_code == 200
    rows = _client(other, "lead").client.get("/api/sessions").get_json()["sessions"]
    assert {r["user"] for r in rows} == {"banker", "lead"}  # the other process lists both log-ins


def test_both_processes_sign_cookies_with_the_one_key_of_the_game(pair, tmp_path, config):
    one, other = pair
    assert one.config["SECRET_KEY"] == other.config["SECRET_KEY"] and len(one.config["SECRET_KEY"]) == 64
    later = _app(tmp_path / "shared.db", config)  # a restart, or a third host
    try:
        assert later.config["SECRET_KEY"] == one.config["SECRET_KEY"]
    finally:
        services(later).bank.close()
        services(later).access.close()
    assert not list(tmp_path.glob("shared*"))  # nothing beside --db: the key and the rows are the game's
    another_game = _app(tmp_path / "elsewhere.db", config)
    try:
        assert another_game.config["SECRET_KEY"] != one.config["SECRET_KEY"]
    finally:
        services(another_game).bank.close()
        services(another_game).access.close()


def test_processes_starting_together_agree_on_the_key(tmp_path, config, postgres_server):
    """The key is made by whichever process comes first; the others read it (no process keeps its own)."""
    Bank.create(tmp_path / "fresh.db", config).close()
    stores = [PostgresAccess(postgres_server.url, str(tmp_path / "fresh"), PASSWORD_HASH) for _ in range(6)]
    barrier, keys = threading.Barrier(len(stores)), []

    def start(store):
        barrier.wait()
        keys.append(store.shared_secret())

    threads = [threading.Thread(target=start, args=(store,)) for store in stores]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for store in stores:
        store.close()
    assert len(keys) == 6 and len(set(keys)) == 1


def test_a_password_changed_through_one_process_ends_the_session_on_the_other(pair):
    one, other = pair
    banker = _client(other, "banker")
    assert banker.client.get("/api/state").status_code == 200
    lead = _client(one, "lead")
    reply = lead.client.post("/api/accounts", json={"username": "banker", "role": "banker", "password": "new password",
                                                    "again": "new password"}, headers={"X-CSRF-Token": lead.csrf})
    assert reply.status_code == 200
    reply = banker.client.get("/api/state")
    assert reply.status_code == 401 and refusal(reply)["code"] == "login_required"
    assert _login(_client(other), "banker", "correct horse").status_code == 401
    assert _login(_client(other), "banker", "new password").status_code == 200


def test_log_out_everywhere_on_one_process_ends_the_sessions_held_on_the_other(pair):
    one, other = pair
    banker, referee = _client(other, "banker"), _client(other, "referee")
    lead = _client(one, "lead")
    reply = lead.client.post("/api/sessions/end-all", headers={"X-CSRF-Token": lead.csrf})
    assert reply.status_code == 200 and reply.get_json() == {"ended": 2}
    assert banker.client.get("/api/state").status_code == 401 and referee.client.get("/api/state").status_code == 401
    assert _on(other, lead).client.get("/api/state").status_code == 200


def test_guesses_sent_to_both_processes_are_counted_together(pair):
    """An attacker who alternates between the processes gets MAX_FAILURES tries, not twice as many."""
    one, other = pair
    statuses = [_login(_client((one, other)[n % 2]), "lead", f"guess {n}", "10.0.9.9").status_code
                for n in range(auth.MAX_FAILURES + 2)]
    assert statuses == [401] * auth.MAX_FAILURES + [429, 429]
    for app in (one, other):  # the right password too, from that device, on either process
        reply = _login(_client(app), "lead", "correct horse", "10.0.9.9")
        assert reply.status_code == 429 and refusal(reply)["code"] == "locked_out"
    assert _login(_client(other), "lead", "correct horse", "10.0.0.50").status_code == 200  # another device


def test_the_account_cap_holds_over_both_processes_and_many_devices(pair):
    one, other = pair
    statuses = [_login(_client((one, other)[n % 2]), "lead", f"guess {n}", f"10.0.8.{n}").status_code
                for n in range(auth.ACCOUNT_MAX_FAILURES + 4)]
    assert statuses.count(401) == auth.ACCOUNT_MAX_FAILURES and set(statuses[auth.ACCOUNT_MAX_FAILURES:]) == {429}


def test_a_team_link_replaced_on_one_process_is_refused_on_the_other(pair):
    one, other = pair
    old = services(other).access.team_tokens()["blue"]
    assert other.test_client().get(f"/api/team/{old}").status_code == 200
    lead = _client(one, "lead")
    new = lead.client.post("/api/teams/blue/rotate", headers={"X-CSRF-Token": lead.csrf}).get_json()["token"]
    reply = other.test_client().get(f"/api/team/{old}")
    assert reply.status_code == 404 and refusal(reply)["code"] == "unknown_team_link"
    assert other.test_client().get(f"/api/team/{new}").status_code == 200
    assert services(other).access.team_tokens()["blue"] == new


def test_the_big_screens_key_is_one_for_the_game_and_replaced_on_both_processes(pair):
    """The display key lives in the database beside the team links, so every process
    admits the same screen, and a key replaced through one is replaced for the other."""
    one, other = pair
    key = services(one).access.display_key()
    assert len(key) >= 16 and services(other).access.display_key() == key
    lead = _client(one, "lead")
    new = lead.client.post("/api/display/rotate", headers={"X-CSRF-Token": lead.csrf}).get_json()["key"]
    assert new != key and services(other).access.display_key() == new == services(one).access.display_key()


def test_init_force_carries_the_accounts_over_and_the_links_only_when_asked(tmp_path, config, postgres_server):
    """The replaced game keeps its rows under a dated name; the new one gets copies, as for a file."""
    name = str(tmp_path / "camp")
    first = _app(tmp_path / "camp.db", config)
    services(first).access.add_user("lead", "correct horse", "lead")
    old_game, old_links = services(first).access.game, services(first).access.team_tokens()
    services(first).bank.close()
    services(first).access.close()
    for links in (False, True):  # the game made by the first round is replaced in the second
        Bank.create(tmp_path / "camp.db", config, force=True).close()
        copied = carry_over(postgres_server.url, old_game, name, config.teams, links=links)
        assert copied == (1, len(config.teams) if links else 0)
        again = _app(tmp_path / "camp.db", config)
        try:
            assert services(again).access.game != old_game
            assert _login(_client(again), "lead", "correct horse").status_code == 200
            assert (services(again).access.team_tokens() == old_links) is links
        finally:
            old_game, old_links = services(again).access.game, services(again).access.team_tokens()
            services(again).bank.close()
            services(again).access.close()


def test_join_cards_use_the_links_kept_in_the_database(pair, tmp_path, config):
    from bank.cli.printing import _team_urls

    one, _ = pair
    urls = _team_urls(str(tmp_path / "shared.db"), config, "http://192.168.4.1:5000")
    assert urls == {team: f"http://192.168.4.1:5000/t/{token}" for team, token in services(one).access.team_tokens().items()}
    assert not list(tmp_path.glob("shared*"))


def test_without_a_database_url_the_key_stays_in_the_file_beside_the_game(tmp_path, config, monkeypatch):
    """A Pi's game is unchanged: the key is made once in <db>.secret, readable by its owner only."""
    monkeypatch.delenv(ENV_VAR)
    apps = [_app(tmp_path / "pi.db", config) for _ in range(2)]  # a restart reads the same file
    try:
        key_file = tmp_path / "pi.secret"
        assert key_file.read_text() == apps[0].config["SECRET_KEY"] == apps[1].config["SECRET_KEY"]
        assert key_file.stat().st_mode & 0o777 == 0o600
        assert not isinstance(services(apps[0]).access, PostgresAccess) and (tmp_path / "pi.db").is_file()
    finally:
        for app in apps:
            services(app).bank.close()
            services(app).access.close()
