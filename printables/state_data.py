"""What the game-state sheet and the continuation ledgers print, from the game's views.

One plain dict, read from the live state at one moment: each team's stock, reputation,
buildings, animals, extra cards, harvest per resource (buildings and the team bonus:
a harvest can be 1, 2 or 3), discounts and cards still waiting after a fight; the
tracks, the rate, the options, the open events with each team's contribution, the clock.
Pure: the caller (the web's routes and writer) passes the state, the time and the entry number.
"""

from __future__ import annotations

from bank.game import views
from bank.game.rules.harvest import dice_per_token, harvest_amount
from bank.game.turn import Context, Turn


def snapshot(state, config, now: float, seq: int, printed_at: float, chain_head: str | None = None,
             game: str | None = None) -> dict:
    """The game at entry `seq`: `now` is the bank's time line, `printed_at` the wall clock (shown);
    `chain_head` the journal chain's head at `seq`, printed so the paper witnesses it too; `game` the game's
    mark (Bank.game_mark), whose check each ledger's id prints (bank/game/paper_sheet.py)."""
    board = views.board(state, config, now)
    turn = Turn(state, config, Context(now=now, roll=lambda n: []), read_only=True)
    teams = []
    for team_id, team in config.teams.items():
        view = views.team_view(state, config, team_id, now)
        teams.append({
            "id": team_id, "label": team.label, "colour": team.colour, "resource": team.resource,
            "stock": view["stock"], "reputation": view["reputation"],
            "buildings": view["buildings"], "animals": view["animals"],
            "extra_cards": list(state.extra_cards[team_id]),
            "harvest": {r: harvest_amount(turn, team_id, r) for r, res in config.resources.items() if res.harvestable},
            "dice_per_token": dice_per_token(turn, team_id),
            "discounts": _discounts(config, view["buildings"]),
            "waiting": dict(sorted(view["cooldowns"].items())),
        })
    events = [{"id": e, **record} for e, record in board["events"].items() if record["status"] == "open"]
    return {"seq": seq, "printed_at": printed_at, "chain": chain_head, "game": game, "teams": teams, "tracks": board["tracks"],
            "terraformed": board["terraformed"], "animals_unlocked": board["animals_unlocked"],
            "rate": board["rate"], "options": board["options"], "second_pirate_cost": board["second_pirate_cost"],
            "clock": board["clock"], "events": events, "reserve": board["reserve"], "ended": board["ended"]}


def _discounts(config, buildings: list) -> dict:
    """{"buildings"|"animals": {resource: tokens off}} from the buildings owned (R22)."""
    found = {}
    for b in buildings:
        building = config.buildings[b]
        for kind in building.discount_applies_to:
            for resource, n in building.discount.items():
                found.setdefault(kind, {})
                found[kind][resource] = found[kind].get(resource, 0) + n
    return found
