"""Invariants over random legal games of 2 to 5 players (T2-T19), checked at every step."""

import json
import random

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import trias
from trias.bots.randombot import random_action
from trias.hexes import POLE, distance
from trias.state import CAPACITY

GAMES = settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def herds_of(state, seat):
    return sum(c[seat] for c in state.herds.values()) + state.stock[seat]


def over_capacity(state):
    return {p for p, kind in state.tiles.items() if state.total(p) > CAPACITY[kind]}


def play(players, seed, check_step):
    """Play one random game to its end, calling `check_step(before, command, events, after)`."""
    state, journal = trias.new_game(players, seed)
    rng = random.Random(seed)
    while state.phase != "over":
        command = random_action(state, rng)
        events, after = trias.handle(state, command)
        check_step(state, command, events, after)
        journal += events
        state = after
    return state, journal


@GAMES
@given(players=st.integers(2, 5), seed=st.integers(0, 10**6))
def test_t7_t12_t14_herds_are_conserved_and_t2_t13_capacity_holds(players, seed):
    start = trias.new_game(players, seed)[0].stock[0]

    def check_step(before, command, events, after):
        assert all(herds_of(after, s) == start for s in range(players))  # land + swimming + stock
        new_over = over_capacity(after) - over_capacity(before)
        # T13: only a drift under swimmers may overpopulate a tile (T14)
        assert all(any(e["type"] == "drifted" and tuple(e["to"]) == p for e in events) for p in new_over)
        for e in events:
            if e["type"] == "turn_ended":
                seat = e["player"]
                assert not [p for p in over_capacity(after) if after.own(p, seat)], "T14 left overpopulation"
                assert not [p for p in after.herds if p not in after.tiles and after.own(p, seat)], "T14 left swimmers"

    play(players, seed, check_step)


@GAMES
@given(players=st.integers(2, 5), seed=st.integers(0, 10**6))
def test_t4_t10_drifts_go_farther_onto_surrounding_water_pole_and_tile_count_fixed(players, seed):
    tiles = len(trias.new_game(players, seed)[0].tiles)

    def check_step(before, command, events, after):
        assert after.tiles[POLE] == "pole" and len(after.tiles) == tiles
        for e in events:
            if e["type"] == "drifted":
                tile, place = tuple(e["tile"]), tuple(e["to"])
                assert distance(place) > distance(tile)
                assert after.geometry().borders_surrounding(place)
                assert place in after.tiles and tile not in after.tiles

    play(players, seed, check_step)


@GAMES
@given(players=st.integers(2, 5), seed=st.integers(0, 10**6))
def test_t9_t17_t18_every_game_ends_after_the_meteorite_with_a_final_score_and_replays(players, seed):
    state, journal = play(players, seed, lambda *a: None)
    types = [e["type"] for e in journal]
    assert "meteorite" in state.seen and types.index("last_round") < types.index("game_over")
    assert types[-2:] == ["scored", "game_over"] and state.result["winners"]
    assert trias.replay(journal) == state  # the journal folds to exactly the live state
    stored = json.loads(json.dumps(journal))  # as a SQLite journal would keep it
    assert stored == journal and trias.replay(stored) == state
    assert sum(state.score) >= 0 and state.phase == "over"


BAD = [
    {"type": "move", "from": [0, 0], "to": [9, 9]},
    {"type": "drift", "tile": [0, 0], "to": [5, 0]},
    {"type": "rescue", "herds": [[[20, 0], [0, 0]]]},
    {"type": "reproduce", "at": [30, 1]},
    {"type": "place", "at": [40, 0]},
    {"type": "fly"},
    "not a dict",
]


@GAMES
@given(players=st.integers(2, 5), seed=st.integers(0, 10**6), pick=st.integers(0, len(BAD) - 1))
def test_t10_t12_an_illegal_move_changes_nothing(players, seed, pick):
    def check_step(before, command, events, after):
        snapshot = before.copy()
        try:
            trias.handle(before, BAD[pick])
        except trias.TriasError as err:
            assert err.message.endswith(")") or err.code in ("unknown_command", "not_a_command", "bad_place")
        else:
            raise AssertionError(f"{BAD[pick]} was accepted")
        assert before == snapshot and before.tiles == snapshot.tiles

    play(players, seed, check_step)


@settings(max_examples=6, deadline=None)
@given(players=st.integers(2, 5), seed=st.integers(0, 10**6))
def test_t10_t12_every_listed_action_is_legal_and_the_random_player_picks_listed_ones(players, seed):
    state, _ = trias.new_game(players, seed)
    rng = random.Random(seed)
    steps = 0
    while state.phase != "over":
        if steps % 7 == 0:
            listed = trias.legal_actions(state)
            assert listed and all(trias.is_legal(state, a) for a in listed)
            choice = random_action(state, random.Random(steps))
            assert choice in listed or choice.get("type") in ("drift", "play")  # drifts are drawn, not listed
            assert trias.is_legal(state, choice)
        _, state = trias.handle(state, random_action(state, rng))
        steps += 1


@settings(max_examples=5, deadline=None)
@given(players=st.integers(2, 5), seed=st.integers(0, 10**6), steps=st.integers(10, 80))
def test_t10_t11_the_drift_list_is_exactly_the_drifts_the_checks_accept(players, seed, steps):
    state, _ = trias.new_game(players, seed)
    rng = random.Random(seed)
    for _ in range(steps):
        if state.phase == "over":
            return
        _, state = trias.handle(state, random_action(state, rng))
    if state.phase not in ("start", "drift") and not (state.phase == "actions" and state.ap >= 3):
        return
    kind = "play" if state.phase == "start" else "drift"
    listed = {(tuple(d["tile"]), tuple(d["to"])) for d in trias.legal_drifts(state)}
    reach = max(distance(p) for p in state.tiles) + 2
    places = [(q, r) for q in range(-reach, reach + 1) for r in range(-reach, reach + 1) if distance((q, r)) <= reach]
    accepted = {(a, b) for a in state.tiles for b in places
                if trias.is_legal(state, {"type": kind, "tile": list(a), "to": list(b)})}
    assert accepted == listed
