"""Who may change what: every state-changing route and socket handler, log-in brute force, CSRF.

The route list is read from the app itself, so a POST route or a socket handler added
later without an entry here (and so without a decided permission) fails the first test.
"""

from __future__ import annotations

import pytest

from bank.web.access import auth
from bank.web.push.extensions import socketio_of
from live_kit import live_client
from bank.web.access.permissions import PERMISSIONS
from security_kit import CALLERS, KINDS, is_sentence, prepare, refusal, services, snapshot, valid_command

WRITE_METHODS = {"POST", "PUT", "PATCH", "DELETE"}

# Every state-changing route and who may use it. "anyone" routes change only the caller's own session.
ROUTES = {
    "/api/commands": "per command type (PERMISSIONS)",
    "/api/teams/<team>/rotate": {"lead"},
    "/api/display/rotate": {"lead"},  # the big screen's link (bank/web/field/pages.py)
    "/api/trias/visitors": {"lead"},  # whether visitors may start Trias games during the field game
    "/api/login": "anyone (with the CSRF token of the log-in page)",
    "/api/logout": "anyone (own session, CSRF token)",
    "/api/lang/<code>": "anyone (own session's language only; CSRF token: a cross-site form would replace the cookie)",
    "/api/sessions/<key>/end": {"lead"},
    "/api/sessions/end-all": {"lead"},
    "/api/accounts": {"lead"},
    "/api/accounts/delete": {"lead"},
    # Games hosted beside this one (serve --games, bank/web/field/host_routes.py): the lead of the game at /.
    "/api/host/games": {"lead"},
    # Paper takes over (bank/web/field/paper_routes.py): the lead types the paper ledgers back.
    "/api/paper/batch": {"lead"},
    # The game's story on the big screen (bank/web/field/replay_routes.py): a message to the screens.
    "/api/replay/start": {"lead"},
    # What a page saw of the journal that the bank no longer holds (bank/web/field/chain_routes.py):
    # a team link, the big screen's key or a facilitator's session (CSRF); the bank checks the claim itself.
    "/api/chain/witness": "a team link, the big screen's key or a facilitator (CSRF); only a head the bank lacks is kept",
    # Trias at the table (bank/web/trias/routes.py): no log-in, like a team link; every POST needs the page's CSRF token.
    "/trias/api/games": "anyone (a new Trias game, not the bank's)",
    "/trias/api/s/<token>/commands": "the seat's secret link, on that seat's turn only (T8, T9); undo: its own last move",
    "/trias/api/g/<game_id>/commands": "the table's secret, in mirror games only, for the human seat to play",
    "/trias/api/g/<game_id>/undo": "the table's secret (the table agrees; a new journal row)",
    "/trias/api/g/<game_id>/rematch": "the table's secret",
    "/trias/api/admin/games/<game_id>/table": {"lead"},
    "/trias/api/score": "anyone (a calculation, nothing stored)",
    # A facilitator's device says how many of its own account's commands wait in its outbox (bank/web/field/api.py);
    # nothing of the game changes: the lead's admin page lists the devices (GET, lead only).
    "/api/outbox": "a facilitator (own account's count, CSRF token); GET: the lead",
}
# connect and sync only read: they send the current picture to the caller; disconnect forgets the socket.
SOCKET_HANDLERS = {"connect", "sync", "disconnect"}


def _client(web, tokens, who):
    client = web(who if who != "team" else None)
    if who == "team":  # a team phone: its link opened, no facilitator session
        assert client.client.get(f"/api/team/{tokens['blue']}").status_code == 200
    return client


def test_every_state_changing_route_has_a_decided_permission(app):
    routes = {rule.rule for rule in app.url_map.iter_rules() if rule.methods & WRITE_METHODS}
    assert routes == set(ROUTES), f"routes without a permission entry here: {routes - set(ROUTES)}; gone: {set(ROUTES) - routes}"


def test_every_socket_handler_is_known_and_changes_nothing(app, web, tokens):
    assert {event for event, _, _ in socketio_of(app).handlers} == SOCKET_HANDLERS
    prepare(app)
    before = snapshot(app)
    for who in CALLERS:
        client = _client(web, tokens, who)
        sock = live_client(app, flask_test_client=client.client, auth={"team": tokens["blue"]} if who == "team" else {})
        sock.emit("sync", {"after": 0, "team": tokens["red"]})
        assert sock.get_received(), "a sync gets the current picture back"
        sock.disconnect()
    assert snapshot(app) == before


