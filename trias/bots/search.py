"""The search player: information-set Monte Carlo tree search (single observer).

Each iteration deals the hidden cards at random (determinise.py), walks the tree
of this seat's decisions with UCB1 (counting a child only as often as it was
available, since another deal may allow other moves), adds one node and values
it. Children are widened progressively in the order the heuristic ranks them,
so a few hundred iterations go deep into good turns instead of wide into poor
ones. The tree holds this seat's turn and, up to `horizon` turns, the next
seats' replies, each seat choosing for itself. A leaf is valued by ending the
turn under way there (phases 3 and 4, T14/T15) and judging with the heuristic; a card drawn
there is played with a random drift, or with `judge` (hard) the best of the drifts ranked.

With `reuse` (time budgets only), the subtree under the move played is kept for the seat's next
decision, keyed by the view that move leads to: a turn's later actions start from what the first
search learnt of them instead of from nothing. A move that shows a card leads to a view the kept
tree matches only if the card shown is the one its deal assumed; otherwise the tree is not found.
"""

from __future__ import annotations

import json
import math
import time

from ..engine import advance
from ..legal import drift_pairs, drift_landscape
from ..listing import legal_actions
from ..view import view
from .determinise import determinise, unseen_cards
from .greedy import greedy_action
from .heuristic import values
from .randombot import random_action

EXPLORE = 0.5   # UCB1 exploration constant, on values squashed to 0..1 (medium; hard passes its own)
# Sibling moves' values differ by a few hundredths while 0.5 x sqrt(log n / visits) is a few tenths:
# at 0.5 every widened move gets about the same visits and the one played is searched no deeper than
# the rest. Hard explores at 0.08 ("explore" in its budget), so its extra iterations go down the lines
# it values best; medium keeps 0.5.
SCALE = 4.0     # points of lead that make a value of about 0.73
DRIFTS = 40     # drifts ranked per node below the root at most (a sample when there are more; "drifts" in a
# budget: hard ranks 12, so an iteration costs about 0.65 of one at 40 and a Pi buys it some 1.5-2x the
# iterations; the root always ranks every legal move)
# A move's one-move-ahead judgement (its rank's value) counts in its mean as this many visits
# ("progressive bias"): with the few dozen iterations a Pi buys medium, a move's first visits
# alone are noise, and the choice followed them away from what greedy (easy) would play.
PRIOR_VISITS = 2.0
KEPT = 32       # subtrees kept for next decisions at most (several games, several computer seats)
_KEPT: dict = {}  # view as JSON -> the Node under the move that led to it


class Node:
    """Statistics of one decision point as this seat sees it."""

    __slots__ = ("children", "visits", "total", "avail", "ranked", "prior")

    def __init__(self):
        self.children = {}   # key -> Node
        self.visits = 0
        self.total = 0.0
        self.avail = {}      # key -> times the move was legal when this node was passed
        self.ranked = {}     # (phase, landscape, ap) -> [(key, command)] best first
        self.prior = {}      # key -> the move's judgement when last ranked (0..1, as a value)


def key_of(command: dict) -> tuple:
    """A hashable key for a command."""
    return tuple(sorted((k, repr(v)) for k, v in command.items()))


def search_action(v: dict, rng, seconds: float | None = None, iterations: int | None = None,
                  horizon: int = 2, reuse: bool = False, explore: float = EXPLORE, judge: bool = False,
                  drifts: int = DRIFTS, prior: float = PRIOR_VISITS) -> dict:
    """The most visited move after `iterations` iterations or `seconds` of search."""
    if v["phase"] == "place":
        return greedy_action(determinise(v, rng), rng, unseen_cards(v), seconds)
    # Only with a time budget: an iterations budget promises the same move for the same position,
    # whatever this process searched before.
    reuse = reuse and iterations is None
    root = (_KEPT.pop(_key(v), None) if reuse else None) or Node()
    root.ranked.clear()  # a kept node's moves were ranked as an inner node: from a sample of drifts
    if iterations is None and seconds is None:
        seconds = 1.0
    deadline = time.perf_counter() + seconds if seconds is not None else None
    if deadline is not None:
        # Judge the moves at the root first, within half the time: on a loaded machine judging
        # them all could take the whole budget, and the search would then overrun it
        # by as much again.
        _ranked(root, determinise(v, rng), rng, root=True, deadline=deadline - seconds / 2)
    else:
        _ranked(root, determinise(v, rng), rng, root=True)
    forced = _forced(root)
    if forced is not None:
        return forced
    # A kept tree's node gathered the deals its search tried: after a draw, drifts of landscapes other
    # than the card now shown (T9, T11). Only the moves legal here stay, or one of those could be chosen.
    legal = {k for ranked in root.ranked.values() for k, _ in ranked}
    for k in [k for k in root.children if k not in legal]:
        del root.children[k]
        root.avail.pop(k, None)
    done, last, started = 0, 0.0, time.perf_counter()
    # An iteration is started only if one as long as the last still fits: the budget is a bound.
    while (iterations is None or done < iterations) and (deadline is None or done == 0
                                                         or time.perf_counter() + last < deadline):
        began = time.perf_counter()
        _iterate(root, determinise(v, rng), rng, horizon, deadline, explore, judge, drifts, prior)
        last = time.perf_counter() - began
        done += 1
        if _settled(root, _left(done, iterations, deadline, started)):
            break
    best = max(root.children.values(), key=lambda child: child.visits)
    key = next(k for k, child in root.children.items() if child is best)
    command = dict(_command(root, key))
    if reuse:
        _keep(v, command, best, rng)
    return command


