"""Device cookies: strangers' failed log-ins no longer lock the lead out.

OWASP's "Slow down online guessing attacks with device cookies". A good log-in gives the
browser a long-lived cookie naming the account, signed with the app's secret (nobody can
mint one) and HttpOnly, SameSite=Strict. The rule, at each log-in:

- a client that presents a valid device cookie for the account it logs into is *trusted*:
  its failures are counted on that cookie alone (MAX_FAILURES, then the cookie is locked
  for LOCK_SECONDS, not the account), and nobody else's failures lock it;
- every other client is *untrusted* and counted as before: per account and address
  (MAX_FAILURES), per address (CLIENT_MAX_FAILURES) and per account over all untrusted
  clients (ACCOUNT_MAX_FAILURES): four addresses guessing "lead" lock "lead" for untrusted
  clients only, and the lead's own tablet, phone or laptop still logs in.

The cookie is separate from the session's (bank/web/access/cookie_session.py): logging out,
or logging in as someone else, clears the session but the device stays known. It names one
account: a later good log-in as another account on the device names that one instead.
"""

from __future__ import annotations

import secrets
import time
from datetime import timedelta

from flask import current_app, g, request
from itsdangerous import BadSignature
from werkzeug.http import parse_cookie

from bank.store.accounts.lockout import user_key
from bank.web.access.cookie_session import AFTER_SESSION, CookieSessions, CookieSigner

SUFFIX = "-device"  # after the session cookie's name: a game hosted under /g/<name>/ has its own of both
PURPOSE = b"terrabank device cookie v1"  # not a session cookie's signature, nor any other use of the secret
# A season of games on the same devices; renewed at each good log-in.
LIFETIME = timedelta(days=365)
# Counted under the per-device username key (lockout.user_key), so it gets MAX_FAILURES: an address
# (an IP, or "?") never starts with this, so no client's address count can be a device's.
DEVICE = "device:"


def _signer(app=None) -> CookieSigner:
    app = app or current_app
    keys = [app.secret_key, *(app.config.get("SECRET_KEY_FALLBACKS") or ())]
    # The session's clock (the bank's time line, R34): a Pi's date put right does not age every device cookie.
    clock = getattr(app.session_interface, "clock", time.time)
    cached = app.extensions.get("terrabank_device_signer")
    if cached is None or cached[0] != keys:
        cached = (keys, CookieSigner(keys, clock, purpose=PURPOSE))
        app.extensions["terrabank_device_signer"] = cached
    return cached[1]


def cookie_name() -> str:
    """The session cookie's name (config SESSION_COOKIE_NAME: "session", or a hosted game's) + SUFFIX."""
    return current_app.config.get("SESSION_COOKIE_NAME", "session") + SUFFIX


def _presented() -> dict | None:
    """The request's device cookie as signed here ({"device", "user"}), or None (none, forged, altered, too old)."""
    value = request.cookies.get(cookie_name(), "")
    if not value or not current_app.secret_key:
        return None
    try:
        data = _signer().loads(value, max_age=int(LIFETIME.total_seconds()))
    except BadSignature:  # not signed here, altered, or too old
        return None
    if not isinstance(data, dict) or not isinstance(data.get("device"), str) or not isinstance(data.get("user"), str):
        return None
    return data


def holder(username: str | None = None) -> str | None:
    """The device id of the request's valid device cookie (naming `username` when given), else None. Nobody
    can mint one: what a device reports is bound to it (the outbox's reports, bank/web/field/api.py)."""
    data = _presented()
    if data is None or (username is not None and data["user"].lower() != username.lower()):
        return None
    return data["device"]


def trusted_key(username: str) -> str | None:
    """The failure count of this device for `username` when the request holds a valid device cookie
    naming it; None for an untrusted client (no cookie, another account's, forged, too old)."""
    device = holder(username)
    return user_key(username, DEVICE + device) if device else None


def account_of(app, environ) -> str | None:
    """The account a request's valid device cookie names, read before the app runs (no request context):
    the server's admission gives such a device a lane of its account's for its body (serving/body_pools.py)."""
    name = app.config.get("SESSION_COOKIE_NAME", "session") + SUFFIX
    header = environ.get("HTTP_COOKIE", "")
    if f"{name}=" not in header or not app.secret_key:
        return None
    value = parse_cookie(header).get(name, "")
    try:
        data = _signer(app).loads(value, max_age=int(LIFETIME.total_seconds()))
    except BadSignature:  # not signed here, altered, or too old
        return None
    named = data.get("user") if isinstance(data, dict) else None
    return named if isinstance(named, str) and isinstance(data.get("device"), str) else None


def register(app) -> None:
    """Offer account_of to the server's admission, which imports no access module (serving/identity.py)."""
    app.extensions["terrabank_device_account"] = lambda environ: account_of(app, environ)


def give(response, username: str) -> str:
    """After a good log-in: this device is known for `username` (a new id, so an old copy of the cookie
    elsewhere keeps its own count); the new id."""
    app = current_app
    device = secrets.token_urlsafe(16)
    value = _signer().dumps({"device": device, "user": username})
    interface = app.session_interface
    # The session cookie's path, domain and Secure flag (a hosted game's stays under /g/<name>/).
    options = {"max_age": int(LIFETIME.total_seconds()), "path": interface.get_cookie_path(app),
               "domain": interface.get_cookie_domain(app), "secure": interface.get_cookie_secure(app),
               "httponly": True, "samesite": "Strict"}
    if isinstance(interface, CookieSessions):  # written after the session's cookie (cookie_session.py)
        g.setdefault(AFTER_SESSION, []).append((cookie_name(), value, options))
    else:
        response.set_cookie(cookie_name(), value, **options)
    return device
