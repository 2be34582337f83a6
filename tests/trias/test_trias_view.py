"""Hidden information: a seat sees its own hand card only, nobody sees the deck (T6, T7, T15)."""

import json

import trias


def test_t7_a_view_shows_only_the_seats_own_hand_card():
    state, _ = trias.new_game(4, seed=9)
    for seat in range(4):
        seen = trias.view(state, seat)
        assert seen["hands"][seat] == state.hands[seat]
        assert all(card == "hidden" for i, card in enumerate(seen["hands"]) if i != seat)


def test_t6_no_view_holds_the_deck_order():
    state, events = trias.new_game(5, seed=9)
    seen = trias.view(state, 0)
    assert "deck" not in seen and seen["deck_size"] == len(state.deck)
    assert trias.view(state, None)["hands"] == ["hidden"] * 5
    json.dumps(seen)


def test_t6_t7_events_shown_to_a_seat_drop_the_deck_and_other_hands():
    _, events = trias.new_game(3, seed=9)
    shown = [trias.public_event(e, 1) for e in events]
    assert "deck" not in shown[0] and "unused" not in shown[0] and shown[0]["deck_size"] == 39
    assert [e["card"] for e in shown[1:]] == ["hidden", events[2]["card"], "hidden"]
    json.dumps(shown)


def test_t15_the_view_of_a_whole_game_never_leaks_a_hidden_card():
    import random

    from trias.bots.randombot import random_action
    state, _ = trias.new_game(3, seed=4)
    rng = random.Random(4)
    while state.phase != "over":
        seen = trias.view(state, 1)
        for i, card in enumerate(seen["hands"]):
            if i != 1:
                assert card in ("hidden", "meteorite", None)
        _, state = trias.handle(state, random_action(state, rng))
