"""Mirror games: the engine follows a physical table's own cards (T6, T9, T10, T15, T17)."""

import random

import pytest

import trias
from trias.custom import position
from trias.legal import hidden_cards, possible_cards
from trias.state import UNKNOWN

# The arm of test_trias_drift: pole - 1,0 - 2,0 - 3,0 with 3,-1 beside 3,0.
ARM = {(1, 0): "steppe", (2, 0): "steppe", (3, 0): "woods", (3, -1): "woods"}
SEEN_NOTHING = ()


def mirror(players=3, deck=20, **fields):
    """A mirror table at seat 0's phase 1 on the arm, the cards face down."""
    defaults = dict(phase="start", mirror=True, hands=(UNKNOWN,) * players, deck=(UNKNOWN,) * deck, seen=SEEN_NOTHING)
    defaults.update(fields)
    return position(players, ARM, {(3, 0): (1,)}, **defaults)


def refused(state, command, error=trias.IllegalMove, pattern=None):
    with pytest.raises(error, match=pattern) as caught:
        trias.handle(state, command)
    return caught.value


def test_mirror_set_up_has_the_seeded_board_and_no_known_card():
    played, _ = trias.new_game(4, seed=21)
    state, events = trias.new_game(4, seed=21, mirror=True)
    assert state.tiles == played.tiles  # the table lays its tiles from the same set-up map
    assert state.mirror and set(state.deck) == {UNKNOWN} and len(state.deck) == len(played.deck)
    assert state.hands == (UNKNOWN,) * 4
    assert trias.view(state, 0)["mirror"] is True and not trias.view(played, 0)["mirror"]
    assert trias.replay(events) == state


def test_t9_mirror_play_uses_the_card_shown_at_the_table():
    events, after = trias.handle(mirror(), {"type": "play", "card": "woods", "tile": [3, 0], "to": [4, -1]})
    assert events[0] == {"type": "card_played", "player": 0, "card": "woods"}
    assert after.seen == ("woods",) and after.phase == "actions" and after.played_hand


def test_t9_mirror_play_must_name_the_card():
    err = refused(mirror(), {"type": "play", "tile": [3, 0], "to": [4, -1]}, trias.BadCommand)
    assert err.code == "card_required" and "names the card shown at the table" in err.message
    refused(mirror(), {"type": "play", "card": "meteorite", "tile": [3, 0], "to": [4, -1]}, trias.BadCommand,
            "mountain, steppe or woods")


def test_t10_mirror_refuses_a_drift_not_farther_from_the_pole_with_the_rule():
    err = refused(mirror(), {"type": "play", "card": "woods", "tile": [3, 0], "to": [2, 1]},
                  pattern=r"place 2,1 is not farther from the pole than 3,0 \(T10\)")
    assert err.code == "not_farther"


def test_t9_t11_mirror_the_named_landscape_decides_which_tile_drifts():
    # A steppe card with a woods drift while a steppe tile could drift: refused as in a played game.
    refused(mirror(), {"type": "play", "card": "steppe", "tile": [3, 0], "to": [4, -1]},
            pattern=r"is woods but the card is steppe")
    drifts = trias.legal_drifts(mirror(), card="woods")
    assert {"tile": [3, 0], "to": [4, -1]} in drifts
    assert all(d["tile"] in ([3, 0], [3, -1]) for d in drifts)


def test_t6_mirror_refuses_a_card_that_cannot_still_be_hidden():
    all_mountains = ("mountain",) * 9  # T6: 7 in deck 1 and 2 in deck 2
    state = mirror(seen=all_mountains)
    err = refused(state, {"type": "play", "card": "mountain"}, pattern="all 9 of the game's mountain cards have been seen")
    assert err.code == "card_not_hidden"
    refused(state, {"type": "draw", "card": "mountain"}, pattern=r"\(T6\)")
    assert hidden_cards(state)["steppe"] == 16 and "mountain" not in hidden_cards(state)
    assert "mountain" not in possible_cards(state, "play")


