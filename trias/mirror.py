"""Mirror games: the cards a physical table may show, checked against what the engine has seen.

In a mirror game (`new_game(..., mirror=True)`) the deck and the hands are the
table's own; `play` and `draw` name the card shown. These checks refuse a card
that cannot still be face down (T6, T21 counts minus the cards seen), the
Meteorite Impact above deck 2, and record T15's Meteorite drawn in phase 4.
"""

from __future__ import annotations

from .errors import BadCommand, IllegalMove
from .setup import all_cards
from .state import LANDSCAPES, METEORITE, State


def hidden_cards(state: State) -> dict:
    """Mirror: how many of each card may still be face down (T6 counts minus the cards seen)."""
    left = {}
    for card in all_cards(state.players):
        left[card] = left.get(card, 0) + 1
    for card in state.seen:
        left[card] = left.get(card, 0) - 1
    return {card: k for card, k in left.items() if k > 0}


def possible_cards(state: State, kind: str) -> list:
    """Mirror: the cards the table may name for `kind` ("play" or "draw") now, in a stable order."""
    found = []
    for card in LANDSCAPES + ((METEORITE,) if kind == "draw" else ()):
        try:
            table_card(state, {"card": card}, kind)
        except IllegalMove:
            continue
        found.append(card)
    return found


def table_card(state: State, command: dict, kind: str) -> str:
    """Mirror: the card named by a play or draw, refused if the table cannot be showing it (T6, T9, T15)."""
    card = command.get("card")
    cards = LANDSCAPES if kind == "play" else LANDSCAPES + (METEORITE,)
    if card not in cards:
        raise BadCommand("card_required", f"in a mirror game, '{kind}' names the card shown at the table: "
                         f"'card' must be {', '.join(cards[:-1])} or {cards[-1]}, not {str(card)[:20]!r} (T9)")
    left = hidden_cards(state).get(card, 0)
    if not left:
        total = all_cards(state.players).count(card)
        raise IllegalMove("card_not_hidden", f"no {card} card can still be face down: all {total} of the "
                          f"game's {card} cards have been seen (T6)")
    deck2 = state.rules.deck2_size
    if card == METEORITE and len(state.deck) > deck2:
        raise IllegalMove("meteorite_in_deck_2", f"the Meteorite Impact lies in deck 2, the last {deck2} cards, "
                          f"and {len(state.deck)} cards are left: the card drawn cannot be it (T6)")
    if kind == "draw" and card != METEORITE and len(state.deck) == 1 and METEORITE not in state.seen:
        raise IllegalMove("last_card_is_meteorite", "the last card of the deck must be the Meteorite Impact, "
                          "which has not been seen yet (T6)")
    return card


def check_meteorite_drawn(state: State, command: dict) -> dict:
    """Mirror, T15: the card the previous seat drew in phase 4 was the Meteorite Impact."""
    if state.hand_draw is None:
        raise IllegalMove("no_card_drawn", "the previous seat drew no card at the end of its turn, so no "
                          "Meteorite Impact can have been shown (T15)")
    seat, left = state.hand_draw
    deck2 = state.rules.deck2_size
    if METEORITE in state.seen:
        raise IllegalMove("card_not_hidden", "the Meteorite Impact has already been seen (T6)")
    if left > deck2:
        raise IllegalMove("meteorite_in_deck_2", f"the Meteorite Impact lies in deck 2, the last {deck2} cards, "
                          f"and {left} cards were left when seat {seat} drew: the card drawn cannot be it (T6)")
    return {"type": "meteorite_drawn", "player": seat}