def _key(v: dict) -> str:
    return json.dumps(v, sort_keys=True, separators=(",", ":"))


def _keep(v: dict, command: dict, child: Node, rng) -> None:
    """Keep `child` for the seat's next decision, if the move leaves the turn (and so the seat) to play."""
    _, after = advance(determinise(v, rng), command)
    if after.phase not in ("drift", "actions") or after.current != v["seat"] or not child.visits:
        return
    if len(_KEPT) >= KEPT:
        _KEPT.clear()
    _KEPT[_key(view(after, v["seat"]))] = child


def _forced(root: Node):
    """The only legal move, when the root has one: no search can choose another (no
    budget spent on a forced move). The root's moves do not depend on the deal: its phase and
    action points are public and its landscape is the seat's own card or the card shown."""
    ranked = list(root.ranked.values())
    if len(ranked) == 1 and len(ranked[0]) == 1:
        return dict(ranked[0][0][1])
    return None


def _left(done: int, iterations: int | None, deadline: float | None, started: float) -> float:
    """How many more iterations the budget allows: the rest of the count, or of the time at the
    pace so far."""
    left = math.inf if iterations is None else iterations - done
    if deadline is not None:
        pace = (time.perf_counter() - started) / done
        left = min(left, (deadline - time.perf_counter()) / pace if pace > 0 else math.inf)
    return left


def _settled(root: Node, left: float) -> bool:
    """Whether the most visited move stays the most visited whatever the remaining iterations do:
    the rest of the budget would be wasted (medium and hard answer sooner when the
    choice is clear; with an iteration budget the move played is exactly the same)."""
    if left == math.inf:
        return False
    first = second = 0
    for child in root.children.values():
        if child.visits > first:
            first, second = child.visits, first
        elif child.visits > second:
            second = child.visits
    return first - second > left


def _command(node: Node, key: tuple) -> dict:
    for ranked in node.ranked.values():
        for k, command in ranked:
            if k == key:
                return command
    raise KeyError(key)


def _iterate(root: Node, state, rng, horizon: int, deadline: float | None = None, explore: float = EXPLORE,
             judge: bool = False, drifts: int = DRIFTS, prior: float = PRIOR_VISITS) -> None:
    node, path, ends = root, [], 0
    while state.phase != "over" and ends < horizon:
        ranked = _ranked(node, state, rng, root=node is root, deadline=deadline, drifts=drifts)
        allowed = max(1, int(1 + 1.5 * math.sqrt(node.visits)))
        options = ranked[:allowed]
        for k, _ in options:
            node.avail[k] = node.avail.get(k, 0) + 1
        # A child without a visit (its iteration was dropped at a deadline, maybe in the search whose
        # tree was kept) is new again: UCB needs a visit.
        fresh = [(k, c) for k, c in options if k not in node.children or not node.children[k].visits]
        if fresh:
            k, command = fresh[0]
            child = node.children.get(k) or Node()
            node.children[k] = child
        else:
            k, command = max(options, key=lambda kc: _ucb(node, kc[0], explore, prior))
            child = node.children[k]
        mover = state.current
        events, state = advance(state, command)
        path.append((child, mover))
        node = child
        ended = any(e["type"] == "turn_ended" for e in events)
        ends += ended
        if fresh:
            break
    if deadline is not None and root.visits and time.perf_counter() > deadline:
        # Out of time before the leaf is judged: drop this iteration rather than overrun the
        # budget (its new node keeps no visit and is never chosen; the search ends now).
        return
    worth = _leaf(state, rng, mid_turn=bool(path) and not ended, judge=judge, drifts=drifts)
    root.visits += 1
    for child, mover in path:
        child.visits += 1
        child.total += _squash(worth, mover)


