"""The game clock: start, pauses, sessions, time over and the end of the game (R34, R35.1)."""

import pytest

from bank.game.engine import COMMANDS
from play import Game, refused

PLAY = sorted(kind for kind, (_, phase) in COMMANDS.items() if phase == "play")
SESSION = 90 * 60     # 180 minutes in 2 sessions
DURATION = 180 * 60



def to_session_end(g):
    """Play until the current session's end and let the bank's tick close it."""
    clock = g.state.clock
    g.wait(SESSION * clock["session"] - g.state.elapsed(g.now))
    return g.tick()


def to_time_over(g):
    """Play both sessions to the end of the playing time."""
    to_session_end(g)
    g.do(type="resume")
    return to_session_end(g)


@pytest.mark.parametrize("kind", PLAY)
def test_r34_play_commands_refused_before_the_start(kind):
    g = Game(start=False)
    refused(g, "clock_not_running", "start the clock", type=kind)


@pytest.mark.parametrize("kind", PLAY)
def test_r34_play_commands_refused_while_paused(kind):
    g = Game()
    g.do(type="pause")
    refused(g, "clock_not_running", "resume the clock", type=kind)


def test_r34_admin_commands_work_while_paused():
    g = Game()
    g.do(type="pause")
    g.do(type="award", team="red", points=2, reason="fair play")
    assert g.rep("red") == 2


def test_r34_starting_twice_refused():
    g = Game()
    refused(g, "clock_already_started", "resume", type="start_clock")


def test_r34_pausing_a_paused_clock_refused():
    g = Game()
    g.do(type="pause")
    refused(g, "clock_not_running", "paused", type="pause")


def test_r34_resuming_a_running_clock_refused():
    g = Game()
    refused(g, "clock_not_paused", "running", type="resume")


def test_r34_game_time_stops_while_paused():
    g = Game()
    g.wait(100)
    g.do(type="pause")
    g.wait(5000)
    g.do(type="resume")
    g.wait(20)
    assert g.state.elapsed(g.now) == 120


def test_r34_a_paused_game_survives_a_restart():
    """The saved state (what a restart reloads) still says paused, with the time played."""
    g = Game()
    g.wait(100)
    g.do(type="pause")
    assert g.replay().clock == {"status": "paused", "session": 1, "elapsed": 100.0, "since": None, "session_over": False}


def test_r34_no_session_end_before_the_boundary():
    g = Game()
    g.wait(SESSION - 1)
    assert g.tick() == []
    assert g.state.clock["status"] == "running"


def test_r34_session_pauses_by_itself_at_the_boundary():
    g = Game()
    events = to_session_end(g)
    assert events == [{"type": "session_ended", "session": 1, "elapsed": SESSION}]
    assert g.state.clock["status"] == "paused" and g.state.clock["session_over"]


def test_r34_a_late_tick_does_not_count_time_past_the_boundary():
    g = Game()
    g.wait(SESSION + 500)
    g.tick()
    assert g.state.elapsed(g.now) == SESSION


def test_r34_a_tick_late_past_the_total_time_ends_only_the_session():
    """The bank machine was off while the clock ran: session 1 ends at its boundary, the game goes on."""
    g = Game()
    g.wait(DURATION * 2)
    assert g.tick() == [{"type": "session_ended", "session": 1, "elapsed": SESSION}]
    g.do(type="resume")
    assert g.state.clock["session"] == 2 and g.state.ended is None


def test_r34_play_refused_after_the_session_ended():
    g = Game()
    to_session_end(g)
    refused(g, "clock_not_running", "resume the clock", type="harvest", team="blue", card="harvester-1",
            resource="water")


def test_r34_ticks_while_paused_change_nothing():
    g = Game()
    g.do(type="pause")
    g.wait(DURATION * 2)
    assert g.tick() == []
    assert g.state.clock["status"] == "paused"


def test_r34_resume_starts_session_2():
    g = Game()
    to_session_end(g)
    g.do(type="resume")
    assert g.state.clock["session"] == 2 and g.state.clock["status"] == "running"
    g.do(type="harvest", team="blue", card="harvester-1", resource="water")


