"""Who a request is, from the secret it carries, read before the app runs.

admission.py counts live pages and bodies by secret; this names the secret: a team link
(in the path, /t/<token> or /api/team/<token>, or `team=` in a Socket.IO request's query,
which the pages' socket adds: static/js/live.js), the big screen's key (`key=`), a
facilitator's session (its cookie, checked against its row) or what a hook of the game
accepts (`app.extensions["terrabank_admission_hooks"]`: callables environ -> name or None,
for Trias seats and tables). Anything else is anonymous. Only runtime objects of the app are used,
so the server still imports no route.

The team links and the key are kept in memory and read again only when one was replaced, never on a
timer (reading them every second would add 2 statements to a facilitator's command). A replacement
is learnt at once: in this process the live layer calls `forget()` (bank/web/push/live.py
links_replaced); from another process of the game, by the store's `links_generation()` (the SQLite
game's generation file, one stat() a request) or by the notice on the game's queue (bank/web/push/peers.py), which calls `forget()` too.

A team link and the key are named with a fingerprint of the secret itself
("<game>/team/<team>#<fingerprint>"), so live slots are counted per link: a replaced link's
pages hold no share of the new one's, and admission.LiveSlots.revoke() finds them by it.
"""

from __future__ import annotations

import hashlib
import hmac
import re
import threading
from urllib.parse import parse_qs

from flask import session
from werkzeug.http import parse_cookie

TEAM_PATH = re.compile(r"^/(?:t|api/team)/([A-Za-z0-9_-]{1,100})(?:/|$)")
HOSTED = "/g/"  # hosting.py's PREFIX: a hosted game's paths
# What _who found, left in the request's environ for the app (no client can set an environ key without
# the HTTP_ prefix): (the session interface, the cookie's value, its data), and (the sessions, the id, the Login).
OPENED_COOKIE = "terrabank.opened_session_cookie"
CHECKED_LOGIN = "terrabank.checked_login"


def fingerprint(secret: str) -> str:
    """A short digest naming a link or key in counts and logs; the secret itself never appears there."""
    return hashlib.sha256(secret.encode("utf-8", "replace")).hexdigest()[:12]


def team_name(game: str, team: str, token: str) -> str:
    return f"{game}/team/{team}#{fingerprint(token)}"


def display_name(game: str, key: str) -> str:
    return f"{game}/display#{fingerprint(key)}"


def links_generation(access):
    """The store's stamp of its links (AccessRules.links_generation); None for a store that keeps none."""
    read = getattr(access, "links_generation", None)
    return read() if read is not None else None


class Identify:
    """identify(environ) -> "<game>/team/<team>#<fp>", "<game>/display#<fp>", "<game>/session/<key>",
    "<game>/hook/<name>", or None."""

    def __init__(self, app):
        self.app = app
        # id(game) -> (the generations read before its rows, token -> team, the key): one tuple, replaced whole.
        self._known: dict[int, tuple[tuple, dict, str | None]] = {}
        self._lock = threading.Lock()
        self._forgotten = 0  # counts forget(): a copy read before a forget() is never used after it

    def __call__(self, environ) -> str | None:
        try:
            return self._who(environ)
        except Exception:  # a game that cannot be read is no reason to refuse: anonymous
            self.app.logger.debug("admission: could not identify a request", exc_info=True)
            return None

    def _who(self, environ) -> str | None:
        game, name, path = self._game(environ)
        if game is None:
            return None
        query = parse_qs(environ.get("QUERY_STRING", ""))
        tokens, display = self._secrets(game)
        found = TEAM_PATH.match(path)
        token = (query.get("team") or [found.group(1) if found else ""])[0]
        if token and token in tokens:
            return team_name(name, tokens[token], token)
        key = (query.get("key") or [""])[0]
        if key and display and hmac.compare_digest(key.encode(), display.encode()):
            return display_name(name, display)
        for hook in game.extensions.get("terrabank_admission_hooks", ()):
            who = hook(environ)
            if who:
                return f"{name}/hook/{who}"
        cookie = game.config.get("SESSION_COOKIE_NAME") or "session"
        if f"{cookie}=" in environ.get("HTTP_COOKIE", "") and "terrabank_sessions" in game.extensions:
            sessions = game.extensions["terrabank_sessions"]
            sid = self._session_id(game, environ, cookie)
            login = sessions.check(sid) if sid else None
            # The app asks again for this request's login (access/auth.py current_login): it takes this answer
            # instead of a second look-up. Keyed by the sessions' object and the id: another game's
            # app, or a cookie that names another session, looks up its own.
            environ[CHECKED_LOGIN] = (sessions, sid, login)
            if login is not None:
                return f"{name}/session/{login.key}"
        return None

    def device(self, environ) -> str | None:
        """The account a trusted device's cookie names (the game registers the check: access/device_cookie.py),
        as "<game>/<account>", or None. The game's name too: every hosted game has its "lead", and a lane named by
        the account alone let another game's lead fill the host's lead's (admission.py's body pools)."""
        try:
            game, name, _ = self._game(environ)
            check = game.extensions.get("terrabank_device_account") if game is not None else None
            account = check(environ) if check is not None else None
            return f"{name}/{account}" if account else None
        except Exception:  # a game that cannot be read: no lane, the strangers' pool
            self.app.logger.debug("admission: could not read a device cookie", exc_info=True)
            return None

    def _session_id(self, game, environ, cookie: str):
        """The session id the request's signed cookie holds, or None. Opened by the app's own session interface
        (access/cookie_session.py open_cookie) without a request context, and left in the environ for Flask's
        open_session, which then does not check and decode the same cookie again."""
        interface = game.session_interface
        if not hasattr(interface, "open_cookie"):  # another interface (a test's): as Flask opens it
            with game.request_context(environ):
                return session.get("sid")
        value = parse_cookie(environ.get("HTTP_COOKIE", "")).get(cookie)
        data = interface.open_cookie(game, value)
        environ[OPENED_COOKIE] = (interface, value, data)
        return data.get("sid")

    def _game(self, environ):
        """The game's app this request goes to, its name, and the path inside it."""
        path = environ.get("PATH_INFO", "")
        hosted = self.app.extensions.get("terrabank_hosted")
        if hosted is None or not path.startswith(HOSTED):
            return self.app, "", path
        name, _, rest = path[len(HOSTED):].partition("/")
        return hosted.app(name), name, "/" + rest

    def forget(self) -> None:
        """Read every game's links and key again at the next request (one was just replaced)."""
        with self._lock:
            self._forgotten += 1
            self._known.clear()

    def _secrets(self, game) -> tuple[dict, str | None]:
        """token -> team, and the big screen's key, of this game: from memory until one is replaced."""
        services = game.extensions.get("terrabank")
        if services is None:
            return {}, None
        # Read BEFORE the rows: a replacement after this changes one of them, so the copy read now is not
        # kept past it even if its rows were read before the replacement committed.
        stamp = (self._forgotten, links_generation(services.access))
        known = self._known.get(id(game))
        if known is not None and known[0] == stamp:
            return known[1], known[2]
        tokens = {token: team for team, token in services.access.team_tokens().items()}
        display_key = getattr(services.access, "display_key", None)
        display = display_key() if display_key else None
        with self._lock:
            self._known[id(game)] = (stamp, tokens, display)
        return tokens, display
