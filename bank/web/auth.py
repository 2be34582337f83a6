"""Facilitator login with lockout, CSRF tokens, and the checks routes use."""

from __future__ import annotations

import hmac
import secrets
import threading
import time
from functools import wraps

from flask import current_app, g, jsonify, request, session

MAX_FAILURES = 5
LOCK_SECONDS = 300
# Failures are also counted per client address under this prefix, so rotating
# usernames or spraying one password over every account from one machine is
# stopped too. Generous: a Raspberry Pi access point gives each device its own
# address, so only the attacker's device is locked.
# Usernames are counted under their own prefix, so a username typed as
# "client:<address>" cannot lock out somebody else's device.
CLIENT, USER = "client:", "user:"
CLIENT_MAX_FAILURES = 20


class Lockout:
    """Counts failed logins per key (USER + name, CLIENT + address); too many in a row lock it for a while."""

    def __init__(self, max_failures: int = MAX_FAILURES, lock_seconds: int = LOCK_SECONDS):
        self.max_failures, self.lock_seconds = max_failures, lock_seconds
        self._failures: dict = {}
        self._lock = threading.Lock()

    def seconds_left(self, key: str, now: float | None = None) -> int:
        now = time.time() if now is None else now
        with self._lock:
            count, since = self._failures.get(key.lower(), (0, 0.0))
            if count >= self._limit(key) and now - since < self.lock_seconds:
                return int(self.lock_seconds - (now - since)) + 1
            return 0

    def failed(self, key: str, now: float | None = None) -> None:
        now = time.time() if now is None else now
        with self._lock:
            count, _ = self._failures.get(key.lower(), (0, 0.0))
            if count >= self._limit(key):
                count = 0  # the lock expired: a new series starts
            self._failures[key.lower()] = (count + 1, now)

    def _limit(self, key: str) -> int:
        return CLIENT_MAX_FAILURES if key.startswith(CLIENT) else self.max_failures

    def succeeded(self, key: str) -> None:
        with self._lock:
            self._failures.pop(key.lower(), None)


def csrf_token() -> str:
    """The session's CSRF token, created on first use."""
    if "csrf" not in session:
        session["csrf"] = secrets.token_urlsafe(24)
    return session["csrf"]


def csrf_ok() -> bool:
    sent = request.headers.get("X-CSRF-Token") or request.form.get("csrf_token") or ""
    return bool(session.get("csrf")) and hmac.compare_digest(sent, session["csrf"])


def current_role() -> str | None:
    """The logged-in facilitator's role, or None."""
    return session.get("role") if session.get("user") else None


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
    return current_app.extensions["terrabank_lockout"]
