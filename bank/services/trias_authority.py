"""Who may do what in a Trias game: the table's secret, the seats' secrets and their checks.

Kept apart from trias_games.py (which stores and runs the games) because it is its own
concern and its own attack surface: a game id is no secret (it is read aloud, typed, and
shown on the public board), so it gives at most the public read-only view. Two kinds of
secret give more:

- the table secret: the board's link, held by the device that made the game (or printed by
  `terrabank trias new`, or shown to the lead on the admin page). Only the table shows the
  seats' links, records a mirror game's moves, undoes any move and makes the rematch;
- one secret per human seat (its phone link, /trias/s/<token>): only it plays that seat's
  moves, sees its hand card, and undoes its own last move. Computer seats have none: the
  server plays them.

A new game keeps its table secret in its identity, like the seats' tokens; a rematch keeps
both (the same table and phones go on). A game stored before table secrets has none: it
opens read-only (the public view) until the lead (admin page) or the terminal
(`terrabank trias table ID`) makes one, written as a journal row of type "table" that is
never undone and never shown in public rows. Secrets are compared in constant time.
Pure: no Flask, no SQLite.
"""

from __future__ import annotations

import secrets
import threading

from bank.services.trias_table import undo_seqs
from trias.errors import BadCommand, IllegalMove, TriasError

TABLE_ROW = "table"  # the row that gives an old game its table secret
# The computer's command ids name the position they answer (TriasGame.play_computer): a page sending
# one of them for its own move would turn the computer's later move into a "retry" of it.
COMPUTER_ID_PREFIX = "computer:"
MIN_SECRET = 16


def new_secret() -> str:
    """A table or seat secret: 128 random bits, URL-safe."""
    return secrets.token_urlsafe(16)


def same_secret(known, sent) -> bool:
    """True when `sent` is the secret `known`, compared in constant time; never for an empty or missing one."""
    if not isinstance(known, str) or not known or not isinstance(sent, str) or not sent:
        return False
    return secrets.compare_digest(known.encode(), sent.encode())


def seat_of_token(seats: list, token) -> int | None:
    """The seat whose secret is `token`; every seat is compared, so the time says nothing of which one."""
    found = None
    for number, seat in enumerate(seats):
        if same_secret(seat.get("token"), token):
            found = number
    return found


def decide_table(has_secret: bool, command: dict) -> list:
    """The events of a "table" row: refused when the game already has a table secret."""
    if has_secret:
        raise IllegalMove("table_link_exists", "this game already has its table link; the lead's admin page shows it")
    secret = command.get("secret")
    if not isinstance(secret, str) or len(secret) < MIN_SECRET:
        raise BadCommand("bad_table_secret", f"a table secret is at least {MIN_SECRET} characters")
    return [{"type": TABLE_ROW, "secret": secret}]


def check_own_id(command_id, actor) -> None:
    """Refuse a page's command id from the computer's namespace (see COMPUTER_ID_PREFIX)."""
    if str(command_id).startswith(COMPUTER_ID_PREFIX) and not str(actor).startswith(COMPUTER_ID_PREFIX):
        raise BadCommand("reserved_id", f"command ids starting with {COMPUTER_ID_PREFIX!r} are reserved for the "
                         "computer opponents' moves: send your command with another id")


class TableAuthority:
    """TriasGame's table secret and who may undo (a mixin: needs `_table_secret`, `_service`, `seats`, `_run`)."""

    @property
    def table_secret(self) -> str | None:
        """The board's secret; None for an old game until the lead or the CLI makes one."""
        return self._table_secret or self._service.state.secret

    def is_table(self, secret) -> bool:
        return same_secret(self.table_secret, secret)

    def make_table_secret(self, actor: str = "cli") -> str:
        """The table secret, made now (a "table" row) for a game stored before there were any."""
        with self._service.lock:
            self._service.refresh()
            if not self.table_secret:
                secret = new_secret()
                self._run({"type": TABLE_ROW, "secret": secret}, f"table:{secret[:8]}", actor)
            return self.table_secret

    def may_undo(self, table, actor: str) -> bool:
        """Whether `actor` ("table", "seat:N") may take back the last move now (trias_table.undo_seqs)."""
        return self.undo_refusal(table, actor) is None

    def undo_refusal(self, table, actor: str) -> dict | None:
        """Why `actor` may not take back the last move now ({code, message, params}), or None if it may."""
        try:
            undo_seqs(self.seats, table, actor)
        except TriasError as exc:
            return exc.to_dict()
        return None


class SeatIndex:
    """Seat secret -> ids of the games holding it (a rematch chain keeps the seats' links)."""

    def __init__(self):
        self._lock = threading.Lock()
        self._tokens: dict = {}

    def add(self, game) -> None:
        with self._lock:
            for seat in game.seats:
                if seat.get("token"):
                    self._tokens.setdefault(seat["token"], set()).add(game.id)

    def games_of(self, token) -> set | None:
        """The ids of the games holding this seat secret; None if the index has never seen it."""
        with self._lock:
            ids = self._tokens.get(token)
            return set(ids) if ids else None


def newest_seat(holding: list, token, get) -> tuple | None:
    """(game, seat) for a seat secret among the games `holding` it: the newest of its rematch chain.

    `get(game_id)` opens a game (TriasGames.get)."""
    found = [(g, seat) for g in holding if (seat := g.seat_of_token(token)) is not None]
    if not found:
        return None
    game, seat = max(found, key=lambda gs: gs[0].created)
    while game.next_game and (nxt := get(game.next_game)) is not None \
            and (again := nxt.seat_of_token(token)) is not None:
        game, seat = nxt, again
    return game, seat