def _ucb(node: Node, key: tuple, explore: float = EXPLORE, prior: float = PRIOR_VISITS) -> float:
    child = node.children[key]
    mean = (child.total + prior * node.prior.get(key, 0.5)) / (child.visits + prior)
    return mean + explore * math.sqrt(math.log(node.avail[key]) / child.visits)


def _ranked(node: Node, state, rng, root: bool = False, deadline: float | None = None, drifts: int = DRIFTS) -> list:
    """The moves at this node, best first by the heuristic one move ahead (cached per deal kind)."""
    tag = (state.phase, drift_landscape(state), state.ap)
    found = node.ranked.get(tag)
    if found is None:
        found, priors = _rank(state, rng, None if root else drifts, deadline)
        node.ranked[tag] = found
        node.prior.update(priors)
    return found


def _rank(state, rng, most: int | None, deadline: float | None = None) -> list:
    seat = state.current
    if state.phase == "start":
        pairs = drift_pairs(state, seat, drift_landscape(state))
        if most is not None and len(pairs) > most:
            pairs = rng.sample(pairs, most)
        commands = [{"type": "play", "tile": [a[0], a[1]], "to": [b[0], b[1]]} for a, b in pairs] or [{"type": "play"}]
        commands += [{"type": "draw"}] if state.deck else []
    else:
        commands = legal_actions(state)
        drifts = [c for c in commands if c["type"] == "drift"]
        if most is not None and len(drifts) > most:
            keep = rng.sample(drifts, most)
            commands = [c for c in commands if c["type"] != "drift"] + keep
    scored = []
    moved = {}  # (from, to) -> the position a move of a herd leaves: the other kind of herd's move may be its twin
    for command in commands:
        if deadline is not None and scored and time.perf_counter() > deadline:
            # Out of time (a slow machine): the moves not judged yet go last, unjudged.
            scored.append((-1.0, key_of(command), command))
            continue
        if command["type"] == "draw":
            value = _draw_value(state, seat, scored)
        else:
            _, after = advance(state, command)
            if command["type"] == "move" and _twin(moved, command, after):
                continue
            value = _squash(values(after), seat)
        scored.append((value, key_of(command), command))
    scored.sort(key=lambda t: -t[0])
    return [(k, c) for _, k, c in scored], {k: max(0.0, value) for value, k, _ in scored}


def _twin(moved: dict, command: dict, after) -> bool:
    """Whether a move of a spent herd and one of a fresh herd between the same places (T12, "fresh") both
    listed leave the very same position, as they do with the turn's last point (the turn ends: which herd
    could still reproduce no longer matters). Listed twice, the best move had its visits split between
    twins and the choice (the most visited) could go to the next move; only the first is kept."""
    ends = (tuple(command["from"]), tuple(command["to"]))
    other = moved.get(ends)
    if other is None:
        moved[ends] = after
        return False
    return (other.spent == after.spent and other.ap == after.ap and other.phase == after.phase
            and other.current == after.current and other.herds == after.herds)


def _draw_value(state, seat: int, scored: list) -> float:
    """A draw's prior: about as good as the hand's best play (the search learns the rest)."""
    return max((v for v, _, _ in scored), default=0.5) - 0.01


def _leaf(state, rng, mid_turn: bool, judge: bool = False, drifts: int = DRIFTS) -> list:
    """Finish the turn under way (the seat stops acting) and judge the position: each seat's worth.

    A drawn card's drift is random, or with `judge` the best of the drifts ranked (a sample of DRIFTS)."""
    if mid_turn:
        while state.phase in ("start", "drift"):
            if judge and state.phase == "drift":
                ranked = _rank(state, rng, drifts)[0]
                command = ranked[0][1] if ranked else random_action(state, rng)
            else:
                command = random_action(state, rng)
            _, state = advance(state, command)
        if state.phase == "actions":
            _, state = advance(state, {"type": "end_turn"})
    return values(state)


def _squash(worth: list, seat: int) -> float:
    lead = worth[seat] - max(w for s, w in enumerate(worth) if s != seat)
    return 1.0 / (1.0 + math.exp(-lead / SCALE))
