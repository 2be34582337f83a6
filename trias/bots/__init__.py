"""Computer opponents: each a function of one seat's view and a budget.

    trias.bots.choose(view, "hard", budget={"seconds": 2}, rng=random.Random(1))

Levels: "random" (a random legal move), "easy" (greedy: one move of
look-ahead with a heuristic), "medium" and "hard" (information-set Monte Carlo
tree search over determinised hands and deck, with a smaller or larger budget).
A budget is {"seconds": s} or {"iterations": n}; a full state may be passed
instead of a view, and the bot then looks only at what that seat may see.
"""

from __future__ import annotations

import random

from .determinise import as_view, determinise, unseen_cards
from .greedy import greedy_action
from .randombot import random_action
from .search import search_action

LEVELS = ("random", "easy", "medium", "hard")
# Every level thinks at most about this long: no decision may take over 2 s, on a Raspberry Pi's
# budget too (a quarter of one core, bench/trias/ladder_pi.py; docs/PERFORMANCE.md, "Trias engine").
# Easy 0.4 s: easy must answer within 0.5 s on a Pi, and greedy stops at its deadline plus one judged
# move. Medium 0.5 s: less buys it too few search iterations on a Pi to beat easy, more lets it come
# level with hard; no medium budget met both rungs' 65 % in the pilots, 0.5 s came closest. Hard 1.5 s:
# the 2 s bound leaves no room for the several times more it would need to pull away from medium.
DEFAULT_BUDGET = {"easy": {"seconds": 0.4}, "medium": {"seconds": 0.5}, "hard": {"seconds": 1.5}}

__all__ = ["choose", "LEVELS", "DEFAULT_BUDGET", "random_action", "greedy_action", "search_action"]


def choose(view_or_state, level: str = "medium", budget: dict | None = None, rng=None) -> dict:
    """A legal command for the seat to play, chosen by the bot of `level` within `budget`."""
    if level not in LEVELS:
        raise ValueError(f"unknown bot level {level!r}; levels are {', '.join(LEVELS)}")
    rng = rng or random.Random()
    v = as_view(view_or_state)
    if v["phase"] in ("over", "setup"):
        raise ValueError(f"there is no move to choose: the game is {'over' if v['phase'] == 'over' else 'not set up'}")
    if level == "random":
        return random_action(determinise(v, rng), rng)
    if level == "easy":
        return greedy_action(determinise(v, rng), rng, unseen_cards(v), (budget or DEFAULT_BUDGET["easy"]).get("seconds"))
    return search_action(v, rng, **(budget or DEFAULT_BUDGET[level]))
