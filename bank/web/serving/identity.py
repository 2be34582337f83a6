"""Who a request is, from the secret it carries (issue 23), read before the app runs.

admission.py counts live pages and bodies by secret; this names the secret: a team link
(in the path, /t/<token> or /api/team/<token>, or `team=` in a Socket.IO request's query,
which the pages' socket adds: static/js/live.js), the big screen's key (`key=`), a
facilitator's session (its cookie, checked against its row) or what a hook of the game
accepts (`app.extensions["terrabank_admission_hooks"]`: callables environ -> name or None,
for Trias seats and tables). Anything else is anonymous. The team links and the key are read
at most once a second per game (a replaced one is refused within a second); only runtime
objects of the app are used, so the server still imports no route.
"""

from __future__ import annotations

import hmac
import re
import threading
import time
from urllib.parse import parse_qs

from flask import session

TEAM_PATH = re.compile(r"^/(?:t|api/team)/([A-Za-z0-9_-]{1,100})(?:/|$)")
HOSTED = "/g/"  # hosting.py's PREFIX: a hosted game's paths
FRESH = 1.0     # seconds a game's links and key are trusted from memory


class Identify:
    """identify(environ) -> "<game>/team/<team>", "<game>/display", "<game>/session/<key>", or None."""

    def __init__(self, app):
        self.app = app
        self._known: dict[int, tuple[float, dict, str | None]] = {}
        self._lock = threading.Lock()

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
            return f"{name}/team/{tokens[token]}"
        key = (query.get("key") or [""])[0]
        if key and display and hmac.compare_digest(key.encode(), display.encode()):
            return f"{name}/display"
        for hook in game.extensions.get("terrabank_admission_hooks", ()):
            who = hook(environ)
            if who:
                return f"{name}/hook/{who}"
        cookie = game.config.get("SESSION_COOKIE_NAME") or "session"
        if f"{cookie}=" in environ.get("HTTP_COOKIE", "") and "terrabank_sessions" in game.extensions:
            with game.request_context(environ):
                sid = session.get("sid")
                login = game.extensions["terrabank_sessions"].check(sid) if sid else None
            if login is not None:
                return f"{name}/session/{login.key}"
        return None

    def _game(self, environ):
        """The game's app this request goes to, its name, and the path inside it."""
        path = environ.get("PATH_INFO", "")
        hosted = self.app.extensions.get("terrabank_hosted")
        if hosted is None or not path.startswith(HOSTED):
            return self.app, "", path
        name, _, rest = path[len(HOSTED):].partition("/")
        return hosted.app(name), name, "/" + rest

    def _secrets(self, game) -> tuple[dict, str | None]:
        """token -> team, and the big screen's key, of this game: read again after FRESH seconds."""
        now = time.monotonic()
        known = self._known.get(id(game))
        if known is not None and now - known[0] < FRESH:
            return known[1], known[2]
        services = game.extensions.get("terrabank")
        if services is None:
            return {}, None
        tokens = {token: team for team, token in services.access.team_tokens().items()}
        display_key = getattr(services.access, "display_key", None)
        display = display_key() if display_key else None
        with self._lock:
            self._known[id(game)] = (now, tokens, display)
        return tokens, display
