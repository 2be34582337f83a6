"""Positions built by hand: for tests, puzzles and the rules' worked examples."""

from __future__ import annotations

from .hexes import POLE, parse
from .state import POLE_KIND, State, rules_for


def position(players: int, tiles: dict, herds: dict | None = None, **fields) -> State:
    """A mid-game state from a map of places to landscapes and of places to herd counts.

    Places may be (q, r) or "q,r"; the pole is added if missing. Herds not on the
    board are in stock. Other State fields (phase, current, ap, hands, deck, ...)
    may be given by name; by default it is seat 0's action phase.
    """
    board = {parse(p): kind for p, kind in tiles.items()}
    board.setdefault(POLE, POLE_KIND)
    placed = {parse(p): tuple(c) + (0,) * (players - len(c)) for p, c in (herds or {}).items()}
    rules = rules_for(players)
    used = [sum(c[s] for c in placed.values()) for s in range(players)]
    state = State(players=players, tiles=board, herds=placed,
                  stock=tuple(rules.herds - u for u in used), score=(0,) * players,
                  hands=("steppe",) * players, deck=("woods",) * 10 + ("meteorite",),
                  phase="actions", current=0, placements=2 * players, ap=rules.action_points)
    for name, value in fields.items():
        setattr(state, name, value)
    return state
