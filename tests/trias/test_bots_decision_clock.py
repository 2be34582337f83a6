"""A computer seat answers within its seconds: nothing runs inside a decision that its deadline cannot stop.

At a Raspberry Pi's budget easy took up to 1.0 s for a decision of 0.4 s, and medium up to 1.7 s
for one of 0.5 s, while the bots check their deadline between every judged move and every
iteration. The time was Python's cycle collector, started inside decisions by their allocations
and walking every object the process holds (trias/bots/clock.py), and, for easy, the deal and the
listing of the unseen cards made before its clock started. Here: no collection starts inside a
decision, and a decision's seconds count from the moment it is asked, so a decision whose deal
took all its time judges one move and answers. No clock is read for real: the counts are of the
work done (judged moves), which the deadline alone decides.
"""

from __future__ import annotations

import gc
import random
import subprocess
import sys
import time
from pathlib import Path

import pytest

import trias
from trias import bots
from trias.bots import greedy, search
from trias.bots.randombot import random_action

ROOT = Path(__file__).resolve().parents[2]


def positions(players: int, seed: int, every: int = 7) -> list:
    """Views of one random game's positions (every `every`-th decision, placements included)."""
    state, _ = trias.new_game(players, seed)
    rng, out, n = random.Random(seed), [], 0
    while state.phase != "over":
        if n % every == 0:
            out.append(state)
        _, state = trias.handle(state, random_action(state, rng))
        n += 1
    return out


def _inside_a_decision() -> bool:
    frame = sys._getframe(1)
    while frame is not None:
        if frame.f_code is bots._decide.__code__:
            return True
        frame = frame.f_back
    return False


@pytest.fixture
def collections_inside_decisions():
    """Collections that start while a bot decides, with the collector made to run often (every
    50 allocations, as a process holding many objects meets it)."""
    inside = []

    def seen(phase, info):
        if phase == "start" and _inside_a_decision():
            inside.append(info["generation"])

    old = gc.get_threshold()
    gc.set_threshold(50, 5, 5)
    gc.callbacks.append(seen)
    try:
        yield inside
    finally:
        gc.callbacks.remove(seen)
        gc.set_threshold(*old)


@pytest.mark.parametrize("level", ["easy", "medium", "hard"])
def test_no_cycle_collection_starts_inside_a_decision(level, collections_inside_decisions):
    budget = {"iterations": 30, "reuse": True} if level != "easy" else None
    for players in (2, 4):
        for state in positions(players, seed=players)[:8]:
            command = bots.choose(trias.view(state, state.current), level, budget, random.Random(1))
            assert trias.is_legal(state, command)
    assert gc.isenabled()  # let go once the decision is over
    assert collections_inside_decisions == [], f"{len(collections_inside_decisions)} collections inside {level}'s decisions"


def test_a_decision_leaves_the_collector_as_it_found_it():
    state = positions(2, seed=1)[3]
    gc.disable()
    try:
        bots.choose(trias.view(state, state.current), "easy", None, random.Random(1))
        assert not gc.isenabled()  # a caller that holds it off keeps it off
    finally:
        gc.enable()
    bots.choose(trias.view(state, state.current), "easy", None, random.Random(1))
    assert gc.isenabled()


# Run in an interpreter of its own: a pytest worker shares its process with web tests whose server
# threads make cycles of their own at any moment, which gc.collect() counted here (seen once).
_NO_CYCLES = """
import gc, random
import trias
from trias import bots
gc.collect()
gc.disable()
for level in ("easy", "medium", "hard"):
    for players in (2, 4):
        state, _ = trias.new_game(players, 4)
        rng = random.Random(players)
        for _ in range(12):
            if state.phase == "over":
                break
            budget = {"iterations": 10, "reuse": True} if level != "easy" else None
            _, state = trias.handle(state, bots.choose(trias.view(state, state.current), level, budget, rng))
        found = gc.collect()
        assert found == 0, (level, players, found)
"""


def test_the_engine_and_the_bots_leave_no_reference_cycles():
    """What holding the collector off rests on: nothing a decision or a move leaves needs it."""
    run = subprocess.run([sys.executable, "-c", _NO_CYCLES], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr[-2000:]


class SlowDeal:
    """A clock that a deal of the hidden cards moves on by `deal` seconds (a Pi dealing a 5-player
    game's cards), and every reading by a microsecond; and a count of the moves judged."""

    def __init__(self, monkeypatch, deal: float):
        self.now, self.judged = 1000.0, 0
        real_determinise, real_evaluate, real_values = bots.determinise, greedy.evaluate, search.values

        def clock():
            self.now += 1e-6
            return self.now

        def determinise(v, rng):
            self.now += deal
            return real_determinise(v, rng)

        def evaluate(state, seat):
            self.judged += 1
            return real_evaluate(state, seat)

        def values(state):
            self.judged += 1
            return real_values(state)

        monkeypatch.setattr(time, "perf_counter", clock)
        monkeypatch.setattr(bots, "determinise", determinise)
        monkeypatch.setattr(search, "determinise", determinise)
        monkeypatch.setattr(greedy, "evaluate", evaluate)
        monkeypatch.setattr(search, "values", values)


@pytest.mark.parametrize("players", [2, 5])
def test_a_decisions_seconds_count_from_when_it_is_asked(players, monkeypatch):
    """Easy at its 0.4 s, where dealing the hidden cards took 1 s: the time is gone, so it judges one
    move (and, at the start of a turn, prices a draw) and plays it. It started its clock after the deal
    and judged every move, hundreds at 5 players."""
    clock = SlowDeal(monkeypatch, deal=1.0)
    for state in positions(players, seed=11, every=3):
        if state.phase not in ("start", "actions"):
            continue
        clock.judged = 0
        command = bots.choose(trias.view(state, state.current), "easy", {"seconds": 0.4}, random.Random(2))
        assert trias.is_legal(state, command)
        assert clock.judged <= 2, (state.phase, clock.judged, len(trias.legal_actions(state)))


@pytest.mark.parametrize("level", ["easy", "medium", "hard"])
def test_at_a_zero_deadline_a_bot_answers_a_legal_move_at_once(level, monkeypatch):
    """No time at all (a turn's seconds used up): one judged move, or one iteration of the search
    (its root's first move, the move's own leaf), at every kind of position of 2- to 5-player games."""
    clock = SlowDeal(monkeypatch, deal=0.0)
    most = 0
    for players in (2, 3, 4, 5):
        for state in positions(players, seed=players + 20, every=5):
            clock.judged = 0
            command = bots.choose(trias.view(state, state.current), level, {"seconds": 0.0, "reuse": True},
                                  random.Random(3))
            assert trias.is_legal(state, command), (level, players, state.phase, command)
            most = max(most, clock.judged)
    assert most <= 3, f"{level} judged {most} moves with no time"
