"""Set-up, the game clock with sessions and pauses, and the tick that ends sessions (R1-R3, R34)."""

from __future__ import annotations

from bank.game.config_model import GameConfig
from bank.errors import RuleError
from bank.game.state import RESERVE, SUPPLY, GameState, team_account
from bank.game.turn import Turn
from bank.game.rules.endgame import most_reputation
from bank.game.rules.game_events import close, close_all


def setup(turn: Turn, cmd: dict) -> None:
    """Fill the bank's reserve and give each team its starting tokens (R3, R8)."""
    config = turn.config
    if turn.state.balances:
        raise RuleError("already_set_up", "this game is already set up; create a new game to start again")
    for resource, amount in config.reserve.items():
        turn.transfer(SUPPLY, RESERVE, resource, amount, "setup")
    for team in config.teams.values():
        start = dict(config.extra_start)
        start[team.resource] = start.get(team.resource, 0) + config.own_colour_tokens
        for resource, amount in start.items():
            turn.issue(resource, amount, team_account(team.id), "setup")


def start_clock(turn: Turn, cmd: dict) -> None:
    """Start the first session."""
    status = turn.state.clock["status"]
    if status != "setup":
        raise RuleError("clock_already_started", f"the clock was already started (it is {status}); use resume after a pause")
    turn.emit({"type": "clock_started", "at": turn.ctx.now})


def pause(turn: Turn, cmd: dict) -> None:
    """Pause the game clock; cooldowns and deadlines stop with it (R34)."""
    if turn.state.clock["status"] != "running":
        raise RuleError("clock_not_running", f"the clock is {turn.state.clock['status']}, not running; nothing to pause")
    turn.emit({"type": "clock_paused", "at": turn.ctx.now, "elapsed": turn.clock})


def resume(turn: Turn, cmd: dict) -> None:
    """Resume after a pause or start the next session (R34)."""
    if turn.state.clock["status"] != "paused":
        raise RuleError("clock_not_paused", f"the clock is {turn.state.clock['status']}, not paused; nothing to resume")
    turn.emit({"type": "clock_resumed", "at": turn.ctx.now})


def hold_clock(turn: Turn, cmd: dict) -> None:
    """The bank saw the machine's clock jump, or was off too long: pause, end nothing (R34).

    Sent by the bank itself (bank/services/timeline.py). Game time stops where the bank last
    measured it; the lead reads what was seen on every facilitator page and resumes.
    """
    if turn.state.clock["status"] == "running":
        turn.emit({"type": "clock_paused", "at": turn.ctx.now, "elapsed": turn.clock, "cause": cmd["cause"]})


def end_session(turn: Turn, cmd: dict) -> None:
    """End the current session early; the next resume starts the next one (R34)."""
    clock = turn.state.clock
    if clock["status"] not in ("running", "paused") or clock["session_over"]:
        raise RuleError("no_session_running", "no session is under way to end")
    if clock["session"] >= turn.config.sessions:
        raise RuleError("last_session", "this is the last session; end the game instead")
    turn.emit({"type": "session_ended", "session": clock["session"], "elapsed": turn.clock})


def end_game(turn: Turn, cmd: dict) -> None:
    """The lead facilitator stops the game: most reputation wins, as when time is over (R35.1)."""
    if turn.state.clock["status"] == "setup":
        raise RuleError("clock_not_started", "the game has not started; there is nothing to end")
    close_all(turn)  # event rewards count before the winner is named (R33, R35 Decision)
    turn.emit({"type": "game_ended", "reason": "stopped", "winners": most_reputation(turn.state), "elapsed": turn.clock})


def tick(turn: Turn, cmd: dict) -> None:
    """Time passing: event deadlines, the end of a session, the end of the game (R33-R35).

    Game time never runs past the end of the current session, even when the
    tick comes late (the bank machine was off while the clock ran): the
    session ends at its boundary and only the last session's end is time over.
    """
    state, config = turn.state, turn.config
    if state.clock["status"] != "running":
        return
    session, session_end, now = _session_time(state, config, turn.clock)
    for event_id in _deadlines_passed(state, now):
        close(turn, event_id)
    if now < session_end:
        return
    if session >= config.sessions:
        close_all(turn)  # event rewards count before the winner is named (R33, R35 Decision)
        turn.emit({"type": "game_ended", "reason": "time", "winners": most_reputation(turn.state), "elapsed": float(config.duration_seconds)})
    else:
        turn.emit({"type": "session_ended", "session": session, "elapsed": session_end})


def tick_due(state: GameState, config: GameConfig, now: float) -> bool:
    """Whether a tick at wall time `now` would do anything: the same tests as tick(), no copy.

    The bank asks this before every command and every second, so the usual
    answer (nothing to do) must not cost a copy of the whole state.
    """
    if state.clock["status"] != "running":
        return False
    _, session_end, clock = _session_time(state, config, round(state.elapsed(now), 3))
    return clock >= session_end or bool(_deadlines_passed(state, clock))


def _session_time(state: GameState, config: GameConfig, clock: float) -> tuple[int, float, float]:
    """(current session, the game second it ends, game time capped at that end) (R34)."""
    session, per_session = state.clock["session"], config.duration_seconds / config.sessions
    session_end = min(config.duration_seconds, round(per_session * session, 3))
    return session, session_end, min(clock, session_end)


def _deadlines_passed(state: GameState, now: float) -> list:
    """Open game events whose deadline is reached at game time `now` (R33)."""
    deadlines = ((event_id, state.events[event_id].get("deadline")) for event_id in state.open_event_ids())
    return [event_id for event_id, deadline in deadlines if deadline is not None and deadline <= now]
