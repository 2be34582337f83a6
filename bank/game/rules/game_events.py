"""Facilitators' events: open, contribute, close with ranked rewards (R33)."""

from __future__ import annotations

from bank.game import fields
from bank.errors import CommandError, RuleError
from bank.game.state import RESERVE, event_account, team_account
from bank.game.turn import Turn
from bank.game.rules.common import require_tokens

REWARD_KINDS = ("points", "jokers")


def open_event(turn: Turn, cmd: dict) -> None:
    """A title, accepted resources (none listed = any), optional target and deadline, rewards by rank."""
    config = turn.config
    plain = [r for r in config.resources if r != config.joker]
    accepts = cmd.get("accepts") or []
    if not isinstance(accepts, list) or any(a not in plain for a in accepts):
        raise CommandError("unknown_resource", f"'accepts' must list resources among {', '.join(plain)} (or be empty for any)", field="accepts")
    event = {
        "type": "event_opened",
        "event": f"ev{turn.state.event_counter + 1}",
        "title": fields.text(cmd, "title"),
        "accepts": sorted(set(accepts), key=plain.index),
        "rewards": _rewards(cmd),
    }
    if cmd.get("target") is not None:
        event["target"] = fields.whole(cmd, "target")
    if cmd.get("deadline_minutes") is not None:
        event["deadline"] = round(turn.clock + 60 * fields.whole(cmd, "deadline_minutes", maximum=24 * 60), 3)
    turn.emit(event)


def _rewards(cmd: dict) -> list:
    """[{"points": 5}, {"jokers": 2}, ...]: what rank 1, rank 2... receive."""
    rewards = cmd.get("rewards")
    if not isinstance(rewards, list) or not rewards or len(rewards) > 6:
        raise CommandError("bad_rewards", "'rewards' must list 1 to 6 rewards by rank, like [{\"points\": 5}, {\"jokers\": 2}]", field="rewards")
    result = []
    for rank, reward in enumerate(rewards, 1):
        if not isinstance(reward, dict) or len(reward) != 1 or next(iter(reward)) not in REWARD_KINDS:
            raise CommandError("bad_rewards", f"reward {rank} must be {{\"points\": n}} or {{\"jokers\": n}}", field="rewards")
        kind, n = next(iter(reward.items()))
        result.append({kind: fields.check_whole(n, f"rewards[{rank}].{kind}", 1, 100)})
    return result


def _open_event(turn: Turn, cmd: dict) -> str:
    event_id = fields.choice(cmd, "event", list(turn.state.events), "event")
    if turn.state.events[event_id]["status"] != "open":
        raise RuleError("event_closed", f"the event {turn.state.events[event_id]['title']!r} is already closed", event=event_id)
    return event_id


def contribute(turn: Turn, cmd: dict) -> None:
    """A team gives accepted tokens to an event's pot; a joker stands in for any (R23, R33)."""
    config = turn.config
    event_id = _open_event(turn, cmd)
    team = fields.team(cmd, config)
    record = turn.state.events[event_id]
    allowed = (record["accepts"] or [r for r in config.resources if r != config.joker]) + [config.joker]
    _check_accepted(record, cmd.get("tokens"), allowed, config)
    tokens = fields.amounts(cmd, "tokens", allowed)
    require_tokens(turn, team, tokens, "to give")
    for resource, n in tokens.items():
        turn.transfer(team_account(team), event_account(event_id), resource, n, f"event:{event_id}")
    turn.emit({"type": "contributed", "event": event_id, "team": team, "amount": sum(tokens.values())})


def _check_accepted(record: dict, tokens, allowed: list, config) -> None:
    """A resource the event does not take is a rule refusal, not a typo (R33)."""
    if not isinstance(tokens, dict):
        return
    refused = [r for r in tokens if r in config.resources and r not in allowed]
    if refused:
        raise RuleError("resource_not_accepted", f"the event {record['title']!r} accepts only {', '.join(allowed)} "
                        f"(a joker stands in for any); {', '.join(refused)} is not accepted",
                        accepts=list(allowed), refused=refused)


def close_event(turn: Turn, cmd: dict) -> None:
    """Close an event now (the deadline does it by itself too)."""
    close(turn, _open_event(turn, cmd))


def close(turn: Turn, event_id: str) -> None:
    """Rank teams by tokens given; equal givers share a rank; the pot returns to the bank (R33)."""
    record = turn.state.events[event_id]
    ranking = rank(record["given"])
    for entry in ranking:
        reward = record["rewards"][entry["rank"] - 1] if entry["rank"] <= len(record["rewards"]) else {}
        entry["reward"] = reward
        if "points" in reward:
            turn.points(entry["team"], reward["points"], f"event:{event_id}")
        if "jokers" in reward:
            turn.issue(turn.config.joker, reward["jokers"], team_account(entry["team"]), f"event:{event_id}")
    pot = turn.state.balances.get(event_account(event_id), {})
    for resource, n in sorted(pot.items()):
        turn.transfer(event_account(event_id), RESERVE, resource, n, f"event:{event_id}")
    turn.emit({"type": "event_closed", "event": event_id, "ranking": ranking})


def close_all(turn: Turn) -> None:
    """The game is ending: every open event closes now, rewards paid (R33, R35 Decision).

    Teams gave their tokens for a rank; an event left open at the end would keep
    them in its pot and pay nobody, and its rewards count in the final reputation.
    """
    for event_id in [e for e, record in turn.state.events.items() if record["status"] == "open"]:
        close(turn, event_id)


def rank(given: dict) -> list:
    """Competition ranking (1, 1, 3): equal givers share the better rank; zero givers get none."""
    ordered = sorted(((n, t) for t, n in given.items() if n > 0), key=lambda x: -x[0])
    ranking, previous, previous_rank = [], None, 0
    for position, (amount, team) in enumerate(ordered, 1):
        current = previous_rank if amount == previous else position
        ranking.append({"team": team, "given": amount, "rank": current})
        previous, previous_rank = amount, current
    return ranking
