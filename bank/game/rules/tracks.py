"""Terraformation tracks: steps paid by a builder, icon bonuses (R24-R27)."""

from __future__ import annotations

from bank.game import fields
from bank.errors import RuleError
from bank.game.state import team_account, track_account
from bank.game.turn import Turn, payment_plan


def raise_tracks(turn: Turn, cmd: dict) -> None:
    """Pay for one or more steps on one or several tracks in one visit (R24)."""
    config = turn.config
    team = fields.team(cmd, config)
    steps = fields.amounts(cmd, "steps", list(config.tracks))
    for track_id, count in steps.items():
        track, level = config.tracks[track_id], turn.state.tracks[track_id]
        if level + count > track.length:
            room = track.length - level
            raise RuleError("track_full", f"the {track_id} track is at level {level} of {track.length}; "
                            f"it can take {room} more step(s), not {count}", track=track_id, level=level, room=room)
    cost: dict = {}
    for track_id, count in steps.items():
        track = config.tracks[track_id]
        cost[track.resource] = cost.get(track.resource, 0) + track.step_cost * count
    _check_affordable(turn, team, cost)
    for track_id, count in steps.items():
        track = config.tracks[track_id]
        turn.pay(team, {track.resource: track.step_cost * count}, track_account(track_id), f"track:{track_id}")
        for _ in range(count):
            level = turn.state.tracks[track_id] + 1
            turn.emit({"type": "track_raised", "track": track_id, "team": team, "level": level})
            _icon_bonus(turn, team, track_id, track.icons.get(level, {}))
        turn.points(team, track.reputation_per_step * count, f"track:{track_id}")


def _check_affordable(turn: Turn, team: str, cost: dict) -> None:
    """All steps are paid together, so check the whole cost before paying any (R23)."""
    payment_plan(turn.state.stock(team), cost, turn.config.joker, turn.config, team)


def _icon_bonus(turn: Turn, team: str, track_id: str, icon: dict) -> None:
    """The level's icon: tokens (fauna, jokers...) or bonus dice for the team (R25)."""
    for kind, amount in icon.items():
        if kind == "dice":
            turn.roll_dice(team, amount, f"track:{track_id}")
        else:
            turn.issue(kind, amount, team_account(team), f"track_icon:{track_id}")
