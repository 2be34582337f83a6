"""A facilitator's command on the real server reads its session once (P1 latency).

Admission (bank/web/serving/identity.py) names a request with a body by the secret it carries before the
app runs: for a facilitator it opened the signed cookie in a whole Flask request context and looked the
session's row up, then Flask opened the same cookie again and load_login looked the same row up again.
Each command paid both twice (0.05-0.09 ms of worker CPU, docs/PERFORMANCE.md "Command latency").
Now admission opens the cookie with the app's own session interface and leaves what it found in the
request's environ, and the app takes it for that request only. These tests hold the count and the
guarantees that must not move with it: an ended session is refused at its next request, a cookie made
elsewhere opens nothing, and a socket's later events check the row afresh.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from bank.web.access import cookie_session
from bank.web.access.auth import current_login
from bank.web.serving.identity import CHECKED_LOGIN, OPENED_COOKIE

sys.path.insert(0, str(Path(__file__).resolve().parents[3] / "bench"))
from harness import Api  # noqa: E402

HARVEST = {"type": "harvest", "team": "blue", "card": "harvester-1", "resource": "water"}


@pytest.fixture
def served(app):
    """The app on `terrabank serve`'s worker (admission included) in a thread: (base url, lead's Api)."""
    from browserkit import serve_in_thread, stop_servers

    url, _ = serve_in_thread(app)
    lead = Api(url, timeout=10).login("lead", "correct horse")
    try:
        assert lead.command("start", type="start_clock")[0] == 200
        yield url, lead
    finally:
        lead.close()
        stop_servers()


class Calls:
    """How many times each wrapped function ran while `counting`."""

    def __init__(self):
        self.counts: dict[str, int] = {}

    def wrap(self, name: str, fn):
        def counted(*args, **kwargs):
            self.counts[name] = self.counts.get(name, 0) + 1
            return fn(*args, **kwargs)
        return counted


def test_a_command_opens_its_cookie_and_checks_its_session_row_once(app, served, monkeypatch):
    """Admission's answer is reused by the app within the request, so the booked harvest
    costs one HMAC check of the cookie and one session look-up, not two of each."""
    _, lead = served
    calls = Calls()
    sessions = app.extensions["terrabank_sessions"]
    monkeypatch.setattr(sessions, "check", calls.wrap("session row", sessions.check))
    monkeypatch.setattr(cookie_session.CookieSigner, "loads",
                        calls.wrap("cookie", cookie_session.CookieSigner.loads))
    status, body = lead.command("h1", **HARVEST)
    assert status == 200 and body["events"], body  # booked
    assert calls.counts == {"session row": 1, "cookie": 1}


def test_a_session_ended_is_refused_at_its_very_next_command(app, served):
    """The reused answer never outlives its request: log out, and the same cookie's next command is 401."""
    url, lead = served
    kept = Api(url, timeout=10)
    kept.cookie, kept.csrf = lead.cookie, lead.csrf  # a second tab of the same browser
    assert kept.command("h1", **HARVEST)[0] == 200
    assert lead.request("POST", "/api/logout")[0] == 200
    status, body = kept.command("h2", **HARVEST)
    kept.close()
    assert status == 401 and body["error"]["code"] == "login_required", body


def test_a_cookie_signed_with_another_key_opens_nothing(app, served):
    """A cookie not signed by this game (another bank's, altered) is no login, with or without admission's help."""
    url, lead = served
    value = lead.cookies["session"]  # the session's cookie (the lead's device cookie sits beside it)
    forged = value[:-2] + ("AA" if not value.endswith("AA") else "BB")
    stranger = Api(url, timeout=10)
    stranger.cookie, stranger.csrf = f"session={forged}", lead.csrf
    status, body = stranger.command("f1", **HARVEST)
    stranger.close()
    assert status == 401 and body["error"]["code"] == "login_required", body


def test_admissions_answer_is_taken_once_so_a_sockets_later_events_check_the_row(app, web):
    """Flask-SocketIO runs every event of a socket on its connecting request's environ: what admission left
    there is taken out by the first look-up, and the next one asks the session's row (which may have ended)."""
    from flask import request, session

    lead = web("lead")
    with app.test_request_context("/api/commands", method="POST", headers={"Cookie": f"session={lead_cookie(lead)}"}):
        sid = session["sid"]
        sessions = app.extensions["terrabank_sessions"]
        request.environ[CHECKED_LOGIN] = (sessions, sid, "admission's answer")
        assert current_login() == "admission's answer"
        assert CHECKED_LOGIN not in request.environ
    with app.test_request_context("/api/commands", method="POST", headers={"Cookie": f"session={lead_cookie(lead)}"}) as ctx:
        ctx.request.environ[CHECKED_LOGIN] = (sessions, "another id", "not this session's")
        assert current_login() is not None and current_login() != "not this session's"
    assert OPENED_COOKIE.startswith("terrabank.") and CHECKED_LOGIN.startswith("terrabank.")  # never a client's HTTP_


def lead_cookie(client) -> str:
    """The session cookie's value a test client holds."""
    found = client.client.get_cookie("session")
    return found.value
