"""What must always hold, whatever happened: checked by tests, verify and reversals."""

from __future__ import annotations

from bank.game.config_model import GameConfig
from bank.game.state import SUPPLY, GameState


def negative_balances(state: GameState) -> list:
    """Accounts (other than the supply) holding fewer than zero tokens."""
    return [f"{account} with {n} {resource}" for account, held in sorted(state.balances.items()) if account != SUPPLY
            for resource, n in sorted(held.items()) if n < 0]


def check(state: GameState, config: GameConfig) -> list:
    """Every broken invariant, as a sentence; empty when the state is sound."""
    problems = [f"negative balance: {p}" for p in negative_balances(state)]
    totals: dict = {}
    for held in state.balances.values():
        for resource, n in held.items():
            totals[resource] = totals.get(resource, 0) + n
    problems += [f"tokens not conserved: {resource} sums to {n}" for resource, n in sorted(totals.items()) if n]
    problems += [f"unknown resource {r} in {a}" for a, held in state.balances.items() for r in held if r not in config.resources]
    for team, owned in state.buildings.items():
        if len(set(owned)) != len(owned):
            problems.append(f"{team} owns a building twice")
        lifted = any(config.buildings[b].lifts_cap for b in owned)
        capped = [b for b in owned if not config.buildings[b].cap_exempt]
        if not lifted and len(capped) > config.building_cap:
            problems.append(f"{team} owns {len(capped)} buildings without one that lifts the cap")
    owners: dict = {}
    for team, owned in state.animals.items():
        if len(set(owned)) != len(owned):
            problems.append(f"{team} owns an animal twice")
        for animal in owned:
            owners.setdefault(animal, []).append(team)
    problems += [f"unique animal {a} owned by {', '.join(t)}" for a, t in owners.items()
                 if config.animals[a].kind == "unique" and len(t) > 1]
    problems += [f"track {t} at level {lvl}, outside 0..{config.tracks[t].length}" for t, lvl in state.tracks.items()
                 if not 0 <= lvl <= config.tracks[t].length]
    problems += [f"{team} has negative reputation {n}" for team, n in state.reputation.items() if n < 0]
    return problems
