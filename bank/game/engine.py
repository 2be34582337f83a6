"""The pure engine: a command in, events out, or a named error and nothing changed.

No Flask, no SQLite, no clock of its own: the caller passes the time and the
dice (`Context`), so the same journal always folds to the same state.
"""

from __future__ import annotations

from bank.game.config_model import GameConfig
from bank.errors import CommandError, RuleError
from bank.game.rules import clock
from bank.game.rules import economy
from bank.game.rules import fights
from bank.game.rules import game_events
from bank.game.rules import harvest
from bank.game.rules import market
from bank.game.rules import reversal
from bank.game.rules import trade
from bank.game.rules import tracks
from bank.game.rules.endgame import end_event
from bank.game.state import GameState
from bank.game.turn import Context, Turn

__all__ = ["Context", "handle", "setup_command", "tick_command", "hold_command", "tick_due", "COMMANDS"]

# Who may do what, when: "play" needs the clock running; "admin" works at any
# time until the game ends; "system" commands come from the bank itself.
COMMANDS = {
    "harvest": (harvest.harvest, "play"),
    "build": (market.build, "play"),
    "buy_animal": (market.buy_animal, "play"),
    "buy_second_pirate": (market.buy_second_pirate, "play"),
    "raise_tracks": (tracks.raise_tracks, "play"),
    "redeem_jokers": (economy.redeem_jokers, "play"),
    "exchange": (economy.exchange, "play"),
    "trade": (trade.trade, "play"),
    "fight": (fights.fight, "play"),
    "contribute": (game_events.contribute, "play"),
    "award": (economy.award, "admin"),
    "refill": (economy.refill, "admin"),
    "inventory": (economy.inventory, "admin"),
    "set_rate": (economy.set_rate, "admin"),
    "set_option": (economy.set_option, "admin"),
    "open_event": (game_events.open_event, "admin"),
    "close_event": (game_events.close_event, "admin"),
    "reverse": (reversal.reverse, "admin"),
    "start_clock": (clock.start_clock, "admin"),
    "pause": (clock.pause, "admin"),
    "resume": (clock.resume, "admin"),
    "end_session": (clock.end_session, "admin"),
    "end_game": (clock.end_game, "admin"),
    "setup": (clock.setup, "system"),
    "tick": (clock.tick, "system"),
    "hold_clock": (clock.hold_clock, "system"),
}


def setup_command(config: GameConfig) -> dict:
    """The first command of every game: fill the reserve, hand out starting tokens."""
    return {"type": "setup"}


def tick_command() -> dict:
    """The bank's own command that lets time pass (sessions, deadlines, time over)."""
    return {"type": "tick"}


def hold_command(cause: dict) -> dict:
    """The bank's own command that pauses the clock after a jump of the machine's clock (R34)."""
    return {"type": "hold_clock", "cause": cause}


def tick_due(state: GameState, config: GameConfig, now: float) -> bool:
    """Whether the clock has something to do at wall time `now` (a tick would emit events)."""
    return clock.tick_due(state, config, now)


def handle(state: GameState, config: GameConfig, command: dict, ctx: Context) -> tuple[list, GameState]:
    """Decide a command: (events, new state), or raise a BankError with nothing changed."""
    if not isinstance(command, dict):
        raise CommandError("not_a_command", "a command must be a JSON object with a 'type'")
    kind = command.get("type")
    if kind not in COMMANDS:
        raise CommandError("unknown_command", f"unknown command type {str(kind)[:40]!r}; known: {', '.join(sorted(COMMANDS))}")
    rule, phase = COMMANDS[kind]
    _check_phase(state, kind, phase)
    turn = Turn(state, config, ctx)
    rule(turn, command)
    ended = end_event(state, turn.state, config, turn.clock)
    if ended:
        # The winner is named by the condition met (R35.2, R35.3); open events still pay
        # their rewards rather than keep the tokens given (R33, R35 Decision).
        game_events.close_all(turn)
        turn.emit(ended)
    return turn.events, turn.commit()


def _check_phase(state: GameState, kind: str, phase: str) -> None:
    status = state.clock["status"]
    if status == "ended" and kind != "tick":
        winners = ", ".join(state.ended["winners"]) if state.ended else "?"
        raise RuleError("game_over", f"the game is over (won by {winners}); nothing more can be booked. Export the journal for the report")
    held = state.clock.get("held")
    if phase == "play" and status == "paused" and held:
        # The bank paused the game itself after the machine's clock jumped (R34): a banker at the
        # counter must learn that it was not a facilitator's pause, and who can resume.
        seconds = int(round(held.get("seconds", 0)))
        raise RuleError("clock_held", f"the bank paused the game itself: the machine's clock jumped by {seconds:+d} s, "
                        "not counted as game time (R34); the lead checks the machine's time and presses Resume "
                        "on the admin page, then try again", status=status, seconds=seconds)
    if phase == "play" and status != "running":
        hint = {"setup": "the game has not started yet: start the clock",
                "paused": "the game is paused: resume the clock"}.get(status, "start the clock")
        raise RuleError("clock_not_running", f"{hint} first, then try again", status=status)
