"""What a request to the bank is for admission, and who sent it: split from admission.py (its 400 lines).

`live_kind` says what a Socket.IO request does to the live pool, `new_page` whether it starts a page (a handshake,
or a WebSocket opened without one), `pool_of` which pool a secret's name draws on, `client_address` where the
request came from, `has_body` whether it holds a thread for a body. WHO is the environ key admission names the
sender in (bank/web/push/event_budget.py and message_bound.py read it).
"""

from __future__ import annotations

from urllib.parse import parse_qs


def live_kind(environ) -> str | None:
    """What a Socket.IO request does to the pool (any game's: /socket.io/ or /g/<name>/socket.io/).

    "open": a new page's Engine.IO handshake (a GET poll without sid): answered at once, but
    the start of a page that will hold a thread, so it is refused when the slots are full.
    "socket": a WebSocket (new, or an open page's upgrade): holds a thread for its life.
    "poll": an open page's long poll (GET with its sid): holds a thread until data or the ping;
    admitted at its page's first, then never refused, or a page on long polling would die (poll_sessions.py).
    None: anything else (a page, the API, a POST of a poll, which is answered at once).
    """
    if not environ.get("PATH_INFO", "").rstrip("/").endswith("/socket.io"):
        return None
    if environ.get("HTTP_UPGRADE", "").lower() == "websocket":
        return "socket"
    if environ.get("REQUEST_METHOD") != "GET":
        return None
    query = parse_qs(environ.get("QUERY_STRING", ""))
    if query.get("transport") == ["websocket"]:
        return "socket"  # without the Upgrade header Engine.IO answers at once, but do not count on it
    return "poll" if query.get("sid") else "open"


def new_page(environ, kind: str | None) -> bool:
    """Whether this live request starts a new page: a handshake ("open"), or a WebSocket opened without one (no
    `sid`: our pages' Socket.IO client never does, it upgrades a long poll; a client that does it opens a page per
    connection, 80 a second from 8 strangers' sockets that close and open again)."""
    return kind == "open" or (kind == "socket" and not parse_qs(environ.get("QUERY_STRING", "")).get("sid"))


WHO = "terrabank.who"  # the environ key naming who opened a request (no client sets a key without HTTP_)


def pool_of(who: str | None) -> str:
    """The pool a live page draws from: "anonymous" (no secret), "strangers" (a secret anyone can mint:
    an admission hook's, e.g. a Trias seat) or "lead" (a secret the lead issued: a team link, the
    big screen's key, a facilitator's session)."""
    if who is None:
        return "anonymous"
    return "strangers" if "/hook/" in who else "lead"


def client_address(environ, proxies: int = 0) -> str:
    """The client's address: REMOTE_ADDR, or with `proxies` trusted in front (TERRABANK_PROXIES) the
    entry of X-Forwarded-For they added, as the app's ProxyFix reads it (this runs outside it)."""
    if proxies:
        forwarded = [part.strip() for part in environ.get("HTTP_X_FORWARDED_FOR", "").split(",") if part.strip()]
        if len(forwarded) >= proxies:
            return forwarded[-proxies]
    return environ.get("REMOTE_ADDR", "?")


def has_body(environ) -> bool:
    return (environ.get("CONTENT_LENGTH") not in (None, "", "0")
            or "chunked" in environ.get("HTTP_TRANSFER_ENCODING", "").lower())
