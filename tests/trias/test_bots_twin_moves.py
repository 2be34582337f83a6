"""The search lists a herd move that leaves the same position once (T12).

A `move` of a spent herd and one of a fresh herd ("fresh": true) between the same places, by the
turn's last action point, leave one position: the turn ends, so which herd could still reproduce no
longer matters. Listed as two moves, the best of them had its visits split between twins, and the
choice (the most visited move) could go to the next best.
"""

from __future__ import annotations

import random

import trias
from trias.bots import search
from trias.bots.randombot import random_action
from trias.engine import advance


def positions(players: int, seed: int) -> list:
    """States along one random game where the seat to play may move a spent or a fresh herd (T12)."""
    state, _ = trias.new_game(players, seed)
    rng, out = random.Random(seed), []
    while state.phase != "over":
        if state.phase == "actions" and any(c.get("fresh") for c in trias.legal_actions(state)):
            out.append(state)
        _, state = trias.handle(state, random_action(state, rng))
    return out


def position_of(state) -> tuple:
    return (frozenset(state.tiles.items()), frozenset(state.herds.items()), frozenset(state.spent.items()),
            state.ap, state.phase, state.current, state.score, state.stock)


def test_t12_herd_moves_leaving_one_position_are_ranked_once():
    last_point = 0
    for seed in range(1, 40):
        for state in positions(2 + seed % 4, seed):
            ranked, _ = search._rank(state, random.Random(0), None)
            left = {}
            for _, command in ranked:
                if command["type"] == "move":
                    _, after = advance(state, command)
                    key = position_of(after)
                    assert key not in left, f"{command} and {left[key]} leave the same position"
                    left[key] = command
            listed = sum(1 for c in trias.legal_actions(state) if c["type"] == "move")
            if state.ap == 1:
                last_point += 1
                assert len(left) < listed, "with the last point a spent and a fresh herd's moves are twins"
            else:
                assert len(left) == listed, "with points left they are not: the one moved may still reproduce"
        if last_point >= 5:
            break
    assert last_point >= 5, "too few positions with a fresh and a spent herd and one action point left"