def test_every_command_type_has_a_permission_entry():
    assert set(PERMISSIONS) == set(KINDS)
    assert all(PERMISSIONS[k] and PERMISSIONS[k] <= {"lead", "banker", "referee"} for k in KINDS)
    assert all("lead" in PERMISSIONS[k] for k in KINDS), "the lead can do everything"


@pytest.mark.parametrize("who", CALLERS)
@pytest.mark.parametrize("kind", KINDS)
def test_command_permission_cell(web, tokens, app, who, kind):
    """A refused cell is 401/403 with a sentence and changes nothing; an allowed cell really works
    (the command is booked, or the RULES refuse it with 409), never a 400 for a valid command or a 500."""
    prepare(app)
    client = _client(web, tokens, who)
    before, seq = snapshot(app), services(app).bank.last_seq
    reply = client.command(**valid_command(kind, services(app).config))
    if who in PERMISSIONS[kind]:
        assert reply.status_code in (200, 409), (reply.status_code, reply.get_json())
        if reply.status_code == 200:
            assert services(app).bank.last_seq > seq and reply.get_json()["duplicate"] is False
        else:
            assert snapshot(app) == before and is_sentence(refusal(reply)["message"])
    else:
        assert reply.status_code == (401 if who in (None, "team") else 403)
        refusal(reply)
        assert snapshot(app) == before


def test_the_valid_commands_mostly_succeed_for_the_lead(web, app):
    """Guards the cell test above: "allowed" must mean booked, not merely "refused by the rules"."""
    prepare(app)
    last = ["close_event", "pause", "end_session", "end_game"]  # these would stop the others
    lead, refused = web("lead"), []
    for kind in [k for k in KINDS if k not in last] + last:
        reply = lead.command(**valid_command(kind, services(app).config))
        if reply.status_code != 200:
            refused.append((kind, reply.status_code, reply.get_json()["error"]["code"]))
    assert {kind for kind, _, _ in refused} <= {"buy_animal", "buy_second_pirate", "start_clock", "resume"}, refused
    assert all(status == 409 for _, status, _ in refused), refused


@pytest.mark.parametrize("who", CALLERS)
def test_token_rotation_cell(web, tokens, app, who):
    client = _client(web, tokens, who)
    before = snapshot(app)
    reply = client.client.post("/api/teams/red/rotate", headers={"X-CSRF-Token": client.csrf})
    if who == "lead":
        assert reply.status_code == 200 and services(app).access.team_tokens()["red"] == reply.get_json()["token"]
    else:
        assert reply.status_code == (401 if who in (None, "team") else 403)
        refusal(reply)
        assert snapshot(app) == before


@pytest.mark.parametrize("who", CALLERS)
def test_outbox_report_cell(web, tokens, app, who):
    """A device's count of waiting commands: any facilitator for their own account, never a team link or a
    stranger; the game itself is unchanged whoever sends it."""
    client = _client(web, tokens, who)
    before = snapshot(app)
    reply = client.client.post("/api/outbox", json={"device": "tablet-1", "waiting": 2, "oldest_seconds": 30},
                               headers={"X-CSRF-Token": client.csrf})
    if who in ("lead", "banker", "referee"):
        assert reply.status_code == 200, (who, reply.status_code)
    else:
        assert reply.status_code == 401
        refusal(reply)
    assert snapshot(app) == before


def test_rotating_an_unknown_team_is_a_clear_404(web, app):
    lead = web("lead")
    before = snapshot(app)
    reply = lead.client.post("/api/teams/purple/rotate", headers={"X-CSRF-Token": lead.csrf})
    assert reply.status_code == 404 and "purple" in refusal(reply)["message"]
    assert snapshot(app) == before


# ---- log-in brute force ----

def _login(web_client, username, password, addr="10.0.0.9"):
    return web_client.client.post("/api/login", json={"username": username, "password": password},
                                  headers={"X-CSRF-Token": web_client.csrf}, environ_base={"REMOTE_ADDR": addr})


def test_brute_force_of_a_facilitator_is_locked_out_even_with_the_right_password(web):
    attacker = web()
    for attempt in range(auth.MAX_FAILURES):
        assert _login(attacker, "lead", f"guess {attempt}").status_code == 401
    for password in ("guess again", "correct horse"):
        reply = _login(attacker, "lead", password)
        error = refusal(reply)
        assert reply.status_code == 429 and error["code"] == "locked_out"
        assert 0 < error["params"]["seconds_left"] <= auth.LOCK_SECONDS and "try again in" in error["message"]
    # The lock is on this account from this device: the real lead on a device that has not failed still gets in
    # (strangers must not lock the lead out); ACCOUNT_MAX_FAILURES bounds guesses spread over devices.
    assert _login(web(), "lead", "correct horse", addr="10.0.0.50").status_code == 200


