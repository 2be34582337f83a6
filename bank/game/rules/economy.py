"""Jokers, the exchange rate, the reserve, inventories, awards and live options (R6, R8, R31, R32)."""

from __future__ import annotations

from bank.game import fields
from bank.errors import CommandError, RuleError
from bank.game.state import RESERVE, SUPPLY, team_account
from bank.game.turn import Turn
from bank.game.rules.common import require_tokens

OPTIONS = ("team_bonus", "everyone_fights", "second_pirate")


def redeem_jokers(turn: Turn, cmd: dict) -> None:
    """Jokers handed back to the bank become reputation points (R6)."""
    config = turn.config
    team = fields.team(cmd, config)
    count = fields.whole(cmd, "jokers")
    held = turn.state.balance(team_account(team), config.joker)
    if count > held:
        raise RuleError("not_enough_tokens", f"{team} has {held} joker(s), not {count}", team=team, missing={config.joker: count - held})
    turn.transfer(team_account(team), RESERVE, config.joker, count, "redeem_jokers")
    turn.points(team, count * config.points_per_joker, "redeem_jokers")


def exchange(turn: Turn, cmd: dict) -> None:
    """Resources of any kinds turned into points at the current rate (R32)."""
    config, rate = turn.config, turn.state.rate
    team = fields.team(cmd, config)
    plain = [r for r in config.resources if r != config.joker]
    tokens = fields.amounts(cmd, "tokens", plain)
    total = sum(tokens.values())
    if total % rate["tokens"]:
        lower = total - total % rate["tokens"]
        raise RuleError("exchange_not_a_multiple", f"the rate is {rate['tokens']} tokens for {rate['points']} point(s); "
                        f"{total} tokens is not a multiple: give " + (f"{lower} or {lower + rate['tokens']}" if lower else str(rate['tokens'])),
                        total=total, rate=dict(rate), tokens=rate["tokens"], points=rate["points"],
                        lower=lower or rate["tokens"], upper=lower + rate["tokens"])  # the sentence's numbers
    require_tokens(turn, team, tokens, "to exchange")
    turn.pay(team, tokens, RESERVE, "exchange")
    points = total // rate["tokens"] * rate["points"]
    turn.emit({"type": "exchange", "team": team, "tokens": tokens, "points": points, "rate": dict(rate)})
    turn.points(team, points, "exchange")


def set_rate(turn: Turn, cmd: dict) -> None:
    """Facilitators change the exchange rate live; it applies from now on (R32)."""
    tokens, points = fields.whole(cmd, "tokens"), fields.whole(cmd, "points")
    if {"tokens": tokens, "points": points} == dict(turn.state.rate):
        # A "change" to the same rate would be booked, printed in the report and flashed on the TV.
        raise RuleError("rate_unchanged", f"the rate is already {tokens} tokens for {points} point(s): nothing to change",
                        tokens=tokens, points=points)
    turn.emit({"type": "rate_set", "tokens": tokens, "points": points, "was": dict(turn.state.rate)})


def refill(turn: Turn, cmd: dict) -> None:
    """Facilitators put more tokens in the bank's bowls (R8)."""
    resource = fields.choice(cmd, "resource", list(turn.config.resources), "resource")
    amount = fields.whole(cmd, "amount")
    turn.transfer(SUPPLY, RESERVE, resource, amount, "refill")


def inventory(turn: Turn, cmd: dict) -> None:
    """A count of a team's box: the ledger is corrected to match, entry by entry."""
    config = turn.config
    team = fields.team(cmd, config)
    counted = fields.amounts(cmd, "counted", list(config.resources), allow_empty=True)
    listed = cmd.get("counted") or {}
    if not listed:
        raise CommandError("nothing_given", "'counted' must list at least one resource with the number of tokens counted", field="counted")
    note = fields.text(cmd, "reason", required=False)
    reason = f"inventory:{note}" if note else "inventory"
    changes = {}
    for resource in listed:
        diff = counted.get(resource, 0) - turn.state.balance(team_account(team), resource)
        if diff > 0:
            turn.issue(resource, diff, team_account(team), reason)
        elif diff < 0:
            turn.transfer(team_account(team), RESERVE, resource, -diff, reason)
        if diff:
            changes[resource] = diff
    turn.emit({"type": "inventory", "team": team, "changes": changes})


def award(turn: Turn, cmd: dict) -> None:
    """A facilitator's award (points > 0) or penalty (points < 0), always with a reason (R31)."""
    team = fields.team(cmd, turn.config)
    points = fields.whole(cmd, "points", minimum=-1000, maximum=1000)
    if points == 0:
        raise CommandError("out_of_range", "'points' must not be 0: give a positive award or a negative penalty", field="points")
    reason = fields.text(cmd, "reason")
    score = turn.state.reputation[team]
    if score + points < 0:
        raise RuleError("penalty_exceeds_score", f"{team} has {score} point(s); a penalty can take at most {score}",
                        team=team, score=score)
    turn.emit({"type": "award", "team": team, "points": points, "reason": reason})
    turn.points(team, points, f"award:{reason}")


def set_option(turn: Turn, cmd: dict) -> None:
    """Switch an optional rule on or off live; the second pirate may get a new price (R4, R9, R18)."""
    option = fields.choice(cmd, "option", OPTIONS, "option")
    event = {"type": "option_set", "option": option, "value": fields.flag(cmd, "value")}
    if option == "second_pirate" and cmd.get("cost") is not None:
        plain = [r for r in turn.config.resources if r != turn.config.joker]
        event["cost"] = fields.amounts(cmd, "cost", plain)
    turn.emit(event)
