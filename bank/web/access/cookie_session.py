"""The signed session cookie, checked with keys derived once instead of on every request.

Flask's SecureCookieSessionInterface builds a new itsdangerous serializer for every
request and derives its HMAC key again for every signature it checks or makes: about a
quarter of a facilitator's command's cost over the latency floor (docs/PERFORMANCE.md,
"The fixed cost over the floor"). This interface keeps everything else of Flask's (the
cookie's name, path, domain, secure, samesite, httponly and partitioned settings of
app.config, "Vary: Cookie", when a cookie is set or deleted, the session's lifetime) and
swaps only the serializer for one that derives its keys once per secret key.

The cookie still holds the same small signed JSON (the server-side session id, the CSRF
token, the language): who is logged in is decided by the session's row (sessions.py), so
ending a session on the server ends it whatever cookie a device keeps. A cookie in the
old format, signed by another key or altered fails the check and opens an empty session:
that device is logged out and asked to log in again, nothing else happens.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import time

from flask import g
from flask.sessions import SecureCookieSessionInterface
from itsdangerous import BadSignature

from bank.web.serving.identity import OPENED_COOKIE

# Tells these signatures apart from any other use of the app's secret key (and from Flask's own cookies).
PURPOSE = b"terrabank session cookie v1"
# Cookies a view asks for (name, value, set_cookie options), written after the session's (device_cookie.py):
# a client that reads a reply's first Set-Cookie (a script, a proxy's check) still reads the session's.
AFTER_SESSION = "terrabank_cookies_after_session"


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


def _unb64(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


class CookieSigner:
    """Signs and checks `<json>.<time>.<signature>` (base64url, HMAC-SHA256) with keys derived once.

    Has the two methods Flask's interface calls on its serializer: dumps(dict) and loads(text, max_age).
    Each key's HMAC state is made once and copied per signature, and the JSON is plain: this runs on
    every request after other processes have had the CPU, where a by-name HMAC (a digest looked up
    in OpenSSL each time) and Flask's tagged JSON cost 42 us of a facilitator's command, against
    2-5 us in a warm loop (docs/PERFORMANCE.md, "Command latency").
    """

    def __init__(self, secret_keys: list, clock=time.time, *, purpose: bytes = PURPOSE):
        # The current key signs; the fallbacks (SECRET_KEY_FALLBACKS) are still accepted while keys rotate.
        # `purpose`: another use (device_cookie.py) derives other keys, so no cookie passes for the other.
        # Keyword-only, so `clock` stays the one positional default (tests/web/access/test_attacks_review.py sets it).
        self.keys = [hmac.digest(k.encode() if isinstance(k, str) else k, purpose, "sha256") for k in secret_keys]
        self._macs = [hmac.new(key, digestmod=hashlib.sha256) for key in self.keys]
        self.clock = clock

    def _signature(self, mac, payload: str) -> bytes:
        mac = mac.copy()
        mac.update(payload.encode("ascii"))
        return mac.digest()

    def dumps(self, data: dict) -> str:
        # Plain JSON: the session holds only texts (its id, the CSRF token, the user, the language),
        # for which Flask's tagged JSON wrote the same text: cookies signed before still open.
        payload = f"{_b64(json.dumps(data, separators=(',', ':'), sort_keys=True).encode())}.{int(self.clock())}"
        return f"{payload}.{_b64(self._signature(self._macs[0], payload))}"

    def loads(self, value: str, max_age: int | None = None) -> dict:
        """The session's data; BadSignature (Flask then opens an empty session) for anything not signed here."""
        try:
            payload, _, signature = value.rpartition(".")
            body, _, signed_at = payload.partition(".")
            sent = _unb64(signature)
            if not any(hmac.compare_digest(sent, self._signature(mac, payload)) for mac in self._macs):
                raise BadSignature("the session cookie's signature does not match")
            # Only too old is refused: a system clock set back (R34) must not log every device out.
            if max_age is not None and self.clock() - int(signed_at) > max_age:
                raise BadSignature("the session cookie is too old")
            data = json.loads(_unb64(body))
        except BadSignature:
            raise
        except (ValueError, UnicodeError, TypeError) as exc:  # not base64, not a number, not JSON
            raise BadSignature(f"the session cookie cannot be read: {exc}") from None
        if not isinstance(data, dict):
            raise BadSignature("the session cookie does not hold an object")
        return data


class CookieSessions(SecureCookieSessionInterface):
    """Flask's cookie session with a CookieSigner made once per set of secret keys, not per request.

    `clock` dates the cookies and measures their age: the app gives it the bank's time line
    (bank/services/timeline.py), so setting the machine's date right (+40 days on a Pi that booted with
    the date it was put away with) does not age every facilitator's cookie past the session
    lifetime and log them out in the middle of a game (R34).
    """

    def __init__(self, clock=time.time):
        self.clock = clock
        self._cached = ((), None)  # (the keys, their signer): one attribute, so threads never see a mixed pair

    def get_signing_serializer(self, app):
        if not app.secret_key:
            return None
        keys = (app.secret_key, *(app.config.get("SECRET_KEY_FALLBACKS") or ()))
        made_for, signer = self._cached
        if keys != made_for:  # the first request, or a key set (or rotated) after the app was made
            signer = CookieSigner(list(keys), self.clock)
            self._cached = (keys, signer)
        return signer

    def open_cookie(self, app, value: str) -> dict:
        """The data of a session cookie's value as open_session reads it: {} when it is not signed here,
        is too old, or cannot be read. For serving/identity.py, which names a request before Flask runs."""
        signer = self.get_signing_serializer(app)
        if signer is None or not value:
            return {}
        try:
            return signer.loads(value, max_age=int(app.permanent_session_lifetime.total_seconds()))
        except BadSignature:
            return {}

    def save_session(self, app, session, response):
        super().save_session(app, session, response)
        for name, value, options in g.pop(AFTER_SESSION, ()):
            response.set_cookie(name, value, **options)

    def open_session(self, app, request):
        """Flask's open_session, but a cookie that admission already opened in this request
        (identity.py, before the app ran: `OPENED_COOKIE` in the environ, set by this interface's
        open_cookie on the very same value) is not checked and decoded a second time. Taken out
        of the environ, so only once: a socket's later events run on its connecting request's environ."""
        opened = request.environ.pop(OPENED_COOKIE, None)
        if (opened is not None and opened[0] is self and app.secret_key
                and opened[1] == request.cookies.get(self.get_cookie_name(app))):
            return self.session_class(opened[2])  # a session of its own: the opened data is never changed
        return super().open_session(app, request)
