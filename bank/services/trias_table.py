"""The service state of one Trias game and the decisions that are not the engine's.

A `Table` is the engine state plus what undo and rematch need: the set-up
events and the stack of moves not undone. `rebuild(rows)` folds a journal into
one; `check_actor` and `undo_seqs` say who may move and what an undo takes
back. Pure: no SQLite, no Flask (bank/services/trias_games.py stores and locks).
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass, replace

import trias
from trias.errors import BadCommand, IllegalMove
from trias.view import reveals

MODES = ("play", "mirror")
LANGS = ("fr", "en", "it")  # Italian: Trias only
SEAT_KINDS = ("human", "computer")
MAX_NAME = 40
# Board Game Arena's rule: no undo past information that was hidden. The pages and the terminal
# show this sentence in the game's language (translations/*/messages.po: the same English id).
UNDO_PAST_DRAW = "A card was drawn since: undoing would show what comes next, so this move stands."


@dataclass(frozen=True)
class Table:
    """The service's state of one game: the engine state plus what undo and rematch need."""

    state: trias.State
    base: tuple = ()        # the set-up events, never undone
    moves: tuple = ()       # (seq, actor, seat, events) of each move not undone, oldest first
    next_game: str | None = None  # the rematch, once made
    undone: tuple = ()      # seqs taken back so far
    secret: str | None = None  # the table secret of a game made before it had one (a "table" row)


def rebuild(rows) -> Table:
    """The table a journal's rows give: set-up, then each move, minus the moves undone."""
    table = Table(trias.State())
    for row in rows:
        table = fold_row(table, row["type"], row["actor"], row["seq"], row["events"])
    return table


def fold_row(table: Table, kind: str, actor, seq: int, events: list) -> Table:
    """One journal row folded in: an undo replays the set-up and the moves left."""
    if kind == "setup":
        return Table(trias.replay(events), base=tuple(events))
    if kind == "undo":
        gone = set(events[0]["seqs"])
        moves = tuple(m for m in table.moves if m[0] not in gone)
        state = trias.replay(list(table.base) + [e for m in moves for e in m[3]])
        return replace(table, state=state, moves=moves, undone=table.undone + tuple(sorted(gone)))
    if kind == "rematch":
        return replace(table, next_game=events[0]["game"])
    if kind == "table":  # bank/services/trias_authority.py: never undone, not a move
        return replace(table, secret=events[0]["secret"])
    state = table.state
    seat = state.current
    for event in events:
        state = trias.apply(state, event)
    return replace(table, state=state, moves=table.moves + ((seq, actor, seat, tuple(events)),))


def decide_setup(table: Table, command: dict, seq: int) -> tuple:
    """The first row: the engine's set-up events for the seats, seed and mode (T3, T6, T7)."""
    # A game stored before listing 2 has no "listing" in its command: its bots list and draw as then.
    events = trias.setup.setup_events(command["players"], command["seed"], mirror=command["mode"] == "mirror",
                                      listing=command.get("listing", 1))
    return events, fold_row(table, "setup", None, seq, events)


def check_seats(seats, mode: str, keep_tokens: bool = False) -> list:
    """The seats as stored (tokens for humans), or a BadCommand naming the first problem."""
    if not isinstance(seats, list) or not 2 <= len(seats) <= 5:
        raise BadCommand("bad_seats", "a Trias game needs a list of 2 to 5 seats (T2, T21)")
    clean = []
    for i, seat in enumerate(seats):
        if not isinstance(seat, dict):
            raise BadCommand("bad_seat", f"seats[{i}] must be an object with a name and a kind")
        name = seat.get("name")
        if not isinstance(name, str) or not name.strip() or len(name.strip()) > MAX_NAME or not name.isprintable():
            raise BadCommand("bad_seat_name", f"seats[{i}].name must be a name of 1 to {MAX_NAME} printable characters")
        kind = seat.get("kind", "human")
        if kind not in SEAT_KINDS:
            raise BadCommand("bad_seat_kind", f"seats[{i}].kind must be human or computer, not {str(kind)[:20]!r}")
        entry = {"name": name.strip(), "kind": kind}
        if kind == "computer":
            if mode == "mirror":
                raise BadCommand("computer_in_mirror", f"seats[{i}] is a computer, but a mirror game records a "
                                 "physical table where every seat is a person: make it human or choose play mode")
            level = seat.get("level", "easy")
            if level not in trias.bots.LEVELS:
                raise BadCommand("bad_level", f"seats[{i}].level must be one of {', '.join(trias.bots.LEVELS)}, "
                                 f"not {str(level)[:20]!r}")
            entry["level"] = level
        else:
            # A rematch keeps the seats' links; a new game always gets fresh secrets.
            entry["token"] = (keep_tokens and seat.get("token")) or secrets.token_urlsafe(16)
        clean.append(entry)
    return clean


def public_seat(seat: dict) -> dict:
    return {k: v for k, v in seat.items() if k != "token"}


# The keys a command of each type carries (what trias.legal's checks read; a mirror game's play and draw also name
# the card the table shows), besides its type and the "player" checked against the seat to play. Anything else was
# journalled as sent and went to every screen of the game with each row: 8 KB of a page's own words a move.
COMMAND_KEYS = {"place": ("at",), "play": ("tile", "to"), "draw": (), "meteorite_drawn": (), "drift": ("tile", "to"),
                "move": ("from", "to", "fresh"), "rescue": ("herds",), "reproduce": ("at",), "end_turn": ()}
