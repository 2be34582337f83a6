"""Facilitator login (server-side sessions, lockout), CSRF tokens, and the checks routes use."""

from __future__ import annotations

import hmac
import secrets
from functools import wraps

from flask import current_app, g, jsonify, request, session

# The lock and its constants live in lockout.py; re-exported for the code and tests that import them from here.
from bank.store.accounts.lockout import (ACCOUNT, ACCOUNT_MAX_FAILURES, CLIENT, CLIENT_MAX_FAILURES, LOCK_SECONDS,  # noqa: F401
                      MAX_FAILURES, USER, Busy, Lockout, user_key)
from bank.store.accounts.sessions import Login, Sessions
from bank.web.serving.identity import CHECKED_LOGIN


def csrf_token() -> str:
    """The session's CSRF token, created on first use."""
    if "csrf" not in session:
        session["csrf"] = secrets.token_urlsafe(24)
    return session["csrf"]


def csrf_ok() -> bool:
    sent = request.headers.get("X-CSRF-Token") or request.form.get("csrf_token") or ""
    return bool(session.get("csrf")) and hmac.compare_digest(sent, session["csrf"])


def sessions() -> Sessions:
    """The app's server-side log-in sessions (sessions.py)."""
    return current_app.extensions["terrabank_sessions"]


def current_login() -> Login | None:
    """The valid session of this request or socket event, from its row (not from the cookie); looked up once.
    Admission (serving/identity.py) already looked up the session of a request with a body: its answer for
    the same sessions and the same id is taken, not asked again. Taken out of the environ, so only
    once: a socket's events run on its connecting request's environ, and each must check the row afresh."""
    if "login" not in g:
        sid = session.get("sid")
        checked = request.environ.pop(CHECKED_LOGIN, None)
        if checked is not None and checked[0] is sessions() and checked[1] == sid:
            g.login = checked[2]
        else:
            g.login = sessions().check(sid) if sid else None
    return g.login


def load_login() -> None:
    """Before each request: a cookie whose session ended (logout, account changed, ended by the lead) is logged out."""
    if request.endpoint == "static":
        return
    if current_login() is None and any(key in session for key in ("sid", "user", "role")):
        for key in ("sid", "user", "role"):  # "role": cookies made before server-side sessions
            session.pop(key, None)


def current_role() -> str | None:
    """The logged-in facilitator's role, or None."""
    login = current_login()
    return login.role if login else None


def error(http_status: int, code: str, message: str, params: dict | None = None):
    """A JSON refusal in the API's one shape."""
    return jsonify({"error": {"code": code, "message": message, "params": params or {}}}), http_status


def facilitator_required(view):
    """Only a logged-in facilitator; POSTs also need the CSRF token."""
    @wraps(view)
    def wrapper(*args, **kwargs):
        if not current_role():
            return error(401, "login_required", "log in as a facilitator first")
        if request.method == "POST" and not csrf_ok():
            return error(403, "csrf_failed", "this page is out of date or came from elsewhere; reload it and try again")
        g.role = current_role()
        return view(*args, **kwargs)
    return wrapper


def lead_required(view):
    @facilitator_required
    @wraps(view)
    def wrapper(*args, **kwargs):
        if g.role != "lead":
            return error(403, "forbidden", "only the lead facilitator may do this")
        return view(*args, **kwargs)
    return wrapper


def lockout() -> Lockout:
    """The app's log-in guard: failure counts and hash slots."""
    return current_app.extensions["terrabank_lockout"]
