"""Setting up a table (T1-T3, T6, T7, T21): the shuffles become events, so replay never re-shuffles."""

from __future__ import annotations

import random

from .draws import shuffle
from .fold import replay
from .hexes import POLE, ring
from .state import LISTING, METEORITE, MOUNTAIN, POLE_KIND, STEPPE, UNKNOWN, WOODS, rules_for

WATER = "water"


def _kinds(mountains: int, steppe: int, woods: int) -> list:
    return [MOUNTAIN] * mountains + [STEPPE] * steppe + [WOODS] * woods


def board_tiles(players: int, rng: random.Random) -> tuple:
    """The shuffled board: ([q, r, kind] per tile, water places, unused tiles) (T1-T3, T21)."""
    inner = ring(1) + ring(2)
    if players == 2:
        land = _kinds(5, 7, 6)  # T21: 19 tiles forming rings 1 and 2, no water
        shuffle(rng, land)
        placed = list(zip(inner, land))
        water, unused = [], []
    else:
        land = _kinds(9, 15, 12)  # T2
        shuffle(rng, land)
        middle = land[:16] + [WATER, WATER]  # T3: 16 land tiles and both water tiles on rings 1-2
        shuffle(rng, middle)
        placed = list(zip(inner, middle)) + list(zip(ring(3), land[16:34]))
        unused = land[34:]  # T3: the last two leave the game unseen
        water = [[q, r] for (q, r), kind in placed if kind == WATER]
        placed = [(p, kind) for p, kind in placed if kind != WATER]  # T3: water tiles are removed
    tiles = [[POLE[0], POLE[1], POLE_KIND]] + [[q, r, kind] for (q, r), kind in placed]
    return tiles, water, unused


def shuffled_deck(players: int, rng: random.Random) -> list:
    """T6 (T21 for two players): deck 1 shuffled on top of deck 2 shuffled; top card first."""
    if players == 2:
        deck1, deck2 = _kinds(5, 6, 5), _kinds(1, 2, 1) + [METEORITE]
    else:
        deck1, deck2 = _kinds(7, 13, 10), _kinds(2, 3, 3) + [METEORITE]
    shuffle(rng, deck1)
    shuffle(rng, deck2)
    return deck1 + deck2


def setup_events(players: int, seed, mirror: bool = False, listing: int = LISTING) -> list:
    """The events that set up a table of `players` from `seed`: board, deck, one card each (T7).

    `mirror`: a physical table's game. The board still comes from the seed (the
    table lays its tiles to match), but the cards are the table's own: the deck
    and the hands are unknown cards, and `play`/`draw` name the card shown.
    `listing`: how its drift tiles are listed and drawn (state.LISTING); 1, a game stored before
    listing 2, sets up as it did then (no "listing" in the event).
    """
    if listing not in (1, LISTING):
        from .errors import BadCommand
        raise BadCommand("bad_listing", f"the listing is 1 or {LISTING}, not {listing!r}")
    if not isinstance(players, int) or not 2 <= players <= 5:
        from .errors import BadCommand
        raise BadCommand("bad_players", f"Trias is for 2 to 5 players, not {players!r}")
    rng = random.Random(seed)
    tiles, water, unused = board_tiles(players, rng)
    deck = shuffled_deck(players, rng)
    if mirror:
        deck = [UNKNOWN] * len(deck)
    events = [{"type": "setup", "players": players, "herds": rules_for(players).herds, "tiles": tiles,
               "water": water, "unused": unused, "deck": deck}]
    if mirror:
        events[0]["mirror"] = True
    if listing != 1:
        events[0]["listing"] = listing
    for seat in range(players):
        events.append({"type": "card_dealt", "player": seat, "card": deck[seat]})
    return events


def new_game(players: int, seed=None, mirror: bool = False, listing: int = LISTING) -> tuple:
    """A new table: (state, events). Seat 0 is the start player; seats run clockwise (T8).

    With `mirror=True` the engine follows a physical table's cards (see setup_events).
    """
    events = setup_events(players, seed, mirror, listing)
    return replay(events), events


def all_cards(players: int) -> list:
    """Every card of both decks (T6, T21), in listing order."""
    return shuffled_deck(players, _InOrder())


class _InOrder:
    """Stands in for a Random to list the decks unshuffled."""

    def shuffle(self, items) -> None:
        """Leave the cards in the order they were listed."""
