"""The Trias secrets this device holds: table secrets and seat links, in its session cookie.

Who may do what is bank/services/trias_authority.py; this is where a browser keeps its proof.
A table secret comes once in the URL (the board's link `/trias/g/<id>?t=<secret>`, printed by
`terrabank trias new` or shown on the lead's admin page; or the creating device's own reply) and
is kept here, then the page goes to the address without it, so a reload works and the secret does
not stay in the address bar. A seat's secret is its link itself (`/trias/s/<token>`, the QR code);
it is kept here too, so the start page can list this device's games.

Why the signed session cookie rather than localStorage: the server needs the table secret on every
table request (the page, the seats' QR codes, undo, rematch, a mirror tablet's moves) and for the
start page's list, and a cookie goes with each of them without the page's scripts ever reading the
secret. Flask signs the cookie, so it cannot be edited (it is not encrypted: these are this device's
own secrets). At most KEEP of each are kept, newest last, so the cookie stays small. Logging in as a
facilitator starts a new cookie (bank/web/field/api.py) and so forgets them: the lead's admin page
lists every game with its table link.

A script or another screen may send the table secret in the `X-Trias-Table` header instead.
"""

from __future__ import annotations

from flask import request, session

KEEP = 12
TABLES, SEATS = "trias_tables", "trias_seats"
HEADER = "X-Trias-Table"


def tables() -> dict:
    """{game id: table secret} this device holds."""
    held = session.get(TABLES)
    return dict(held) if isinstance(held, dict) else {}


def seats() -> list:
    """The seat links this device opened, newest last."""
    held = session.get(SEATS)
    return [t for t in held if isinstance(t, str)] if isinstance(held, list) else []


def remember_table(game_id: str, secret: str) -> None:
    held = tables()
    held.pop(game_id, None)
    held[game_id] = secret
    session[TABLES] = dict(list(held.items())[-KEEP:])


def forget_table(game_id: str) -> None:
    held = tables()
    if held.pop(game_id, None) is not None:
        session[TABLES] = held


def remember_seat(token: str) -> None:
    held = [t for t in seats() if t != token] + [token]
    session[SEATS] = held[-KEEP:]


def table_status(game) -> str | None:
    """"table" when this request holds `game`'s table secret, "wrong" when it shows one that is not
    (a stale or mistyped link), None when it shows none (the public view)."""
    sent = request.headers.get(HEADER)
    if sent:
        return "table" if game.is_table(sent[:100]) else "wrong"
    held = tables()
    if game.id in held:
        return "table" if game.is_table(held[game.id]) else "wrong"
    # A rematch keeps its game's table secret: the table's screen follows it to the new game.
    if game.rematch_of and game.rematch_of in held and game.is_table(held[game.rematch_of]):
        remember_table(game.id, held[game.rematch_of])
        return "table"
    return None
