"""A computer seat never stops the table: every level answers a legal move at any budget.

At a 4-player table a "Ordinateur · facile" seat proposed a mountain tile drifted with a steppe
card (refused `wrong_landscape`, T9, T11) and the table waited for it for good. Greedy judged the
phase-1 drifts of every landscape in listing order until its deadline, so on a short budget (a
Raspberry Pi, a busy laptop) it could hold only drifts the hand card does not allow. Every level
must hold a legal answer before it spends time improving it: checked here on positions sampled
from random games at 2-5 players, every level, budgets from nothing (0 s, one iteration) up.
"""

from __future__ import annotations

import random

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import trias
from trias.bots import LEVELS, choose
from trias.bots.randombot import random_action


def position(players: int, seed: int, depth: float):
    """The state `depth` (0..1) of the way through one random game of `players`."""
    state, _ = trias.new_game(players, seed)
    rng = random.Random(seed)
    states = []
    while state.phase != "over":
        states.append(state)
        _, state = trias.handle(state, random_action(state, rng))
    return states[min(len(states) - 1, int(depth * len(states)))]


def phase_one_positions(players: int, seed: int) -> list:
    """Every phase-1 position (T9: play the hand card or draw) of one random game."""
    state, _ = trias.new_game(players, seed)
    rng = random.Random(seed)
    found = []
    while state.phase != "over":
        if state.phase == "start":
            found.append(state)
        _, state = trias.handle(state, random_action(state, rng))
    return found


BUDGETS = st.one_of(
    st.just({"seconds": 0.0}),
    st.just({"iterations": 1}),
    st.floats(min_value=0.0005, max_value=0.02).map(lambda s: {"seconds": s}),
)


@settings(max_examples=250, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(players=st.integers(2, 5), seed=st.integers(0, 10_000), depth=st.floats(0, 1),
       level=st.sampled_from(LEVELS), budget=BUDGETS, bot_seed=st.integers(0, 1_000))
def test_every_level_plays_a_legal_move_at_any_budget_2_to_5_players(players, seed, depth, level, budget, bot_seed):
    state = position(players, seed, depth)
    command = choose(trias.view(state, state.current), level, budget, random.Random(bot_seed))
    assert trias.is_legal(state, command), (level, budget, state.phase, command)


def test_easy_at_no_budget_plays_its_own_cards_landscape_in_phase_one_T9_T11():
    """The frozen table's position kind: greedy with no time at all still drifts what its card allows."""
    refused = []
    for players in (2, 3, 4, 5):
        for seed in range(4):
            for state in phase_one_positions(players, seed):
                command = choose(trias.view(state, state.current), "easy", {"seconds": 0.0}, random.Random(seed))
                if not trias.is_legal(state, command):
                    refused.append((players, seed, state.turn, state.hands[state.current], command))
    assert refused == []
