"""From a seat's view back to a full state, with the hidden cards drawn at random.

Bots see only a view (view.py). To look ahead they need a state, so the cards
they cannot see (other hands, the deck) are dealt at random from the cards not
yet shown: one "determinisation" per sample, as in information-set MCTS.
"""

from __future__ import annotations

from collections import Counter

from ..setup import shuffled_deck
from ..state import METEORITE, State
from ..view import HIDDEN, view


def unseen_cards(v: dict) -> list:
    """The cards this seat has not seen: the whole deck minus cards shown and its own hand."""
    pool = Counter(shuffled_deck(v["players"], _NoShuffle()))
    pool.subtract(v["seen"])
    mine = v["hands"][v["seat"]] if v["seat"] is not None else None
    if mine is not None and mine != METEORITE:
        pool[mine] -= 1
    return sorted(pool.elements())


def determinise(v: dict, rng) -> State:
    """A full state consistent with view `v`: hidden hands and the deck's order drawn at random."""
    pool = unseen_cards(v)
    meteorite = METEORITE in pool
    if meteorite:
        pool.remove(METEORITE)  # never in a hidden hand: it is shown when drawn (T15)
    rng.shuffle(pool)
    hands = []
    for card in v["hands"]:
        hands.append(pool.pop() if card == HIDDEN and pool else card)
    deck = pool[: v["deck_size"] - (1 if meteorite else 0)]
    if meteorite:
        # deck 2, with the Meteorite Impact, is the bottom of the deck (T6)
        low = max(0, len(deck) + 1 - max(v["deck2_left"], 1))
        deck.insert(rng.randint(low, len(deck)), METEORITE)
    return _state(v, tuple(hands), tuple(deck))


def _state(v: dict, hands: tuple, deck: tuple) -> State:
    s = State(players=v["players"])
    s.tiles = {(q, r): kind for q, r, kind in v["tiles"]}
    s.herds = {(q, r): tuple(c) for q, r, c in v["herds"]}
    s.spent = {(q, r): k for q, r, k in v["spent"]}
    s.stock, s.score = tuple(v["stock"]), tuple(v["score"])
    s.hands, s.deck, s.seen = hands, deck, tuple(v["seen"])
    s.phase, s.current, s.turn, s.ap = v["phase"], v["current"], v["turn"], v["ap"]
    s.card, s.played_hand, s.placements = v["card"], v["played_hand"], v["placements"]
    s.last_round, s.result = v["last_round"], v["result"]
    s.listing = v.get("listing", 1)
    return s


def as_view(view_or_state) -> dict:
    """A view for the seat to play, whether given a view or (for convenience) a full state."""
    if isinstance(view_or_state, State):
        return view(view_or_state, view_or_state.current)
    return view_or_state


class _NoShuffle:
    """Stands in for a Random to list the full deck in order."""

    def shuffle(self, items) -> None:
        """Leave the cards in the order they were listed."""
