"""Trades between teams, free or forced (R16, R17)."""

from __future__ import annotations

from bank.game import fields
from bank.errors import CommandError, RuleError
from bank.game.state import team_account
from bank.game.turn import Turn
from bank.game.rules.common import require_tokens, two_teams


def trade(turn: Turn, cmd: dict) -> None:
    """Record a trade: the merchant's team gives `give` and receives `take` (R16, R17).

    A forced exchange (R17) is exactly one token each way, and the merchant may
    not take a joker.
    """
    config = turn.config
    merchant, visited = two_teams(turn, cmd, "merchant_team", "visited_team")
    kind = fields.choice(cmd, "kind", ["free", "forced"], "kind of trade")
    resources = list(config.resources)
    give = fields.amounts(cmd, "give", resources, allow_empty=(kind == "free"))
    take = fields.amounts(cmd, "take", resources, allow_empty=(kind == "free"))
    if not give and not take:
        raise CommandError("nothing_given", "a trade must move at least one token", field="give")
    if kind == "forced":
        gives, takes = sum(give.values()), sum(take.values())
        if gives != 1 or takes != 1:
            raise RuleError("forced_trade_is_one_for_one", f"a forced exchange is exactly one token each way (R17); "
                            f"this one gives {gives} and takes {takes}", gives=gives, takes=takes)
        if config.joker in take:
            raise RuleError("forced_trade_no_joker", "in a forced exchange the merchant may not take a joker (R17)")
    require_tokens(turn, merchant, give, "to trade")
    require_tokens(turn, visited, take, "to trade")
    for resource, n in give.items():
        turn.transfer(team_account(merchant), team_account(visited), resource, n, f"trade:{kind}")
    for resource, n in take.items():
        turn.transfer(team_account(visited), team_account(merchant), resource, n, f"trade:{kind}")
    turn.emit({"type": "trade", "kind": kind, "merchant_team": merchant, "visited_team": visited, "give": give, "take": take})
