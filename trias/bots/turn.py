"""A whole turn's time shared among its decisions, so a table waits a bounded time for a computer seat.

A seat's turn is several decisions (T9-T15): play or draw, the drift after a draw, then one per
action point until the points run out or the seat ends its turn. A budget {"turn": T, "seconds": cap}
gives each decision a share of T by how many decisions may still follow it in this turn, at most cap.

The bound needs no memory of the turn so far: every decision lowers the most decisions left by one
at least (a drift after a draw is one; each action spends a point or ends the turn), so the shares a
turn takes are each taken at most once, and they sum to at most T. The first decision (play or draw,
where the drift is chosen) takes two shares: it is the one that shapes the turn.
"""

from __future__ import annotations

from ..state import rules_for

FIRST = 2.0  # shares of the turn's first decision; every other decision takes one


def most_decisions(players: int) -> int:
    """The most decisions one turn can hold: play or draw, the drawn card's drift, one per action point."""
    return 2 + rules_for(players).action_points


def decisions_left(v: dict) -> int:
    """The most decisions the seat to play may still take in this turn, this one included."""
    phase = v["phase"]
    if phase == "start":
        return most_decisions(v["players"])
    if phase == "drift":
        return 1 + rules_for(v["players"]).action_points
    if phase == "actions":
        return max(1, v["ap"])  # each action spends a point at least, or ends the turn
    return 1  # a placement (T8) is a turn of one decision


def share(v: dict, turn: float) -> float:
    """This decision's part of a turn of `turn` seconds (the shares of one turn sum to `turn` at most)."""
    if v["phase"] not in ("start", "drift", "actions"):
        return turn
    most = most_decisions(v["players"])
    whole = FIRST + (most - 1)
    k = decisions_left(v)
    return turn * (FIRST if k == most else 1.0) / whole


def decision_budget(v: dict, budget: dict, used: float | None = None) -> dict:
    """The budget for this one decision: a turn budget becomes seconds (its share, at most `seconds`).

    `used`: the seconds this turn's decisions took so far, for a budget that "carry"s them (see
    share_of_rest); None (no clock) gives the share that needs no memory of the turn.
    """
    if "turn" not in budget:
        return budget
    out = {k: value for k, value in budget.items() if k not in ("turn", "carry")}
    turn = max(0.0, float(budget["turn"]))
    part = share(v, turn) if used is None or not budget.get("carry") else share_of_rest(v, turn, used)
    out["seconds"] = part if budget.get("seconds") is None else min(part, float(budget["seconds"]))
    return out


# A turn's clock: the seconds its decisions took so far, by turn (turn_key), for budgets that "carry"
# what a decision leaves unused to the turn's later decisions. Bounded: old turns are forgotten.
_SPENT: dict = {}
TURNS_KEPT = 64


def turn_key(v: dict, table=None) -> tuple:
    """What names one seat's turn in one game and stays the same through it: the table (the caller's
    name for its game: two tables dealt alike, a rematch of one seed, keep their own clocks), its size,
    the seat, the turn's number, and where the other seats' herds stand (no action of this seat moves
    them, T12-T14, and drifts move tiles, not herds)."""
    seat = v["current"]
    others = tuple((q, r, tuple(k for s, k in enumerate(counts) if s != seat))
                   for q, r, counts in v["herds"] if any(k for s, k in enumerate(counts) if s != seat))
    return (table, v["players"], seat, v["turn"], others)


def spent(v: dict, table=None) -> float | None:
    """Seconds this turn's decisions took so far (0 before its first), or None outside a turn."""
    if v["phase"] not in ("start", "drift", "actions"):
        return None
    return _SPENT.get(turn_key(v, table), 0.0)


def add_spent(v: dict, seconds: float, table=None) -> None:
    """Count a decision's seconds in its turn's clock."""
    if v["phase"] not in ("start", "drift", "actions"):
        return
    key = turn_key(v, table)
    if key not in _SPENT and len(_SPENT) >= TURNS_KEPT:
        _SPENT.clear()
    _SPENT[key] = _SPENT.get(key, 0.0) + seconds


def share_of_rest(v: dict, turn: float, used: float) -> float:
    """This decision's part of what the turn's earlier decisions left of `turn` seconds (`used` spent).

    The same shares as `share`, taken of the rest: what a decision leaves goes to the ones after it.
    Still a bound: each decision leaves at least T * (decisions that may follow) / (all shares), so a
    later decision that finds no clock (and takes `share`) fits in what is left as well.
    """
    if v["phase"] not in ("start", "drift", "actions"):
        return turn
    most = most_decisions(v["players"])
    k = decisions_left(v)
    weight = FIRST if k == most else 1.0
    return max(0.0, turn - used) * weight / (weight + k - 1)
