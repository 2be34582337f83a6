"""Admission of Trias phones by their seat's secret: a seat's page holds live slots of its own.

The server names each request by the secret it carries (bank/web/serving/identity.py) and keeps
the anonymous share small. A Trias seat's phone carries its seat link: in the path
(/trias/s/<token>, /trias/api/s/<token>/...) or, for its socket, in the query (`seat=`, added by
static/js/trias/common.js). It is named by that link only when the games' index already knows it
(the page's first load opened its game): a made-up token costs one dictionary look-up, never a
read of the games' store, so guessing cannot make the server work. The table's screen carries its
secret in the device's session, not in a request the server can read before the app: it stays in
the shared pool (one screen per table).
"""

from __future__ import annotations

import re
from urllib.parse import parse_qs

SEAT_PATH = re.compile(r"^/trias/(?:api/)?s/([A-Za-z0-9_-]{16,100})(?:/|$)")


def seat_hook(games):
    """identify(environ) -> "trias-seat/<token prefix>" for a seat link the index knows, else None."""
    def identify(environ) -> str | None:
        found = SEAT_PATH.match(environ.get("PATH_INFO", ""))
        token = found.group(1) if found else (parse_qs(environ.get("QUERY_STRING", "")).get("seat") or [""])[0]
        if not token or len(token) > 100 or games.seat_index.games_of(token) is None:
            return None
        return f"trias-seat/{token[:12]}"  # a prefix names the slot; the full secret never goes to logs
    return identify


def register(app) -> None:
    """Offer the hook to the server's admission (several hooks may be listed)."""
    app.extensions.setdefault("terrabank_admission_hooks", []).append(seat_hook(app.extensions["trias_games"]))
