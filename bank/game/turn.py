"""One command being decided: a private working state plus the events so far.

Rules call the helpers here (pay, issue, roll dice, award points); each helper
emits events and applies them to the working state at once, so later checks in
the same command see their effect. The working state is a `Draft` of the live
one (bank/game/state.py): it copies a field the first time the rules touch it, so a
command costs what it touches, however long the game. Nothing reaches
the live state unless the whole command succeeds and `commit()` is taken.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

from bank.game.config_model import GameConfig
from bank.errors import RuleError
from bank.game.state import RESERVE, SUPPLY, GameState, team_account


@dataclass(frozen=True)
class Context:
    """What a command needs from outside the rules: the time, dice, the journal."""

    now: float
    roll: Callable[[int], list]
    lookup: Callable[[int], dict | None] = lambda seq: None


class Turn:
    """The working state of one command."""

    def __init__(self, state: GameState, config: GameConfig, ctx: Context, read_only: bool = False):
        self.before = state
        # A read-only turn (views asking "could this team build X?") never emits: it reads
        # the committed state itself, no draft needed.
        self.state = state if read_only else state.draft()
        self.config = config
        self.ctx = ctx
        self.events: list[dict] = []

    def emit(self, event: dict) -> None:
        """Record an event and apply it to the working state."""
        assert self.state is not self.before, "a read-only turn must not emit events"
        self.state.apply(event)
        self.events.append(event)

    def commit(self) -> GameState:
        """The state after this command, sharing what it did not touch with `before`."""
        return self.state if self.state is self.before else self.state.commit()

    @property
    def clock(self) -> float:
        """Game seconds played now (R34)."""
        return round(self.state.elapsed(self.ctx.now), 3)

    def transfer(self, src: str, dst: str, resource: str, amount: int, reason: str) -> None:
        """Move tokens between two accounts; a zero amount records nothing."""
        if amount:
            self.emit({"type": "transfer", "from": src, "to": dst, "resource": resource, "amount": amount, "reason": reason})

    def points(self, team: str, points: int, reason: str) -> None:
        """Add (or remove) reputation points with their reason (R31)."""
        if points:
            self.emit({"type": "reputation", "team": team, "points": points, "reason": reason})

    def pay(self, team: str, cost: dict, to: str, reason: str) -> dict:
        """Take a cost from a team's stock, jokers covering what is missing (R6, R23)."""
        plan = payment_plan(self.state.stock(team), cost, self.config.joker, self.config, team)
        for resource, amount in plan.items():
            self.transfer(team_account(team), to, resource, amount, reason)
        return plan

    def issue(self, resource: str, amount: int, to: str, reason: str) -> None:
        """Hand tokens out of the bank's reserve (R8).

        When the reserve is short, the bank still pays (the facilitators have
        spare tokens) and records the shortfall as drawn from the supply, unless
        config says to refuse.
        """
        available = self.state.balance(RESERVE, resource)
        missing = max(0, amount - available)
        if missing and self.config.refuse_when_empty:
            raise RuleError("bank_reserve_empty", f"the bank has only {available} {resource} left and needs {amount}; record a refill first",
                            resource=resource, available=available, needed=amount)
        self.transfer(RESERVE, to, resource, amount - missing, reason)
        if missing:
            self.transfer(SUPPLY, to, resource, missing, reason)
            self.emit({"type": "shortfall", "resource": resource, "amount": missing})
        left = self.state.balance(RESERVE, resource)
        crossed = left < self.config.low_stock_warning <= available
        if crossed or missing:
            self.emit({"type": "low_stock", "resource": resource, "left": left})

    def roll_dice(self, team: str, count: int, reason: str) -> list:
        """Roll bonus dice on the server and give the team one token per face (R13, R15)."""
        if count <= 0:
            return []
        faces = list(self.ctx.roll(count))
        self.emit({"type": "dice_rolled", "team": team, "faces": faces, "reason": reason})
        for face in faces:
            self.issue(face, 1, team_account(team), f"die:{reason}")
        return faces


def payment_plan(stock: dict, cost: dict, joker: str, config: GameConfig, team: str) -> dict:
    """What a team pays for a cost: its own tokens first, jokers for the rest (R23).

    Raises `not_enough_tokens` naming every missing resource when even the
    jokers cannot cover it.
    """
    plan, short = {}, {}
    for resource, need in cost.items():
        if resource == joker:
            continue
        have = stock.get(resource, 0)
        plan[resource] = min(have, need)
        if need > have:
            short[resource] = need - have
    jokers_needed = sum(short.values()) + cost.get(joker, 0)
    jokers_held = stock.get(joker, 0)
    if jokers_needed > jokers_held:
        missing = ", ".join(f"{n} {r}" for r, n in short.items())
        raise RuleError("not_enough_tokens",
                        f"{team} is missing {missing} and has {jokers_held} joker(s) to stand in; "
                        f"needs {describe(cost)}",
                        team=team, missing=short, jokers=jokers_held, cost=cost)
    if jokers_needed:
        plan[joker] = jokers_needed
    return {r: n for r, n in plan.items() if n}


def describe(amounts: dict) -> str:
    """'15 energy, 10 water' for messages."""
    return ", ".join(f"{n} {r}" for r, n in amounts.items() if n) or "nothing"
