"""No computer opponent thinks over 2 s, on a loaded machine, at any level and 2-5 players.

A person waits for the computer seats at the table: a decision over 2 s feels like a
frozen screen. Greedy ("easy") had no time bound (4.26 s for one 4-player decision on
a loaded machine); it now judges moves in a random order until its budget (0.35 s)
is spent. The search levels stop at theirs (0.5 s, 1.5 s). This test keeps both cores busy
with eight spinning processes (a load of about 4 per core) and takes the
decisions with each level's real default budget, where a game has the most moves to
judge: the 5-player map late in the game, and the first placements.

A bound, not a speed figure: the 2 s is the promise; the budgets' margin is in
docs/PERFORMANCE.md.
"""

from __future__ import annotations

import multiprocessing
import random
import time

import pytest

import trias
from trias.bots import DEFAULT_BUDGET, choose
from trias.bots.randombot import random_action

BOUND_SECONDS = 2.0
SPINNERS = 8  # a load of about 4 per core (the review saw greedy take 4.26 s at loads of 9-17)

# Its eight spinners load both cores for everyone, and it times the bots: run alone (run.py's serial pass).
pytestmark = pytest.mark.serial("loads both cores with spinning processes and times the bots")


def _spin(stop) -> None:
    while not stop.is_set():
        sum(i * i for i in range(10_000))


@pytest.fixture
def both_cores_busy():
    ctx = multiprocessing.get_context("fork")
    stop = ctx.Event()
    spinners = [ctx.Process(target=_spin, args=(stop,), daemon=True) for _ in range(SPINNERS)]
    for spinner in spinners:
        spinner.start()
    yield
    stop.set()
    for spinner in spinners:
        spinner.join(timeout=5)
        if spinner.is_alive():
            spinner.kill()


def _hardest_positions(players: int, seed: int) -> list:
    """A placement at the start, and the positions with the most legal moves of one random game."""
    state, _ = trias.new_game(players, seed)
    rng = random.Random(seed)
    first, seen = state, []
    while state.phase != "over":
        if state.phase in ("start", "actions"):
            seen.append((len(trias.legal_actions(state)), len(seen), state))
        _, state = trias.handle(state, random_action(state, rng))
    seen.sort(key=lambda t: (-t[0], t[1]))
    return [first] + [s for _, _, s in seen[:2]]


@pytest.fixture(scope="module")
def hardest_positions() -> dict:
    """{players: positions}, worked out once for the three levels and before the spinners start (a module fixture
    comes before a test's own): random games played to the end under eight spinners took 5-24 s a level, untimed."""
    return {players: _hardest_positions(players, seed=players * 7) for players in (2, 3, 4, 5)}


def _timed(state, level: str) -> tuple:
    """(seconds, command) of one decision at the level's real budget."""
    started = time.perf_counter()
    command = choose(trias.view(state, state.current), level, DEFAULT_BUDGET[level], random.Random(1))
    return time.perf_counter() - started, command


@pytest.mark.parametrize("level", ["easy", "medium", "hard"])
def test_no_level_thinks_over_two_seconds_at_2_to_5_players_with_both_cores_busy(level, hardest_positions,
                                                                                 both_cores_busy):
    slowest = (0.0, None)
    for players, states in hardest_positions.items():
        for state in states:
            # Over the bound, once more, the shorter counted: a machine this loaded can stall a process
            # for seconds now and then (seen once in CI: 5.3 s for a decision whose work takes
            # milliseconds); a level with no bound (greedy before) is slow both times.
            took, command = _timed(state, level)
            if took >= BOUND_SECONDS:
                took = min(took, _timed(state, level)[0])
            assert trias.is_legal(state, command)
            slowest = max(slowest, (took, (players, state.phase)), key=lambda t: t[0])
    assert slowest[0] < BOUND_SECONDS, f"{level} took {slowest[0]:.2f} s at {slowest[1]}"
