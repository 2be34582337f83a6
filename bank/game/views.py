"""Read-only projections of the state for the terminal, the web pages and the report."""

from __future__ import annotations

from bank.game.config_model import GameConfig
from bank.errors import CommandError, RuleError
from bank.game.rules.common import discounted_cost
from bank.game.rules.endgame import terraformed
from bank.game.rules.market import animal_refusal, building_refusal
from bank.game.state import RESERVE, GameState, team_account
from bank.game.turn import Context, Turn, payment_plan


def standings(state: GameState, config: GameConfig, now: float) -> list:
    """Teams by reputation, best first; equal scores share a rank."""
    rows = [{"team": t, "label": config.teams[t].label, "colour": config.teams[t].colour,
             "reputation": state.reputation[t], "animals": len(state.animals[t]), "buildings": len(state.buildings[t])}
            for t in config.teams]
    rows.sort(key=lambda r: -r["reputation"])
    for i, row in enumerate(rows):
        same = i and rows[i - 1]["reputation"] == row["reputation"]
        row["rank"] = rows[i - 1]["rank"] if same else i + 1
    return rows


def cooldowns(state: GameState, team: str, now: float) -> dict:
    """Seconds each of the team's cards must still wait after a fight (R19)."""
    elapsed = state.elapsed(now)
    prefix = f"{team}/"
    return {key[len(prefix):]: round(until - elapsed) for key, until in state.cooldowns.items()
            if key.startswith(prefix) and until > elapsed}


def team_view(state: GameState, config: GameConfig, team: str, now: float) -> dict:
    """What a team may see of itself: stock, buildings, animals, cooldowns, what it can afford."""
    if team not in config.teams:
        raise CommandError("unknown_team", f"there is no team {team!r}; teams: {', '.join(config.teams)}")
    return {
        "team": team,
        "label": config.teams[team].label,
        "reputation": state.reputation[team],
        "stock": {r: state.balance(f"team:{team}", r) for r in config.resources},
        "buildings": list(state.buildings[team]),
        "animals": list(state.animals[team]),
        "cards": config.cards(tuple(state.extra_cards[team])),
        "cooldowns": cooldowns(state, team, now),
        "last_harvest": {key.split("/", 1)[1]: round(state.elapsed(now) - at) for key, at in state.last_harvest.items()
                         if key.startswith(f"{team}/")},  # seconds ago, per card (R14)
        "affordable": affordable(state, config, team, now),
    }


# affordable()'s last answer for each (config, team), with the inputs it was computed from. Each round of the
# live pages makes every team's picture; a command changes one team's stock, so the other teams' lists were
# computed again unchanged (about half the CPU of making the pictures). The same list is returned while its
# inputs are the same, and the broadcaster's diff passes over it at once (delta.py: a value in a picture is
# never changed in place).
_AFFORDABLE: dict = {}
_AFFORDABLE_KEPT = 256  # (config, team) pairs: a host's games; forgotten all at once past it


def _affordable_inputs(state: GameState, team: str) -> tuple:
    """Everything of the state that the refusals, the discounts and the payment plan read (market.py, common.py,
    turn.payment_plan): the team's stock and buildings, every team's animals (a unique one taken), the tracks."""
    return (tuple(sorted(state.balances.get(team_account(team), {}).items())), tuple(state.buildings[team]),
            tuple((t, tuple(owned)) for t, owned in state.animals.items()), tuple(state.tracks.items()))


def affordable(state: GameState, config: GameConfig, team: str, now: float) -> list:
    """Each building and animal with its price for this team and what is missing, if anything.
    The same list object while the inputs are the same: its callers never change it."""
    inputs = _affordable_inputs(state, team)
    kept = _AFFORDABLE.get((id(config), team))
    if kept is not None and kept[0] is config and kept[1] == inputs:
        return kept[2]
    result = _affordable(state, config, team, now)
    if kept is not None and kept[0] is config:
        # An item whose price, plan and refusal are as before is the object kept before (a harvest changes a few
        # items' plans): the diff passes over it at once. Made by the same code, equal items hold the same types.
        before = {(item["kind"], item["id"]): item for item in kept[2]}
        result = [old if old is not None and old == item else item
                  for item in result for old in [before.get((item["kind"], item["id"]))]]
    if len(_AFFORDABLE) >= _AFFORDABLE_KEPT:
        _AFFORDABLE.clear()
    _AFFORDABLE[(id(config), team)] = (config, inputs, result)
    return result


def _affordable(state: GameState, config: GameConfig, team: str, now: float) -> list:
    turn = Turn(state, config, Context(now=now, roll=lambda n: []), read_only=True)
    items = [("building", b, building_refusal, config.buildings[b].cost, "buildings") for b in config.buildings]
    items += [("animal", a, animal_refusal, config.animals[a].cost, "animals") for a in config.animals]
    result = []
    for kind, item_id, refusal_of, base_cost, cost_kind in items:
        refusal = refusal_of(turn, team, item_id)
        if refusal and refusal.code in ("building_owned", "animal_owned", "animal_taken"):
            continue
        cost = discounted_cost(turn, team, base_cost, cost_kind)
        entry = {"kind": kind, "id": item_id, "cost": cost, "missing": {},
                 "blocked": refusal.message if refusal else None,
                 "blocked_code": refusal.code if refusal else None,
                 "blocked_params": refusal.params if refusal else {}}
        try:
            entry["pays"] = payment_plan(state.stock(team), cost, config.joker, config, team)
        except RuleError as exc:
            entry["missing"] = exc.params["missing"]
        result.append(entry)
    return result


RECENT_CLOSED_EVENTS = 5  # the admin page lists the last 3 closed; a little slack, never the whole game


def shown_events(state: GameState) -> dict:
    """Open events and the most recently closed ones, in opening order (R33).

    The board goes to every page on every command: a long game opens hundreds of
    events, and the pages show only the open ones and the last few results.
    """
    # Read from the newest back to the last few closed ones; the older open ones come
    # from the state's list of open events, so a long game's history is not read.
    events, open_ids = state.events, state.open_event_ids()
    newest, closed, open_seen = [], 0, 0
    for event_id in reversed(events):
        if closed == RECENT_CLOSED_EVENTS:
            break
        if events[event_id]["status"] == "open":
            open_seen += 1
        else:
            closed += 1
        newest.append(event_id)
    older_open = open_ids[:len(open_ids) - open_seen]
    return {e: dict(events[e]) for e in (*older_open, *reversed(newest))}


def board(state: GameState, config: GameConfig, now: float) -> dict:
    """The shared picture: tracks, rate, clock, events, reserve, who owns which animal, the end."""
    clock = state.clock
    return {
        "tracks": {t: {"level": state.tracks[t], "length": track.length} for t, track in config.tracks.items()},
        "terraformed": terraformed(state, config),
        "animals_unlocked": all(lvl >= config.animal_unlock_level for lvl in state.tracks.values()),
        "rate": dict(state.rate),
        "clock": {"status": clock["status"], "session": clock["session"], "sessions": config.sessions,
                  "elapsed": round(state.elapsed(now)), "duration": config.duration_seconds,
                  "held": clock.get("held"), "session_over": bool(clock.get("session_over"))},
        "events": shown_events(state),
        "reserve": {r: state.balance(RESERVE, r) for r in config.resources},
        "animals": {t: list(a) for t, a in state.animals.items()},
        "options": dict(state.options),
        "second_pirate_cost": dict(state.second_pirate_cost),
        "ended": state.ended,
    }