def test_r34_a_pause_inside_a_session_keeps_the_session():
    g = Game()
    g.do(type="pause")
    g.do(type="resume")
    assert g.state.clock["session"] == 1


def test_r34_end_session_early():
    g = Game()
    g.wait(1000)
    events = g.do(type="end_session")
    assert events == [{"type": "session_ended", "session": 1, "elapsed": 1000}]
    g.wait(50)
    g.do(type="resume")
    assert g.state.clock["session"] == 2 and g.state.elapsed(g.now) == 1000


def test_r34_end_session_from_a_pause():
    g = Game()
    g.do(type="pause")
    g.do(type="end_session")
    g.do(type="resume")
    assert g.state.clock["session"] == 2


def test_r34_ending_a_session_twice_refused():
    g = Game()
    g.do(type="end_session")
    refused(g, "no_session_running", "no session", type="end_session")


def test_r34_ending_the_last_session_refused():
    g = Game()
    to_session_end(g)
    g.do(type="resume")
    refused(g, "last_session", "end the game", type="end_session")


def test_r34_after_an_early_end_session_2_runs_to_the_full_time():
    """Ending session 1 early does not shorten the game: session 2 ends at the total playing time."""
    g = Game()
    g.wait(1000)
    g.do(type="end_session")
    g.do(type="resume")
    g.wait(DURATION - 1000 - 1)
    assert g.tick() == []
    g.wait(1)
    assert g.tick()[-1]["reason"] == "time"


def test_r35_time_over_most_reputation_wins():
    g = Game()
    g.do(type="award", team="red", points=4, reason="fair play")
    g.do(type="award", team="blue", points=3, reason="fair play")
    events = to_time_over(g)
    assert events == [{"type": "game_ended", "reason": "time", "winners": ["red"], "elapsed": DURATION}]
    assert g.state.ended == {"reason": "time", "winners": ["red"], "elapsed": DURATION}
    assert g.state.clock["status"] == "ended"


def test_r35_time_over_with_a_tie_shows_several_winners():
    g = Game()
    g.do(type="award", team="red", points=4, reason="fair play")
    g.do(type="award", team="green", points=4, reason="fair play")
    g.do(type="award", team="blue", points=1, reason="fair play")
    to_time_over(g)
    assert g.state.ended["winners"] == ["red", "green"]


def test_r35_time_over_with_no_points_is_a_tie_of_all():
    g = Game()
    to_time_over(g)
    assert g.state.ended["winners"] == ["blue", "yellow", "red", "green"]


def test_r35_end_game_stops_with_most_reputation_winning():
    g = Game()
    g.do(type="award", team="yellow", points=2, reason="fair play")
    g.wait(300)
    g.do(type="end_game")
    assert g.state.ended == {"reason": "stopped", "winners": ["yellow"], "elapsed": 300}


def test_r35_end_game_before_the_start_refused():
    g = Game(start=False)
    refused(g, "clock_not_started", "not started", type="end_game")


@pytest.mark.parametrize("kind", sorted(k for k in COMMANDS if k != "tick"))
def test_r35_every_command_refused_after_the_end(kind):
    g = Game()
    g.do(type="award", team="green", points=1, reason="fair play")
    g.do(type="end_game")
    refused(g, "game_over", "won by green", type=kind)


def test_r35_a_tick_after_the_end_changes_nothing():
    g = Game()
    to_time_over(g)
    ended = g.state.copy()
    g.wait(3600)
    assert g.tick() == []
    assert g.state == ended


def test_r34_r35_the_clock_keeps_the_invariants_and_replays():
    g = Game()
    g.do(type="harvest", team="blue", card="harvester-1", resource="water")
    g.do(type="pause")
    g.do(type="resume")
    to_session_end(g)
    g.do(type="resume")
    g.do(type="harvest", team="red", card="harvester-2", resource="flora")
    to_session_end(g)
    assert g.state.ended["reason"] == "time"
    assert g.problems() == []
    assert g.replay() == g.state
