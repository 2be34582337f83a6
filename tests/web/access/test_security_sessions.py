"""Sessions that end: logout, a password or role change and "log out everywhere" end a log-in at once,
its open sockets included; a replaced team link cuts the phones that used it; another site can
neither change a facilitator's cookie nor open their socket.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from bank.web.push import live
from live_kit import live_client
from conftest import CONFIG_PATH, WebClient
from security_kit import CALLERS, cookie, refusal, replay, services, snapshot

sys.path.insert(0, str(Path(__file__).resolve().parents[3] / "bench"))
import harness  # noqa: E402

START = {"type": "start_clock"}
HARVEST = {"type": "harvest", "team": "blue", "card": "harvester-1", "resource": "water"}




def received(sock) -> list:
    """What the server sent this socket since the last call, also after the server closed it
    (the test client's get_received() refuses a closed socket)."""
    return sock.received()  # tests/live_kit.py: a round's parts unfolded


def names(sock) -> list:
    return [m["name"] for m in received(sock)]


def facilitator_socket(app, web_client):
    sock = live_client(app, flask_test_client=web_client.client)
    sock.get_received()
    return sock


# ---- item 4: the old cookie stops working ----

def test_the_old_cookie_books_nothing_after_logout(web, app):
    lead = web("lead")
    copied = cookie(lead)
    assert lead.client.post("/api/logout", headers={"X-CSRF-Token": lead.csrf}).status_code == 200
    before = snapshot(app)
    stolen = replay(web, copied)
    reply = stolen.command(**START)
    assert reply.status_code == 401 and refusal(reply)["code"] == "login_required"
    assert stolen.client.get("/api/me").get_json()["role"] is None
    assert snapshot(app) == before


@pytest.mark.parametrize("change", [("referee", "correct horse"), ("banker", "a new password")])
def test_a_role_or_password_change_ends_the_session_at_once(web, app, change):
    banker = web("banker")
    lead = web("lead")
    lead.command(**START)
    role, password = change
    services(app).access.add_user("banker", password, role)  # what `terrabank user banker --role ...` does
    before = snapshot(app)
    reply = banker.command(**HARVEST)
    assert reply.status_code == 401 and refusal(reply)["code"] == "login_required"
    assert snapshot(app) == before
    assert banker.client.get("/api/me").get_json()["user"] is None  # the page shows the log-in form again
    assert banker.login("banker", password).status_code == 200
    assert banker.command(**HARVEST).status_code == (200 if role == "banker" else 403)


def test_a_cookie_made_before_server_side_sessions_is_logged_out(web, app):
    """A cookie that only says user and role (what the old code signed) is not a session."""
    forged = web()
    with forged.client.session_transaction() as sess:
        sess.update(user="lead", role="lead", csrf="known")
    forged.csrf = "known"
    reply = forged.command(**START)
    assert reply.status_code == 401 and refusal(reply)["code"] == "login_required"


def test_the_cookie_holds_no_role_and_the_file_no_session_id(web, app, tmp_path):
    from bank.store.accounts.sessions import digest

    lead = web("lead")
    with lead.client.session_transaction() as sess:
        assert "role" not in sess and set(sess) <= {"sid", "user", "csrf", "lang"}
        sid = sess["sid"]
    assert sid.encode() not in (tmp_path / "web.db").read_bytes()
    rows = app.extensions["terrabank_sessions"].listing()
    assert [r["id"] for r in rows] == [digest(sid)]


def test_logging_in_again_ends_the_devices_previous_session(web, app):
    lead = web("lead")
    first = cookie(lead)
    assert lead.login("lead").status_code == 200
    assert replay(web, first).command(**START).status_code == 401
    assert len(app.extensions["terrabank_sessions"].listing()) == 1


def test_an_idle_session_ends_after_a_day(tmp_path, app):
    from bank.store.accounts.sessions import IDLE_LIMIT, Sessions

    now = [1000.0]
    store = Sessions(services(app).access.conn, tmp_path / "web.db", clock=lambda: now[0])
    sid = store.start("lead", "lead", "10.0.0.5", "Mozilla/5.0 (Linux; Android 14) Chrome/126.0",
                      services(app).access.since("lead"))
    assert store.check(sid).role == "lead"
    now[0] += IDLE_LIMIT - 1
    assert store.check(sid) is not None  # a request inside the day keeps it alive...
    now[0] += IDLE_LIMIT + 1
    assert store.check(sid) is None  # ...a day without one ends it


def test_a_full_disk_does_not_log_anyone_out(tmp_path, app, monkeypatch):
    """last_seen is written once a minute; when the write fails the session still counts."""
    from bank.store.journal import StorageError
    from bank.store.accounts.sessions import SEEN_EVERY, Sessions

    now = [1000.0]
    store = Sessions(services(app).access.conn, tmp_path / "web.db", clock=lambda: now[0])
    sid = store.start("lead", "lead", "10.0.0.5", "", services(app).access.since("lead"))
    plain = store._sql

    def full(query, params=()):
        if query.startswith("UPDATE"):
            raise StorageError("disk_full", "the disk is full")
        return plain(query, params)
    monkeypatch.setattr(store, "_sql", full)
    now[0] += SEEN_EVERY + 1
    assert store.check(sid).user == "lead"


def test_device_names_are_short():
    from bank.store.accounts.sessions import device

    assert device("Mozilla/5.0 (Linux; Android 14; SM-A546B) AppleWebKit/537.36 Chrome/126.0 Mobile Safari/537.36") == "Chrome, Android"
    assert device("Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 Version/17.5 Safari/604.1") == "Safari, iPhone"
    assert device("") == "?" and len(device("x" * 500)) <= 40


# ---- the admin page: who is logged in, log out everywhere ----

def test_the_lead_sees_who_is_logged_in_where(web, app):
    web("banker").client.get("/api/me")
    lead = web("lead")
    reply = lead.client.get("/api/sessions", headers={"User-Agent": "x"})
    rows = reply.get_json()["sessions"]
    assert {(r["user"], r["role"]) for r in rows} == {("banker", "banker"), ("lead", "lead")}
    assert all(r["address"] == "127.0.0.1" and r["since"] <= r["last_seen"] for r in rows)
    assert [r["user"] for r in rows if r["current"]] == ["lead"]
    assert web("banker").client.get("/api/sessions").status_code == 403


def test_log_out_everywhere_ends_every_other_session_and_its_sockets(web, app):
    banker, referee, lead = web("banker"), web("referee"), web("lead")
    sock = facilitator_socket(app, banker)
    reply = lead.client.post("/api/sessions/end-all", headers={"X-CSRF-Token": lead.csrf})
    assert reply.status_code == 200 and reply.get_json() == {"ended": 2}
    assert banker.command(**HARVEST).status_code == 401 and referee.client.get("/api/state").status_code == 401
    assert not sock.is_connected()
    assert lead.command(**START).status_code == 200  # the lead who pressed it keeps working
    assert [r["user"] for r in app.extensions["terrabank_sessions"].listing()] == ["lead"]


@pytest.mark.parametrize("who", CALLERS)
def test_only_the_lead_may_end_sessions(web, app, tokens, who):
    banker = web("banker")
    client = web(who if who != "team" else None)
    key = app.extensions["terrabank_sessions"].listing()[-1]["id"]  # the oldest: the banker's
    for route in (f"/api/sessions/{key}/end", "/api/sessions/end-all"):
        reply = client.client.post(route, headers={"X-CSRF-Token": client.csrf})
        if who == "lead":
            assert reply.status_code == 200
        else:
            assert reply.status_code == (401 if who in (None, "team") else 403)
            refusal(reply)
            assert banker.client.get("/api/state").status_code == 200


def test_the_lead_can_log_out_one_device(web, app):
    banker, lead = web("banker"), web("lead")
    rows = lead.client.get("/api/sessions").get_json()["sessions"]
    key = next(r["id"] for r in rows if r["user"] == "banker")
    assert lead.client.post(f"/api/sessions/{key}/end", headers={"X-CSRF-Token": lead.csrf}).status_code == 200
    assert banker.client.get("/api/state").status_code == 401
    again = lead.client.post(f"/api/sessions/{key}/end", headers={"X-CSRF-Token": lead.csrf})
    assert again.status_code == 404 and refusal(again)["code"] == "unknown_session"


# ---- item 5: open sockets end with their session or link ----

def test_logout_cuts_the_facilitators_socket(web, app):
    banker, lead = web("banker"), web("lead")
    sock = facilitator_socket(app, banker)
    assert banker.client.post("/api/logout", headers={"X-CSRF-Token": banker.csrf}).status_code == 200
    assert [m["args"][0] for m in received(sock) if m["name"] == "session_ended"] == [{"reason": "logout"}]
    assert not sock.is_connected()
    lead.command(**START)
    assert received(sock) == []  # no journal row reaches it any more


def test_a_big_screen_opened_on_a_facilitators_tablet_stays_after_logout(web, app):
    lead = web("lead")
    screen = live_client(app, flask_test_client=lead.client, auth={"display": True})
    lead.client.post("/api/logout", headers={"X-CSRF-Token": lead.csrf})
    assert screen.is_connected()
    screen.get_received()
    assert web("lead").command(**START).status_code == 200
    got = names(screen)
    assert "public" in got and "journal" not in got


def test_a_rotated_link_cuts_the_phones_that_used_it(web, app, tokens):
    lead = web("lead")
    lead.command(**START)
    old_phone = live_client(app, auth={"team": tokens["blue"]})
    red_phone = live_client(app, auth={"team": tokens["red"]})
    old_phone.get_received(), red_phone.get_received()
    new = lead.client.post("/api/teams/blue/rotate", headers={"X-CSRF-Token": lead.csrf}).get_json()["token"]
    assert [m["args"][0] for m in received(old_phone) if m["name"] == "link_replaced"] == [{"reason": "rotated"}]
    assert not old_phone.is_connected() and red_phone.is_connected()
    new_phone = live_client(app, auth={"team": new})
    new_phone.get_received()
    lead.command(**HARVEST)
    assert received(old_phone) == []  # blue's stock no longer reaches the old link
    assert "team" in names(new_phone) and "team" in names(red_phone)
    assert live_client(app, auth={"team": tokens["blue"]}).is_connected() is False


def test_a_session_ended_by_another_process_loses_its_socket_at_the_next_sweep(web, app, tmp_path):
    """`terrabank user` run while the server runs: HTTP refuses at once, the socket goes at the ticker's sweep."""
    banker = web("banker")
    sock = facilitator_socket(app, banker)
    cli = subprocess.run([harness.TERRABANK, "--config", str(CONFIG_PATH), "--db", str(tmp_path / "web.db"),
                          "user", "banker", "--role", "referee", "--password-stdin"],
                         input="correct horse\n", capture_output=True, text=True, timeout=120)
    assert cli.returncode == 0, cli.stderr
    assert banker.client.get("/api/state").status_code == 401
    assert sock.is_connected()  # until the sweep (every second in `terrabank serve`)
    assert live.sweep(app) == 1
    assert "session_ended" in names(sock) and not sock.is_connected()


def test_a_socket_opened_with_an_ended_session_joins_no_facilitator_room(web, app):
    banker, lead = web("banker"), web("lead")
    copied = cookie(banker)
    banker.client.post("/api/logout", headers={"X-CSRF-Token": banker.csrf})
    sock = facilitator_socket(app, replay(web, copied))
    sock.emit("sync", {"after": 0})
    lead.command(**START)
    assert "journal" not in names(sock)


# ---- item 6: another site ----

def test_a_cross_site_form_cannot_change_the_language_or_replace_the_cookie(web, app):
    """What an auto-submitted form on another site sends: no cookie (SameSite=Lax) and no token."""
    outsider = app.test_client()
    reply = outsider.post("/api/lang/en", data={"x": "1"})
    assert reply.status_code == 403 and refusal(reply)["code"] == "csrf_failed"
    assert "Set-Cookie" not in reply.headers  # the browser's facilitator cookie stays as it was
    lead = web("lead")
    reply = lead.client.post("/api/lang/en", data={"x": "1"})  # an older browser that sends the cookie anyway
    assert reply.status_code == 403
    assert lead.client.get("/api/me").get_json()["user"] == "lead"
    assert lead.client.post("/api/lang/en", headers={"X-CSRF-Token": lead.csrf}).status_code == 200  # the page's switch


@pytest.mark.parametrize("host", ["localhost", "192.168.4.1:5000", "terrabank.local"])
def test_socketio_accepts_only_the_pages_own_origin(app, host):
    client = app.test_client()
    handshake = "/socket.io/?EIO=4&transport=polling"
    evil = client.get(handshake, headers={"Origin": "http://evil.example", "Host": host})
    assert evil.status_code == 400
    same = client.get(handshake, headers={"Origin": f"http://{host}", "Host": host})
    assert same.status_code == 200 and same.data.startswith(b"0{")
    assert client.get(handshake, headers={"Host": host}).status_code == 200  # no Origin: not a browser page


def test_a_password_changed_while_a_log_in_is_checked_opens_no_session(app, web, monkeypatch):
    """The old password was right when it was checked, but the account was replaced during the
    check (scrypt takes a while): the log-in must not open a session on the new account."""
    access = services(app).access
    check = access.check

    def replaced_meanwhile(username, password):
        role = check(username, password)
        access.add_user(username, "a new password", role)  # `terrabank user` in another window
        return role
    monkeypatch.setattr(access, "check", replaced_meanwhile)
    client = WebClient(app.test_client())
    reply = client.login("lead")
    assert reply.status_code == 409 and reply.get_json()["error"]["code"] == "account_changed"
    assert client.client.get("/api/state").status_code == 401
