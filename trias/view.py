"""What one seat may see (boardgame.io's playerView): its own hand card, never the deck's order."""

from __future__ import annotations

from .state import METEORITE, State

HIDDEN = "hidden"
# Events that turn over a card nobody could see before: the deck's top drawn in phase 1 or as the
# new hand card in phase 4 (the Meteorite Impact among them, T9, T15), a mirror table's shown card,
# and the set-up's deal and shuffles (T6). Taking one back and playing again would show what comes next.
REVEALING = frozenset({"setup", "card_dealt", "card_drawn", "hand_drawn", "hand_shown"})


def _hand_seen(card, mine: bool):
    if card is None or mine or card == METEORITE:  # T15: the Meteorite Impact is shown at once
        return card
    return HIDDEN


def view(state: State, seat: int | None) -> dict:
    """The state as JSON for `seat` (None: a spectator): other hands hidden, the deck as a count."""
    n = state.players
    deck2 = min(len(state.deck), state.rules.deck2_size) if n else 0
    return {
        "players": n,
        "seat": seat,
        "phase": state.phase,
        "current": state.current,
        "turn": state.turn,
        "ap": state.ap,
        "card": state.card,
        "played_hand": state.played_hand,
        "placements": state.placements,
        "last_round": state.last_round,
        "tiles": sorted([q, r, kind] for (q, r), kind in state.tiles.items()),
        "herds": sorted([q, r, list(counts)] for (q, r), counts in state.herds.items()),
        "spent": sorted([q, r, k] for (q, r), k in state.spent.items()),
        "stock": list(state.stock),
        "score": list(state.score),
        "hands": [_hand_seen(card, i == seat) for i, card in enumerate(state.hands)],
        "deck_size": len(state.deck),
        "deck2_left": deck2,  # deck 2 lies under deck 1 (T6), so this count is public
        "seen": list(state.seen),
        "result": state.result,
        "mirror": state.mirror,  # the table's own cards: play and draw name the card shown
        "listing": state.listing,  # how the bots list and draw drift tiles (state.LISTING)
    }


def public_event(event: dict, seat: int | None) -> dict:
    """`event` as `seat` may see it: the deck's order and other seats' cards removed."""
    kind = event["type"]
    if kind == "setup":
        shown = {k: v for k, v in event.items() if k not in ("deck", "unused")}
        shown["deck_size"] = len(event["deck"])
        return shown
    if kind in ("card_dealt", "hand_drawn") and event["player"] != seat:
        return dict(event, card=_hand_seen(event["card"], False))
    return event


def reveals(event: dict) -> bool:
    """Whether `event` showed a card (or a shuffle's result) that was hidden until then: see REVEALING."""
    return event.get("type") in REVEALING


def action_of(events) -> dict | None:
    """The move that made `events`, as a public command a screen can mark and say, or None when the
    move left the board as it was: a card drawn, a turn's end and what phases 3 and 4 return to the
    stock (T14) are told by the turn line and the scores instead.

    Read from the events alone (no journal, no hidden card: a card played is shown, T9):
    {"type": "place", "at"}, {"type": "play", "card", "tile", "to"}, {"type": "drift", "tile", "to",
    "cost"} (cost 3: bought with action points, T12), {"type": "move", "from", "to"},
    {"type": "rescue", "herds": [[from, to], ...]}, {"type": "reproduce", "at"}.
    """
    card = None
    for event in events:
        kind = event.get("type")
        if kind == "card_played":
            card = event.get("card")
        elif kind == "placed":
            return {"type": "place", "at": list(event["at"])}
        elif kind == "drifted":
            where = {"tile": list(event["tile"]), "to": list(event["to"])}
            if card is not None:
                return {"type": "play", "card": card, **where}
            return {"type": "drift", "cost": event.get("cost", 0), **where}
        elif kind == "moved":
            return {"type": "move", "from": list(event["from"]), "to": list(event["to"])}
        elif kind == "rescued":
            return {"type": "rescue", "herds": [[list(a), list(b)] for a, b in event["herds"]]}
        elif kind == "born":
            return {"type": "reproduce", "at": list(event["at"])}
    return None