MIRROR_KEYS = ("card",)  # play and draw, in a mirror game


def check_command(command, mirror: bool) -> None:
    """A command from a page or the terminal: an object of a known type carrying only the keys its type reads
    (BadCommand naming the others), `fresh` a true or false; what it asks is then the rules' to decide."""
    kind = command.get("type") if isinstance(command, dict) else None
    if kind not in COMMAND_KEYS:
        raise BadCommand("unknown_command", f"unknown command type {str(kind)[:40]!r}; known: "
                         f"{', '.join(sorted(COMMAND_KEYS))}, undo")
    takes = {"type", "player", *COMMAND_KEYS[kind], *(MIRROR_KEYS if mirror and kind in ("play", "draw") else ())}
    extra = sorted(str(key)[:20] for key in command if key not in takes)
    if extra:
        raise BadCommand("unknown_keys", f"a {kind!r} command takes {', '.join(sorted(takes - {'player'}))}, not "
                         f"{', '.join(extra[:5])}: send it without them", keys=extra[:5])
    if not isinstance(command.get("fresh", False), bool):
        raise BadCommand("bad_fresh", "'fresh' must be true or false: whether the herd that moves is one that has "
                         "not reproduced or been born this turn (T12)")


def check_actor(seats: list, state: trias.State, actor) -> None:
    """T8/T9: only the seat to play moves; who may speak for it depends on the screen."""
    if state.phase == "over":
        raise IllegalMove("game_over", "the game is over; final scoring has been done (T18)")
    current = state.current
    seat = seats[current]
    name = seat["name"]
    if actor == "cli":
        return
    if actor == "table":
        if seat["kind"] != "human":
            raise IllegalMove("computer_to_play", f"it is {name}'s turn, a computer opponent: it plays by itself")
        return
    kind, _, number = str(actor).partition(":")
    # ASCII digits only: int() refuses "²", which str.isdigit() accepts.
    if kind not in ("seat", "computer") or not (number.isascii() and number.isdigit()):
        raise BadCommand("bad_actor", f"unknown actor {str(actor)[:40]!r}: use seat:N, computer:N, table or cli")
    if int(number) != current:
        raise IllegalMove("not_your_turn", f"it is {name}'s turn (seat {current}), not seat {number}'s (T8, T9)")
    if (kind == "computer") != (seat["kind"] == "computer"):
        raise IllegalMove("wrong_seat_kind", f"seat {current} ({name}) is a {seat['kind']} seat")

def undo_seqs(seats: list, table: Table, actor) -> list:
    """The rows an undo takes back: the computer's moves at the end and the last human move before them."""
    if str(actor).startswith("computer:"):
        raise IllegalMove("computer_cannot_undo", "a computer opponent never takes a move back")
    if actor not in ("table", "cli") and not str(actor).startswith("seat:"):
        raise BadCommand("bad_actor", f"unknown actor {str(actor)[:40]!r}: use seat:N, table or cli")
    moves = list(table.moves)
    gone = []
    while moves and str(moves[-1][1]).startswith("computer:"):
        gone.append(moves.pop()[0])
    if not moves:
        raise IllegalMove("nothing_to_undo", "there is no move of a person to take back: the set-up is never "
                          "undone and computer moves only go with the move before them")
    seq, _, seat, _ = moves.pop()
    if str(actor).startswith("seat:") and actor != f"seat:{seat}":
        raise IllegalMove("not_your_move", f"the last move was {seats[seat]['name']}'s; only they, "
                          "or the shared screen, may take it back")
    gone.append(seq)
    # A mirror game follows a physical table, whose players decide; elsewhere a card once turned over
    # stays turned over: taking it back and playing again would let the seat choose knowing the deck.
    if not table.state.mirror and any(reveals(e) for m in table.moves if m[0] in gone for e in m[3]):
        raise IllegalMove("undo_past_draw", UNDO_PAST_DRAW)
    return sorted(gone)


def _places_named(command) -> list:
    """The places a move's command names ("at", "tile", "from", "to", each rescue's pair), as (q, r)."""
    if not isinstance(command, dict):
        return []
    named = [command.get(k) for k in ("at", "tile", "from", "to")]
    for pair in command.get("herds") or []:
        named.extend(pair if isinstance(pair, (list, tuple)) else [])
    return [tuple(p) for p in named if isinstance(p, (list, tuple)) and len(p) == 2]


def landscapes_before(table: Table, rows: list) -> list:
    """For each row, the landscape of each place its command names as the board was just before it:
    {"q,r": "woods" | ... | None for water}. The screens name places in words, not coordinates,
    and a tile named in an old row may have drifted since.

    Only drifts change the board; a row no longer among the moves (taken back) is read on the board
    the moves kept before it had made.
    """
    tiles = dict(((q, r), kind) for q, r, kind in next((e["tiles"] for e in table.base if e["type"] == "setup"), []))
    moves = iter(table.moves)
    move = next(moves, None)
    out = []
    for row in sorted(rows, key=lambda r: r["seq"]):
        while move is not None and move[0] < row["seq"]:
            for event in move[3]:
                if event.get("type") == "drifted":
                    tiles[tuple(event["to"])] = tiles.pop(tuple(event["tile"]), event.get("kind"))
            move = next(moves, None)
        out.append((row["seq"], {f"{q},{r}": tiles.get((q, r)) for q, r in _places_named(row.get("command"))}))
    found = dict(out)
    return [found[row["seq"]] for row in rows]
