"""What each screen of a Trias game receives: the board (anyone at the table) or one seat's phone.

Nothing here leaves a seat's hand card or the deck's order to anyone but that seat:
the picture is built from `trias.view(state, seat)` and rows from `public_rows`,
and the lists of legal moves for the shared screen never depend on a hidden card.
"""

from __future__ import annotations

import trias
from bank.services.trias_table import landscapes_before
from trias.legal import drift_pairs
from trias.scoring import presence
from trias.state import LANDSCAPES
from trias.view import action_of

MAX_ROWS = 500  # a page catching up gets at most this many rows at once; the picture itself is always whole


def seat_list(game) -> list:
    """Each seat's name, kind and level; never its secret link."""
    return [{"name": s.get("name") or f"#{i + 1}", "kind": s.get("kind", "human"), "level": s.get("level")}
            for i, s in enumerate(game.seats)]


def snapshot(game, seat: int | None, after: int | None = None) -> dict:
    """The picture for the shared screen (seat None) or for `seat`'s phone, with the rows after `after`.

    The state and its journal number match; a page keeps whichever picture has the highest number.
    """
    view = game.view(seat)  # the state and its number, read together under the game's lock
    state, table = game.state, game.table
    if game.last_seq != view["last_seq"]:  # a move landed in between: keep state and number matched
        return snapshot(game, seat, after)
    payload = {
        "game": game.id,
        "seq": view["last_seq"],
        "mode": game.mode,
        "seats": seat_list(game),
        "seat": seat,
        "view": view,
        "can_undo": view.get("can_undo", False),
        "undo_refused": _undo_refused(game.table, view),  # why not ({code, message}): the page may say it
        "next_game": view.get("next_game"),
        "legal": _legal(game, state, seat),
        "by_card": _by_card(state),
        "table_cards": _table_cards(state) if game.mode == "mirror" else None,
        "end": _end(state),
        "last": last_action(table, view),
        "rewritten": game.rewritten is not None,  # its store rewritten under the server: no move booked (banner)
    }
    if after is not None:
        payload["rows"] = rows_after(game, after, seat)
    return payload


def last_action(table, view: dict) -> dict | None:
    """The last move that changed the board, for every screen to mark and say as it happens (a
    computer seat's turn is watched move by move): the seat now playing's, or, until it changes the
    board, the previous seat's (the table sees what the seat before did). None before any, or when
    neither of the last two turns changed the board.

    {"seq", "seat", "actor", "command": trias.view.action_of's public command, "places": {"q,r":
    landscape or None for water}}: the landscape each named place had just before the move, as the
    last moves' rows have it (`rows_after`), so the words name the tile that drifted by its landscape.
    Nothing in it is secret (a card played is shown, T9): every seat gets the same.
    """
    ends = 0
    for seq, actor, seat, events in reversed(table.moves):
        command = action_of(events)
        if command is not None:
            return {"seq": seq, "seat": seat, "actor": actor, "command": command,
                    "places": _places_before(command, view["tiles"])}
        if any(e.get("type") == "turn_ended" for e in events):
            ends += 1
            if ends > 1:
                return None
    return None


def _places_before(command: dict, tiles: list) -> dict:
    """Each place `command` names with its landscape just before it. The move is the board's last
    change, so the board now tells every place but a drift's two: the tile had the landscape it carries
    now, and its new place was water."""
    now = {f"{q},{r}": kind for q, r, kind in tiles}
    named = [command.get(k) for k in ("at", "tile", "from", "to")]
    named += [place for pair in command.get("herds", []) for place in pair]
    places = {f"{p[0]},{p[1]}": now.get(f"{p[0]},{p[1]}") for p in named if p}
    if "tile" in command:
        tile, to = (f"{p[0]},{p[1]}" for p in (command["tile"], command["to"]))
        places[tile], places[to] = now.get(to), None
    return places


def _undo_refused(table, view: dict) -> dict | None:
    """Why the last move stands, once the seat to play has moved this turn; None before.

    At a turn's start the last move is the previous seat's end of turn (its new card drawn, T15):
    saying "a card was drawn since" then answers a question nobody asked.
    """
    if not table.moves or table.moves[-1][2] != view["current"]:
        return None
    return view.get("undo_refused")


def rows_after(game, after: int, seat: int | None) -> list:
    """Journal rows after `after` as `seat` may see them (events through trias.public_event)."""
    rows = []
    for row in game.public_rows(after, seat):
        rows.append({"seq": row["seq"], "type": row.get("type"), "actor": row.get("actor"),
                     "command": row.get("command"), "events": row.get("events", [])})
        if len(rows) >= MAX_ROWS:
            break
    # Each place a move names, with its landscape then: the board page says "the woods north of the pole".
    for row, kinds in zip(rows, landscapes_before(game.table, rows)):
        row["places"] = kinds
    return rows


def _legal(game, state, seat: int | None) -> list:
    """The moves this screen may offer or preview.

    A phone gets every legal move on its own turn (its hand card is its own). The shared
    screen never gets the seat's phase-1 moves, which would tell its hand card; in mirror
    mode it records the card shown at the table and uses `by_card` instead.
    """
    if state.phase in ("over", "setup"):
        return []
    if seat is not None:
        return trias.legal_actions(state) if seat == state.current else []
    if state.phase == "start":
        return []
    return trias.legal_actions(state)


def _by_card(state) -> dict:
    """Phase 1: where each landscape's card would let the seat to play drift (T10, T11).

    This depends on the board only, not on anyone's hand, so every screen may have it:
    the board shows it when a tile is tapped, the mirror tablet once the card is named.
    """
    if state.phase != "start":
        return {}
    return {kind: [{"tile": list(a), "to": list(b)} for a, b in drift_pairs(state, state.current, kind)]
            for kind in LANDSCAPES}


def _table_cards(state) -> dict | None:
    """Mirror, phase 1: the cards the table may name for a play or a draw (T6 counts minus those seen)."""
    if state.phase != "start":
        return None
    from trias.legal import possible_cards

    return {"play": possible_cards(state, "play"), "draw": possible_cards(state, "draw"),
            "meteorite_drawn": trias.is_legal(state, {"type": "meteorite_drawn"})}


def _end(state) -> dict | None:
    """The final scoring (T18 per land mass) and what decided the winners (T19)."""
    if not state.result:
        return None
    return {**state.result, "stock": list(state.stock), "presence": presence(state)}


def game_summary(entry: dict) -> dict:
    """A line of the resume list, without any secret."""
    keep = ("id", "created", "mode", "turn", "over", "winners")
    seats = [{k: s.get(k) for k in ("name", "kind", "level")} for s in entry.get("seats", [])]
    return {**{k: entry.get(k) for k in keep}, "seats": seats}
