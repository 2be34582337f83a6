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


def decision_budget(v: dict, budget: dict) -> dict:
    """The budget for this one decision: a turn budget becomes seconds (its share, at most `seconds`)."""
    if "turn" not in budget:
        return budget
    out = {k: value for k, value in budget.items() if k != "turn"}
    part = share(v, max(0.0, float(budget["turn"])))
    out["seconds"] = part if budget.get("seconds") is None else min(part, float(budget["seconds"]))
    return out
