"""Cards, herds and the placement of the first herds (T6-T8, T21)."""

from collections import Counter

import pytest

import trias
from trias.hexes import POLE


def place_all(state):
    """Place every starting pair on the first vacant tiles; return the seats in placing order."""
    order = []
    while state.phase == "place":
        order.append(state.current)
        vacant = sorted(p for p in state.tiles if not state.total(p))
        _, state = trias.handle(state, {"type": "place", "at": list(vacant[0])})
    return order, state


@pytest.mark.parametrize("players", [3, 4, 5])
def test_t6_deck_1_of_30_lies_on_deck_2_of_9_with_the_meteorite(players):
    _, events = trias.new_game(players, seed=3)
    deck = events[0]["deck"]
    assert len(deck) == 39
    assert Counter(deck[:30]) == Counter({"mountain": 7, "steppe": 13, "woods": 10})
    assert Counter(deck[30:]) == Counter({"mountain": 2, "steppe": 3, "woods": 3, "meteorite": 1})


def test_t6_each_deck_is_shuffled():
    decks = {tuple(trias.new_game(4, seed=s)[1][0]["deck"]) for s in range(5)}
    assert len(decks) == 5
    assert len({d.index("meteorite") for d in decks}) > 1


def test_t21_two_player_decks():
    _, events = trias.new_game(2, seed=3)
    deck = events[0]["deck"]
    assert Counter(deck[:16]) == Counter({"mountain": 5, "steppe": 6, "woods": 5})
    assert Counter(deck[16:]) == Counter({"mountain": 1, "steppe": 2, "woods": 1, "meteorite": 1})


@pytest.mark.parametrize("players,herds", [(2, 10), (3, 15), (5, 15)])
def test_t7_t21_herds_and_one_card_each(players, herds):
    state, events = trias.new_game(players, seed=8)
    assert state.stock == (herds,) * players
    assert all(card in ("mountain", "steppe", "woods") for card in state.hands)
    assert len(state.deck) == 39 - players if players > 2 else 21 - players
    assert [e["type"] for e in events[1:]] == ["card_dealt"] * players


@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_t8_two_rounds_anticlockwise_then_last_placer_starts_clockwise(players):
    state, _ = trias.new_game(players, seed=4)
    order, state = place_all(state)
    one_round = [0] + list(range(players - 1, 0, -1))
    assert order == one_round * 2
    assert state.phase == "start" and state.current == one_round[-1]
    assert all(c[s] in (0, 2) for c in state.herds.values() for s in range(players))
    assert state.stock == ((10 if players == 2 else 15) - 4,) * players
    # play goes clockwise from the last placer
    _, state = trias.handle(state, {"type": "draw"})
    while state.phase != "start":
        _, state = trias.handle(state, {"type": "end_turn"} if state.phase == "actions" else trias.legal_actions(state)[0])
    assert state.current == (one_round[-1] + 1) % players


def test_t8_herds_go_on_a_vacant_tile_not_on_water_or_an_occupied_tile():
    state, events = trias.new_game(4, seed=4)
    water = events[0]["water"][0]
    with pytest.raises(trias.IllegalMove, match=r"is water.*\(T8\)"):
        trias.handle(state, {"type": "place", "at": water})
    _, after = trias.handle(state, {"type": "place", "at": [0, 0]})  # the pole holds herds (T2)
    assert after.own(POLE, 0) == 2
    with pytest.raises(trias.IllegalMove, match=r"already holds herds.*\(T8\)"):
        trias.handle(after, {"type": "place", "at": [0, 0]})
