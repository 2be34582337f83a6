"""Socket.IO for Trias games: namespace /trias on the app's Socket.IO server.

Rooms: "trias:<game>" (the shared screen: board, TV, mirror tablet) and
"trias:<game>:seat:<n>" (that seat's phone). The board room gets the public
picture; a seat's room gets that seat's picture, with its own hand card. A phone
never joins the board room, so no message meant for everyone carries a hand.

Who gets what (bank/services/trias_authority.py): a seat's room only with that
seat's secret ({"seat": token}); a game id ({"game": id}) gives the public picture, the one
anyone watching the table sees (no hand card, no deck order). No socket message ever carries
a link: the seats' links are drawn by the table's page, with the table secret (held.py).

Every message is a whole picture with its journal number (`seq`) and the rows
after the last one sent, so a page that missed some simply keeps the highest
number it has seen, and shows each row's announcement once.
"""

from __future__ import annotations

from flask import current_app, request
from flask_socketio import emit, join_room

from bank.web.push.auth_text import refuse_unreadable, unreadable_key
from bank.store.storage import StorageError
from bank.web.push.extensions import socketio_of
from bank.web.trias import unopened
from bank.web.trias.payloads import snapshot

NAMESPACE = "/trias"
RECENT_ROWS = 30  # rows a freshly opened page gets for its log and announcements


def register(server) -> None:
    """The handlers of Trias pages, on the app's Socket.IO server (extensions.make_socketio)."""
    server.on_event("connect", on_connect, namespace=NAMESPACE)
    server.on_event("sync", on_sync, namespace=NAMESPACE)


def board_room(game_id: str) -> str:
    return f"trias:{game_id}"


def seat_room(game_id: str, seat: int) -> str:
    return f"trias:{game_id}:seat:{seat}"


def games():
    """The app's Trias games (bank/services/trias_games.py), made in create_app."""
    return current_app.extensions["trias_games"]


def publish(app, game, after: int, tell_peers: bool = True) -> None:
    """After a commit: every screen of `game` gets its new picture and the rows after `after`.

    Called by the route or the computer thread that committed, in commit order per game
    (each game's commands hold its lock); a page ignores a picture older than one it has.
    With several server processes the others are told, and push it to theirs.
    """
    server = socketio_of(app)
    server.emit("state", snapshot(game, None, after), to=board_room(game.id), namespace=NAMESPACE)
    for seat, info in enumerate(game.seats):
        if info.get("kind") == "human":
            server.emit("state", snapshot(game, seat, after), to=seat_room(game.id, seat), namespace=NAMESPACE)
    peers = app.extensions.get("terrabank_peers")
    if tell_peers and peers is not None:
        peers.announce_trias(game.id, after)


def announce_rematch(game, new_id: str) -> None:
    """Every screen of the old game goes to the new one (the phones keep their links, T-core's chain)."""
    server = socketio_of(current_app)
    server.emit("rematch", {"game": new_id}, to=board_room(game.id), namespace=NAMESPACE)
    for seat in range(len(game.seats)):
        server.emit("rematch", {"game": new_id}, to=seat_room(game.id, seat), namespace=NAMESPACE)


def _after(value, last: int) -> int:
    """The last row a page saw; anything that is not a whole number means "only the recent ones"."""
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= last:
        return max(0, last - RECENT_ROWS)
    return value


def _whose(auth) -> tuple:
    """(game, seat) for a connection: {"seat": token} is a phone, {"game": id} the shared screen."""
    auth = auth if isinstance(auth, dict) else {}
    token = auth.get("seat")
    if isinstance(token, str) and token:
        found = games().seat_for(token[:100])
        return found if found else (None, None)
    game_id = auth.get("game")
    if isinstance(game_id, str) and game_id:
        try:
            return games().get(game_id[:100]), None
        except StorageError as exc:  # a game whose file cannot be trusted: refused, said once (before: a traceback
            if exc.code not in unopened.UNOPENED:  # each time an open page's socket tried again, every few s)
                raise
            unopened.say(exc)
    return None, None


def on_connect(auth=None):
    """A board or a phone opens its socket; a wrong link is refused so the page says so at once."""
    refuse_unreadable(auth)  # a lone surrogate in the seat or game: refused with its reason
    game, seat = _whose(auth)
    if game is None:
        return False
    join_room(board_room(game.id) if seat is None else seat_room(game.id, seat))
    after = _after((auth or {}).get("after"), game.last_seq)
    emit("state", snapshot(game, seat, after), to=request.sid)


def on_sync(data=None):
    """A page back on the network sends the last row it saw; it alone gets the picture and what it missed."""
    if unreadable_key(data):
        return  # text no link can match (a lone surrogate): nothing to send
    game, seat = _whose(data)
    if game is None:
        return
    emit("state", snapshot(game, seat, _after((data or {}).get("after"), game.last_seq)), to=request.sid)
