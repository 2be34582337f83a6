"""Harvest at the bank (R4, R11-R15)."""

from __future__ import annotations

from bank.game import fields
from bank.errors import RuleError
from bank.game.state import team_account
from bank.game.turn import Turn
from bank.game.rules.common import card, check_not_cooling_down, role_of


def harvest_amount(turn: Turn, team: str, resource: str) -> int:
    """Base tokens, doubled by buildings, then the team bonus which is never doubled (R4, R12)."""
    config, state = turn.config, turn.state
    amount = config.harvest_base
    for building_id in state.buildings[team]:
        amount *= config.buildings[building_id].harvest_multiplier.get(resource, 1)
    if state.options.get("team_bonus") and config.teams[team].resource == resource:
        amount += config.team_bonus
    return amount


def dice_per_token(turn: Turn, team: str) -> int:
    """Bonus dice per harvested token, from buildings such as the laboratory (R13)."""
    return sum(turn.config.buildings[b].dice_per_harvested_token for b in turn.state.buildings[team])


def harvest(turn: Turn, cmd: dict) -> None:
    """A harvester collects one kind of resource (R11); never a joker (R7)."""
    config = turn.config
    team = fields.team(cmd, config)
    card_id = card(turn, cmd, team)
    if not role_of(turn, card_id).harvests:
        raise RuleError("not_a_harvester", f"{card_id} cannot harvest; only a harvester card can (R11)", card=card_id)
    harvestable = [r for r, res in config.resources.items() if res.harvestable]
    resource = fields.choice(cmd, "resource", harvestable, "harvestable resource")
    check_not_cooling_down(turn, team, card_id)
    _check_interval(turn, team, card_id)
    amount = harvest_amount(turn, team, resource)
    turn.emit({"type": "harvested", "team": team, "card": card_id, "resource": resource, "amount": amount, "clock": turn.clock})
    turn.issue(resource, amount, team_account(team), "harvest")
    turn.roll_dice(team, amount * dice_per_token(turn, team), "harvest")


def _check_interval(turn: Turn, team: str, card_id: str) -> None:
    """Optional minimum time between two harvests of one card (R14)."""
    interval = turn.config.harvest_interval
    last = turn.state.last_harvest.get(f"{team}/{card_id}")
    if interval and last is not None and turn.clock - last < interval:
        wait = interval - (turn.clock - last)
        raise RuleError("harvest_too_soon", f"{team} {card_id} harvested {turn.clock - last:.0f} s ago; "
                        f"bring the tokens to the base and come back in {wait:.0f} s (R14)",
                        team=team, card=card_id, seconds_left=round(wait))