def test_guesses_spread_over_many_devices_stop_at_the_account_cap(web):
    """Each device gets MAX_FAILURES tries at "lead"; all devices together get ACCOUNT_MAX_FAILURES, then everyone waits."""
    statuses = []
    for n in range(auth.ACCOUNT_MAX_FAILURES // auth.MAX_FAILURES + 1):
        statuses += [_login(web(), "lead", f"guess {n}.{k}", addr=f"10.0.3.{n}").status_code for k in range(auth.MAX_FAILURES)]
    assert statuses.count(401) == auth.ACCOUNT_MAX_FAILURES and set(statuses[auth.ACCOUNT_MAX_FAILURES:]) == {429}
    reply = _login(web(), "lead", "correct horse", addr="10.0.0.50")
    assert reply.status_code == 429 and "min" in refusal(reply)["message"]
    assert _login(web(), "banker", "correct horse", addr="10.0.0.50").status_code == 200  # other accounts are not touched


def test_the_lockout_ends_after_its_time():
    lockout = auth.Lockout()
    assert auth.user_key("lead", "10.0.0.9") != auth.user_key("lead", "10.0.0.50")
    for _ in range(auth.MAX_FAILURES):
        lockout.failed(auth.USER + "lead", now=1000.0)
    assert lockout.seconds_left(auth.USER + "lead", now=1000.0) == auth.LOCK_SECONDS + 1
    assert lockout.seconds_left(auth.USER + "lead", now=1000.0 + auth.LOCK_SECONDS - 1) > 0
    assert lockout.seconds_left(auth.USER + "lead", now=1000.0 + auth.LOCK_SECONDS) == 0


def test_rotating_usernames_from_one_device_is_locked_out_per_client(web):
    """An attacker who tries 4 passwords on each of many usernames never trips the per-user lock;
    the per-client count (20 failures) stops the device."""
    attacker = web()
    tries = 0
    for name in ("lead", "banker", "referee", "admin", "root", "anna"):
        for attempt in range(auth.MAX_FAILURES - 1):
            reply = _login(attacker, name, f"guess {attempt}")
            if reply.status_code == 429:
                break
            tries += 1
    assert tries == auth.CLIENT_MAX_FAILURES
    assert _login(attacker, "lead", "correct horse").status_code == 429
    # Another device (the real facilitators' tablets) is not locked: no username reached its own limit.
    assert _login(web(), "lead", "correct horse", addr="10.0.0.50").status_code == 200


def test_spraying_one_password_over_every_username_is_locked_out_per_client(web):
    attacker = web()
    statuses = [_login(attacker, f"user{n}", "password123").status_code for n in range(auth.CLIENT_MAX_FAILURES + 3)]
    assert statuses[:auth.CLIENT_MAX_FAILURES] == [401] * auth.CLIENT_MAX_FAILURES
    assert set(statuses[auth.CLIENT_MAX_FAILURES:]) == {429}


def test_a_username_cannot_be_used_to_lock_someone_elses_device(web):
    attacker = web()
    for _ in range(auth.CLIENT_MAX_FAILURES):
        _login(attacker, auth.CLIENT + "10.0.0.50", "x", addr="10.0.0.9")
    assert _login(web(), "lead", "correct horse", addr="10.0.0.50").status_code == 200


def test_a_good_log_in_clears_the_count(web):
    client = web()
    for _ in range(auth.MAX_FAILURES - 1):
        _login(client, "banker", "typo")
    assert _login(client, "banker", "correct horse").status_code == 200
    client = web()  # the same device, later
    for _ in range(auth.MAX_FAILURES - 1):
        assert _login(client, "banker", "typo").status_code == 401


def test_a_log_in_body_of_the_wrong_shape_is_a_clear_400(web):
    client = web()
    for body in ([1, 2], {"username": ["lead"], "password": "correct horse"}, {"username": "lead", "password": 12345678}):
        reply = client.client.post("/api/login", json=body, headers={"X-CSRF-Token": client.csrf})
        assert reply.status_code == 400, body
        refusal(reply)


# ---- CSRF ----

POSTS = [  # (route, body, role that may use it)
    ("/api/commands", {"type": "start_clock"}, "lead"),
    ("/api/teams/red/rotate", None, "lead"),
    ("/api/logout", {}, "lead"),
    ("/api/login", {"username": "lead", "password": "correct horse"}, None),
    ("/api/lang/en", {}, None),
    ("/api/lang/en", {}, "lead"),
    ("/api/sessions/end-all", {}, "lead"),
    ("/api/accounts", {"username": "dora", "role": "banker", "password": "long enough", "again": "long enough"}, "lead"),
    ("/api/accounts/delete", {"username": "banker"}, "lead"),
]


@pytest.mark.parametrize("route, body, who", POSTS)
@pytest.mark.parametrize("how", ["no token", "wrong token", "form post", "text/plain post"])
def test_csrf_refused(web, app, route, body, who, how):
    client = web(who)
    before = snapshot(app)
    logged_in = client.client.get("/api/me").get_json()["user"]
    headers = {"Idempotency-Key": "csrf-1"}
    if how == "wrong token":
        headers["X-CSRF-Token"] = client.csrf[:-2] + "xx"
    if how == "form post":  # what a cross-site <form method=post> sends (no custom header possible)
        reply = client.client.post(route, data={"type": "start_clock", "username": "lead", "password": "correct horse",
                                                "csrf_token": "guessed"}, headers=headers)
    elif how == "text/plain post":
        reply = client.client.post(route, data='{"type": "start_clock"}', content_type="text/plain", headers=headers)
    else:
        reply = client.client.post(route, json=body, headers=headers)
    assert reply.status_code == 403 and refusal(reply)["code"] == "csrf_failed", (how, reply.status_code)
    assert snapshot(app) == before
    assert client.client.get("/api/me").get_json()["user"] == logged_in  # not logged out, not logged in


def test_a_cross_site_form_with_the_right_token_still_cannot_post_a_command(web, app):
    """Even with a leaked token a form post is not JSON: the command endpoint reads only JSON."""
    lead = web("lead")
    before = snapshot(app)
    reply = lead.client.post("/api/commands", data={"type": "start_clock", "csrf_token": lead.csrf},
                             headers={"Idempotency-Key": "form-1"})
    assert reply.status_code == 400 and refusal(reply)["code"] == "not_json"
    assert snapshot(app) == before


GETS = ["/", "/login", "/console", "/fight", "/admin", "/display", "/api/config", "/api/public", "/api/history",
        "/api/state", "/api/journal", "/api/me", "/api/csrf", "/api/teams/links", "/api/export/journal.csv",
        "/api/export/standings.json", "/api/print/join.pdf", "/api/sessions", "/api/accounts",
        "/api/teams/address", "/api/teams/red/qr.svg", "/api/host/games", "/api/display/link", "/api/trias/visitors", "/t", "/t/", "/trias/", "/trias/api/games",
        "/trias/g/nosuchgm", "/trias/s/no-such-seat", "/trias/api/g/nosuchgm", "/trias/api/s/no-such-seat",
        "/trias/api/admin/games", "/trias/score", "/trias/print/aid.pdf", "/trias/print/setup.pdf?players=3&seed=4", "/trias/print/score-sheet.pdf", "/healthz", "/readyz",
        "/api/paper/state.pdf", "/api/paper/ledgers.pdf", "/api/paper/bank-down.pdf", "/api/paper/saved",
        "/api/paper/syntax", "/api/replay", "/static/bundles/0123456789abcdef.js", "/api/chain/1", "/api/chain/witness",
        "/api/outbox", "/api/reload", "/sw.js"]


def test_a_get_never_changes_anything(web, app, tokens):
    prepare(app)
    lead = web("lead")
    before = snapshot(app)
    rules = {rule.rule for rule in app.url_map.iter_rules() if "GET" in rule.methods}
    covered = set(GETS) | {"/t/<token>", "/api/team/<token>", "/static/<path:filename>",
                           "/api/export/<what>.<fmt>", "/api/print/<kind>.pdf",
                           "/api/teams/<team>/qr.svg", "/trias/g/<game_id>", "/trias/s/<token>",
                           "/trias/g/<game_id>/qr/<int:number>.svg", "/trias/api/g/<game_id>", "/trias/api/s/<token>",
                           "/trias/print/<doc>.pdf", "/api/paper/<kind>.pdf", "/static/bundles/<key>.js",
                           "/api/chain/<int:seq>"}
    assert rules <= covered, f"GET routes not exercised here: {rules - covered}"
    for path in GETS + [f"/t/{tokens['blue']}", f"/api/team/{tokens['blue']}", "/static/js/live.js",
                        "/api/commands", "/api/logout", "/api/teams/red/rotate"]:
        with lead.client.get(path) as reply:
            assert reply.status_code < 500, path
    assert snapshot(app) == before
    assert lead.client.get("/api/me").get_json()["user"] == "lead"  # GET /api/logout did not log out
