"""Checks shared by several rules: role cards, cooldowns, discounted costs."""

from __future__ import annotations

from bank.game import fields
from bank.errors import CommandError, RuleError
from bank.game.turn import Turn


def card(turn: Turn, cmd: dict, team: str, name: str = "card") -> str:
    """A role card the team holds, e.g. 'harvester-2' (R9)."""
    cards = turn.config.cards(tuple(turn.state.extra_cards[team]))
    return fields.choice(cmd, name, cards, "card")


def role_of(turn: Turn, card_id: str):
    return turn.config.role_of(card_id)


def check_not_cooling_down(turn: Turn, team: str, card_id: str) -> None:
    """A player still waiting after a fight may not play yet (R19)."""
    until = turn.state.cooldowns.get(f"{team}/{card_id}", 0)
    left = until - turn.clock
    if left > 0:
        raise RuleError("card_cooling_down", f"{team} {card_id} must wait {left:.0f} s more after a fight before playing",
                        team=team, card=card_id, seconds_left=round(left))


def discounted_cost(turn: Turn, team: str, cost: dict, kind: str) -> dict:
    """A cost less the discounts of the team's buildings, never below zero (R21, R22)."""
    result = dict(cost)
    for building_id in turn.state.buildings[team]:
        building = turn.config.buildings[building_id]
        if kind in building.discount_applies_to:
            for resource, off in building.discount.items():
                if resource in result:
                    result[resource] = max(0, result[resource] - off)
    return {r: n for r, n in result.items() if n}


def two_teams(turn: Turn, cmd: dict, first: str, second: str) -> tuple[str, str]:
    """Two different teams named by two fields."""
    a, b = fields.team(cmd, turn.config, first), fields.team(cmd, turn.config, second)
    if a == b:
        raise CommandError("same_team", f"'{first}' and '{second}' are both {a}; they must be two different teams")
    return a, b


def require_tokens(turn: Turn, team: str, tokens: dict, what: str) -> None:
    """The team must hold these exact tokens (no joker stands in): trades, fights, exchanges."""
    stock = turn.state.stock(team)
    short = {r: n - stock.get(r, 0) for r, n in tokens.items() if n > stock.get(r, 0)}
    if short:
        missing = ", ".join(f"{n} {r}" for r, n in short.items())
        raise RuleError("not_enough_tokens", f"{team} does not hold the tokens {what}: missing {missing}", team=team, missing=short)