def test_t6_mirror_the_meteorite_lies_in_deck_2():
    err = refused(mirror(deck=10), {"type": "draw", "card": "meteorite"}, pattern="lies in deck 2, the last 9 cards")
    assert err.code == "meteorite_in_deck_2"
    events, after = trias.handle(mirror(deck=9), {"type": "draw", "card": "meteorite"})
    # T9/T17: the same last round as a played game: no drift, 2 action points.
    assert [e["type"] for e in events] == ["card_drawn", "last_round", "phase"]
    assert after.ap == 2 and after.seen == ("meteorite",) and len(after.deck) == 8


def test_t6_mirror_the_last_card_is_the_unseen_meteorite():
    refused(mirror(deck=1), {"type": "draw", "card": "woods"}, pattern="last card of the deck must be the Meteorite")
    assert possible_cards(mirror(deck=1), "draw") == ["meteorite"]


def test_t9_mirror_draw_names_the_card_then_drifts_it():
    events, after = trias.handle(mirror(), {"type": "draw", "card": "woods"})
    assert events[0]["card"] == "woods" and after.phase == "drift" and after.card == "woods"
    refused(after, {"type": "drift", "tile": [1, 0], "to": [2, -1]}, pattern=r"is steppe but the card is woods")
    _, after = trias.handle(after, {"type": "drift", "tile": [3, 0], "to": [4, -1]})
    assert after.phase == "actions" and len(after.deck) == 19


def end_turn_with_a_hand_draw(deck: int):
    """Seat 0 plays its card and ends its turn: it draws a face-down card in phase 4 (T15)."""
    _, state = trias.handle(mirror(deck=deck), {"type": "play", "card": "woods", "tile": [3, 0], "to": [4, -1]})
    _, state = trias.handle(state, {"type": "end_turn"})
    assert state.current == 1 and state.phase == "start" and state.hands[0] == UNKNOWN
    return state


def test_t15_t17_mirror_the_table_says_the_phase_4_card_was_the_meteorite():
    state = end_turn_with_a_hand_draw(deck=5)
    assert {"type": "meteorite_drawn"} in trias.legal_actions(state)
    events, after = trias.handle(state, {"type": "meteorite_drawn"})
    assert events[0] == {"type": "hand_shown", "player": 0, "card": "meteorite"}
    assert after.phase == "actions" and after.ap == 2 and after.hands[0] == "meteorite"
    # T17: seat 1 (this turn), seat 2, then seat 0 who drew it, and final scoring.
    seats = [after.current]
    while after.phase != "over":
        _, after = trias.handle(after, {"type": "end_turn"})
        seats.append(after.current)
    assert seats[:3] == [1, 2, 0] and after.result is not None


def test_t15_mirror_meteorite_drawn_needs_a_phase_4_draw_from_deck_2():
    refused(mirror(), {"type": "meteorite_drawn"}, pattern="drew no card at the end of its turn")
    refused(end_turn_with_a_hand_draw(deck=15), {"type": "meteorite_drawn"}, pattern="cannot be it")
    state = end_turn_with_a_hand_draw(deck=5)
    _, after = trias.handle(state, {"type": "draw", "card": "woods"})  # seat 1 went on: too late to say
    refused(after, {"type": "meteorite_drawn"}, pattern="is not possible now")


def test_mirror_commands_are_refused_in_a_played_game():
    played = position(3, ARM, {(3, 0): (1,)}, phase="start")
    err = refused(played, {"type": "meteorite_drawn"}, pattern="only records a physical table's card")
    assert err.code == "mirror_only"


def test_mirror_a_whole_game_of_listed_moves_replays_and_never_knows_a_hidden_card():
    rng = random.Random(5)
    state, journal = trias.new_game(3, seed=5, mirror=True)
    for _ in range(3000):
        if state.phase == "over":
            break
        actions = trias.legal_actions(state)
        assert actions
        command = rng.choice(actions)
        assert trias.is_legal(state, command)
        events, state = trias.handle(state, command)
        journal += events
        assert set(state.deck) <= {UNKNOWN}
    assert state.phase == "over" and trias.replay(journal) == state
    assert sum(hidden_cards(state).values()) + len(state.seen) == 39  # T6: 30 + 9 cards
