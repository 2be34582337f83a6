"""The session cookie signed with keys derived once (bank/web/access/cookie_session.py): a tampered,
foreign, expired or old-format cookie logs nobody in and books nothing; the cookie keeps the
path, name and flags app.config gives it (a game hosted under /g/<name>/ has its own)."""

from __future__ import annotations

import time

from flask.sessions import SecureCookieSessionInterface

from bank.web.access.cookie_session import CookieSessions, CookieSigner
from security_kit import cookie, refusal, replay, snapshot

START = {"type": "start_clock"}




def assert_logged_out_and_nothing_booked(app, client) -> None:
    before = snapshot(app)
    reply = client.command(**START)
    assert reply.status_code == 401 and refusal(reply)["code"] == "login_required"
    assert client.client.get("/api/me").get_json()["role"] is None
    assert snapshot(app) == before


def test_the_app_uses_the_cookie_interface_and_logs_in_with_it(web, app):
    assert isinstance(app.session_interface, CookieSessions)
    lead = web("lead")
    assert lead.command(**START).status_code == 200
    assert lead.client.get("/api/me").get_json()["role"] == "lead"


def test_a_tampered_cookie_logs_nobody_in(web, app):
    value = cookie(web("lead"))
    body, at, signature = value.split(".")
    flipped = signature[:5] + ("A" if signature[5] != "A" else "B") + signature[6:]
    for forged in (f"{body}.{at}.{flipped}", f"{body}x.{at}.{signature}", f"{body}.{int(at) + 1}.{signature}",
                   value[:-3], "garbage", "a.b.c.d", ".", ""):
        assert_logged_out_and_nothing_booked(app, replay(web, forged))


def test_a_cookie_signed_with_another_key_logs_nobody_in(web, app):
    lead = web("lead")
    with lead.client.session_transaction() as sess:
        data = dict(sess)
    foreign = CookieSigner(["another game's secret key"]).dumps(data)
    assert_logged_out_and_nothing_booked(app, replay(web, foreign))


def test_a_cookie_in_flasks_old_format_logs_out_cleanly(web, app):
    """A device that logged in before this change keeps a cookie Flask signed (same key, valid session row):
    it is logged out, its next page asks for the log-in, and logging in again works."""
    lead = web("lead")
    with lead.client.session_transaction() as sess:
        data = dict(sess)
    old = SecureCookieSessionInterface().get_signing_serializer(app).dumps(data)
    device = replay(web, old)
    assert_logged_out_and_nothing_booked(app, device)
    assert device.login("lead").status_code == 200
    assert device.command(**START).status_code == 200


def test_a_device_logged_in_before_the_plain_json_signer_stays_logged_in(web, app):
    """Until this session the signed part was Flask's tagged JSON (sorted keys, ASCII escapes); the
    signer now writes plain JSON. Both are the same JSON for a session of texts, so a facilitator who
    logged in on the earlier version is not sent back to the log-in page by the upgrade."""
    import base64
    import hmac

    from flask.sessions import session_json_serializer

    from bank.web.access.cookie_session import PURPOSE

    lead = web("lead")
    with lead.client.session_transaction() as sess:
        data = {**sess, "lang": "fr"}
    with app.test_request_context():  # as the old signer ran: inside a request, Flask's JSON settings
        text = session_json_serializer.dumps(data)
    b64 = lambda raw: base64.urlsafe_b64encode(raw).rstrip(b"=").decode()  # noqa: E731
    payload = f"{b64(text.encode())}.{int(time.time())}"
    key = hmac.digest(app.secret_key.encode(), PURPOSE, "sha256")
    earlier = f"{payload}.{b64(hmac.digest(key, payload.encode(), 'sha256'))}"
    device = replay(web, earlier)
    assert device.client.get("/api/me").get_json()["role"] == "lead"
    assert device.command(**START).status_code == 200


def test_a_cookie_older_than_the_session_lifetime_is_refused(web, app):
    lead = web("lead")
    with lead.client.session_transaction() as sess:
        data = dict(sess)
    lifetime = app.permanent_session_lifetime.total_seconds()
    keys = [app.secret_key]
    stale = CookieSigner(keys, clock=lambda: 1_000_000.0).dumps(data)
    assert CookieSigner(keys, clock=lambda: 1_000_000.0 + lifetime - 1).loads(stale, int(lifetime)) == data
    assert_logged_out_and_nothing_booked(app, replay(web, stale))


def test_a_rotated_key_keeps_devices_logged_in_while_it_is_a_fallback(web, app):
    lead = web("lead")
    old_key = app.secret_key
    app.config.update(SECRET_KEY="a new key for this game", SECRET_KEY_FALLBACKS=[old_key])
    assert lead.command(**START).status_code == 200  # signed with the old key: accepted while it is a fallback
    app.config["SECRET_KEY_FALLBACKS"] = []
    assert lead.client.get("/api/me").get_json()["role"] is None  # the old key dropped: that cookie opens nothing

def test_the_cookie_keeps_the_path_name_and_flags_of_the_config(tmp_path, config):
    """What a game hosted under /g/<name>/ sets (bank/web/serving/hosting.py): its cookie stays on its path."""
    from bank.web import create_app

    app = create_app({"DB": tmp_path / "g.db", "CONFIG": config, "TESTING": True, "PASSWORD_HASH": "pbkdf2:sha256:1000",
                      "SESSION_COOKIE_NAME": "terrabank-north", "SESSION_COOKIE_PATH": "/g/north/",
                      "SESSION_COOKIE_SECURE": True})
    try:
        reply = app.test_client().get("/api/csrf")
        header = reply.headers["Set-Cookie"]
        assert header.startswith("terrabank-north=")
        assert "Path=/g/north/" in header and "Secure" in header and "HttpOnly" in header
        assert "SameSite=Lax" in header
        assert "Cookie" in reply.headers["Vary"]
    finally:
        app.extensions["terrabank"].bank.close()
        app.extensions["terrabank"].access.close()
