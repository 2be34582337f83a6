"""Corrections: a mistaken command is undone by a new, reversing entry with a reason."""

from __future__ import annotations

from bank.game import fields
from bank.errors import CommandError, RuleError
from bank.game.invariants import negative_balances
from bank.game.turn import Turn

# How each kind of event is reversed; kinds not listed cannot be undone this way.
_INVERSE = {
    "transfer": lambda e: {**e, "from": e["to"], "to": e["from"], "reason": f"reversal:{e['reason']}"},
    "reputation": lambda e: {**e, "points": -e["points"], "reason": f"reversal:{e['reason']}"},
    "building_built": lambda e: {"type": "building_removed", "team": e["team"], "building": e["building"]},
    "animal_bought": lambda e: {"type": "animal_returned", "team": e["team"], "animal": e["animal"]},
    "track_raised": lambda e: {"type": "track_lowered", "track": e["track"], "team": e["team"], "level": e["level"]},
    "card_added": lambda e: {"type": "card_removed", "team": e["team"], "card": e["card"]},
    "contributed": lambda e: {**e, "amount": -e["amount"]},
}
# Undone only while nothing came after them (_UNDO_IF_LAST): a card's last harvest (R14) and its wait
# after a fight (R19). A mistaken harvest or fight, undone, holds nobody back.
_UNDO_IF_LAST = {
    "harvested": lambda e: ("last_harvest", e["clock"], {"type": "harvest_undone", "team": e["team"], "card": e["card"]}),
    "cooldown": lambda e: ("cooldowns", e["until"], {"type": "cooldown_ended", "team": e["team"], "card": e["card"]}),
}
# Records of what happened: nothing to undo in the state.
_KEPT = {"dice_rolled", "low_stock", "shortfall", "fight", "trade", "exchange",
         "joker_redeemed", "award", "inventory"}


def reverse(turn: Turn, cmd: dict) -> None:
    """Undo a journal entry by appending its inverse; the original row stays."""
    seq = fields.whole(cmd, "seq", maximum=10**12)
    reason = fields.text(cmd, "reason")
    row = turn.ctx.lookup(seq)
    if row is None:
        raise CommandError("unknown_entry", f"there is no journal entry number {seq}", seq=seq)
    if seq in turn.state.reversed:
        raise RuleError("already_reversed", f"entry {seq} was already reversed", seq=seq)
    kinds = {e["type"] for e in row["events"]} - _KEPT - set(_INVERSE) - set(_UNDO_IF_LAST)
    if kinds or row["command"].get("type") in ("setup", "reverse"):
        what = row["command"].get("type")
        raise RuleError("cannot_reverse", f"a {what} entry cannot be undone; correct it with a new command "
                        "(an award, a penalty or an inventory count)", seq=seq, command=what)
    for event in reversed(row["events"]):
        if event["type"] in _INVERSE:
            _check_reversible(turn, event)
            turn.emit(_INVERSE[event["type"]](event))
        elif event["type"] in _UNDO_IF_LAST:
            _undo_if_last(turn, event)
    problems = negative_balances(turn.state) + [f"{t} with {n} reputation" for t, n in turn.state.reputation.items() if n < 0]
    if problems:
        raise RuleError("cannot_reverse", f"undoing entry {seq} would leave {problems[0]}; "
                        "the tokens were spent since: correct it with an inventory count", seq=seq)
    turn.emit({"type": "reversed", "seq": seq, "reason": reason})


def _undo_if_last(turn: Turn, event: dict) -> None:
    """Forget the card's last harvest, or end its wait, if it is still the one this entry set.

    A later harvest of the card (the interval had passed) or a later fight (its wait had run
    out) has replaced it since: that one stays. Forgetting an undone harvest also forgets the
    one before it, which no longer matters: it was at least the interval ago (R14)."""
    field, value, undo = _UNDO_IF_LAST[event["type"]](event)
    if getattr(turn.state, field).get(f"{event['team']}/{event['card']}") == value:
        turn.emit(undo)


def _check_reversible(turn: Turn, event: dict) -> None:
    """Refuse an undo that would break what was built on top of it since."""
    state, config = turn.state, turn.config
    if event["type"] == "track_raised" and state.tracks[event["track"]] != event["level"]:
        raise RuleError("cannot_reverse", f"the {event['track']} track has moved on since (now level {state.tracks[event['track']]}); "
                        "correct it with an award or a penalty")
    if event["type"] == "building_built":
        team, building = event["team"], event["building"]
        others = [b for b in state.buildings[team] if b != building]
        needs_it = [b for b in others if building in config.buildings[b].requires_buildings]
        still_lifted = any(config.buildings[b].lifts_cap for b in others)
        capped = [b for b in others if not config.buildings[b].cap_exempt]
        if needs_it or (not still_lifted and len(capped) > config.building_cap):
            raise RuleError("cannot_reverse", f"{team} built on top of the {building} since; undo those buildings first")
    if event["type"] == "animal_bought":
        team, count = event["team"], len(state.animals[event["team"]])
        needs_it = [b for b in state.buildings[team] if config.buildings[b].requires_animals >= count]
        if needs_it:
            raise RuleError("cannot_reverse", f"{team} built the {', '.join(needs_it)} on its {count} animals since; "
                            "undo that building first")
    if event["type"] == "contributed" and state.events[event["event"]]["status"] != "open":
        raise RuleError("cannot_reverse", "the event is closed and its rewards given; correct it with an award or a penalty")
