"""The bank's cheap "does the clock have anything to do?" must agree with the tick itself.

Bank asks engine.tick_due before every command and every second instead of
deciding a whole tick on a copy of the state; if the two disagreed, a session
end or an event deadline would be missed (or a tick decided for nothing).
"""

from bank.game.engine import tick_due
from play import Game

SESSION = 90 * 60


def agrees(g) -> bool:
    """tick_due says yes exactly when a tick at this moment emits events (checked on a copy)."""
    probe = Game.__new__(Game)
    probe.__dict__ = {**g.__dict__, "state": g.state.copy(), "rows": list(g.rows)}
    return tick_due(g.state, g.config, g.now) == bool(probe.tick())


def test_tick_due_matches_the_tick_through_deadlines_pauses_sessions_and_time_over():
    g = Game(start=False)
    assert agrees(g) and not tick_due(g.state, g.config, g.now)  # before the start
    g.do(type="start_clock")
    g.do(type="open_event", title="Flora drive", accepts=["flora"], rewards=[{"points": 5}], deadline_minutes=10)
    g.do(type="open_event", title="No deadline", accepts=["water"], rewards=[{"points": 1}])
    checkpoints = [599, 1, 0.5, 300, SESSION - 900.5, 1, 30]
    for seconds in checkpoints:
        g.wait(seconds)
        assert agrees(g), f"disagree at game time {g.state.elapsed(g.now)}"
        if tick_due(g.state, g.config, g.now):
            g.tick()
            assert agrees(g) and not tick_due(g.state, g.config, g.now)
    assert g.state.clock["session_over"]  # the first session ended on a tick
    g.wait(3600)                           # paused between sessions: nothing to do
    assert agrees(g) and not tick_due(g.state, g.config, g.now)
    g.do(type="resume")
    g.wait(SESSION - 1)
    assert agrees(g) and not tick_due(g.state, g.config, g.now)
    g.wait(1)
    assert agrees(g) and tick_due(g.state, g.config, g.now)  # time over
    g.tick()
    assert g.state.clock["status"] == "ended"
    assert agrees(g) and not tick_due(g.state, g.config, g.now)


def test_a_command_without_anything_due_books_no_tick_row(started, run):
    before = started.last_seq
    result = run({"type": "award", "team": "red", "points": 1, "reason": "fair play"})
    assert result.seq == before + 1
    assert [r["type"] for r in started.journal_rows(before)] == ["award"]
