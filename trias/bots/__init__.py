"""Computer opponents: each a function of one seat's view and a budget.

    trias.bots.choose(view, "hard", budget={"seconds": 2}, rng=random.Random(1))

Levels: "random" (a random legal move), "easy" (greedy: one move of
look-ahead with a heuristic), "medium" and "hard" (information-set Monte Carlo
tree search over determinised hands and deck, with a smaller or larger budget).
A budget is {"seconds": s} or {"iterations": n}, or {"turn": t, "seconds": s} for a share of a
whole turn's t seconds (turn.py); a full state may be passed instead of a view, and the bot then
looks only at what that seat may see.
"""

from __future__ import annotations

import random
import time

from .clock import no_cycle_collection
from .determinise import as_view, determinise, unseen_cards
from .greedy import greedy_action
from .randombot import random_action
from .search import search_action
from .turn import add_spent, decision_budget, spent

LEVELS = ("random", "easy", "medium", "hard")
# Seconds each level may think: per decision ("seconds"), and per whole turn ("turn", shared among the
# turn's decisions by turn.py) where a table waits for all of a computer seat's actions. Measured on a
# Raspberry Pi's budget (a quarter of one core, bench/trias/ladder_pi.py; docs/PERFORMANCE.md,
# "Trias engine"): a decision must take at most 2 s (easy 0.5 s), a turn at most 2 s at easy and 5 s at
# hard. Greedy stops at its deadline plus one judged move, the search at its deadline plus one
# iteration, and no cycle collection runs inside a decision (clock.py): at the Pi budget that left
# overruns of a few hundredths of a second, where collections had made them up to 0.6 s. Easy keeps
# 0.35 s for the first decision (phase 1, where most moves are judged); it rarely needs it. Medium stays
# 0.5 s a decision: with less, a Pi buys it too few iterations to beat easy. Hard keeps the subtree of the
# move it plays for its next decision ("reuse"), so a turn's later actions start from what its first
# search learnt of them, and what a decision leaves of its share goes to the turn's later decisions
# ("carry", turn.py: a search stops early when its choice is settled). Its 4.0 s a turn and 1.5 s a
# decision keep the table's bounds first (5 s a turn, 2 s a decision): at 4.4 s and 1.7 s two decisions
# with their whole CPU share went over 2 s on a slow host, and the longest turn took 5.2 s.
# Hard explores less than medium (search.py, EXPLORE): with medium's constant its twice as many
# iterations spread evenly over the moves and it won about half its games against medium. At so little
# exploration a move's first value counts: hard "judge"s the drift a draw leads to at a leaf (search.py,
# _leaf) where medium drifts a random tile. Below the root hard ranks a sample of 12 drifts a node, not
# 40 ("drifts"): ranking is most of a search's time, and the iterations it saves go down its best lines
# (exploring at 0.08, not 0.15).
DEFAULT_BUDGET = {"easy": {"turn": 1.5, "seconds": 0.35}, "medium": {"seconds": 0.5},
                  "hard": {"turn": 4.0, "seconds": 1.5, "reuse": True, "carry": True, "explore": 0.08,
                           "judge": True, "drifts": 12}}
TURN_BOUND = {"easy": 2.0, "hard": 5.0}  # seconds a table may wait for a whole computer turn on a Pi

__all__ = ["choose", "LEVELS", "DEFAULT_BUDGET", "TURN_BOUND", "random_action", "greedy_action", "search_action"]


def choose(view_or_state, level: str = "medium", budget: dict | None = None, rng=None, table=None) -> dict:
    """A legal command for the seat to play, chosen by the bot of `level` within `budget`.

    `table`: the caller's name for the game (hashable), so that a turn budget's clock (turn.py) is the
    game's own even when another table's position is the same."""
    if level not in LEVELS:
        raise ValueError(f"unknown bot level {level!r}; levels are {', '.join(LEVELS)}")
    rng = rng or random.Random()
    v = as_view(view_or_state)
    if v["phase"] in ("over", "setup"):
        raise ValueError(f"there is no move to choose: the game is {'over' if v['phase'] == 'over' else 'not set up'}")
    if level == "random":
        return random_action(determinise(v, rng), rng)
    budget = budget or DEFAULT_BUDGET[level]
    # The decision's seconds count from here (its view's conversion and its deal included), and no
    # cycle collection runs in them (clock.py): the deadline checks then bound the overrun.
    started = time.perf_counter()
    with no_cycle_collection():
        if not budget.get("carry"):
            return _decide(v, level, decision_budget(v, budget), rng, started)
        try:
            return _decide(v, level, decision_budget(v, budget, spent(v, table)), rng, started)
        finally:
            add_spent(v, time.perf_counter() - started, table)


def _decide(v: dict, level: str, budget: dict, rng, started: float) -> dict:
    if level == "easy":
        state, unseen = determinise(v, rng), unseen_cards(v)
        return greedy_action(state, rng, unseen, _left(budget.get("seconds"), started))
    return search_action(v, rng, **{**budget, "seconds": _left(budget.get("seconds"), started)})


def _left(seconds: float | None, started: float) -> float | None:
    """What is left of a decision's `seconds` since it `started` (None: no time bound)."""
    return None if seconds is None else max(0.0, seconds - (time.perf_counter() - started))
