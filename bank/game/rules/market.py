"""Buildings, animals and the second pirate card, bought at the bank (R9, R21-R23, R26, R28-R30)."""

from __future__ import annotations

from bank.game import fields
from bank.errors import RuleError
from bank.game.state import RESERVE
from bank.game.turn import Turn, describe
from bank.game.rules.common import discounted_cost


def building_refusal(turn: Turn, team: str, building_id: str) -> RuleError | None:
    """Why a team may not build this now (R21), or None. Cost is checked apart."""
    config, state = turn.config, turn.state
    building = config.buildings[building_id]
    owned = state.buildings[team]
    label = building.label["en"]
    if building_id in owned:
        return RuleError("building_owned", f"{team} already owns the {label}; each building is built once per team", building=building_id)
    missing = [b for b in building.requires_buildings if b not in owned]
    if missing:
        names = ", ".join(config.buildings[b].label["en"] for b in missing)
        return RuleError("building_required", f"the {label} needs the {names} first", building=building_id, requires=missing)
    animals = len(state.animals[team])
    if animals < building.requires_animals:
        return RuleError("animals_required", f"the {label} needs {building.requires_animals} animals; {team} owns {animals}",
                         building=building_id, needed=building.requires_animals, owned=animals)
    lifted = any(config.buildings[b].lifts_cap for b in owned)
    if not (building.cap_exempt or lifted) and len(owned) >= config.building_cap:
        lifters = ", ".join(b.label["en"] for b in config.buildings.values() if b.lifts_cap)
        return RuleError("building_cap_reached", f"{team} already has {len(owned)} buildings; build the {lifters} first to build more (R21)",
                         cap=config.building_cap)
    return None


def build(turn: Turn, cmd: dict) -> None:
    """The builder pays for a building; it gives reputation and its effects (R21-R23)."""
    config = turn.config
    team = fields.team(cmd, config)
    building_id = fields.choice(cmd, "building", list(config.buildings), "building")
    refusal = building_refusal(turn, team, building_id)
    if refusal:
        raise refusal
    building = config.buildings[building_id]
    cost = discounted_cost(turn, team, building.cost, "buildings")
    turn.pay(team, cost, RESERVE, f"building:{building_id}")
    turn.emit({"type": "building_built", "team": team, "building": building_id})
    turn.points(team, building.reputation, f"building:{building_id}")
    turn.roll_dice(team, building.dice_on_build, f"building:{building_id}")


def animal_refusal(turn: Turn, team: str, animal_id: str) -> RuleError | None:
    """Why a team may not buy this animal now (R26, R28, R29), or None."""
    config, state = turn.config, turn.state
    unlock = config.animal_unlock_level
    low = {t: lvl for t, lvl in state.tracks.items() if lvl < unlock}
    if low:
        levels = ", ".join(f"{t} {lvl}" for t, lvl in state.tracks.items())
        return RuleError(f"animals_locked_until_all_tracks_reach_{unlock}",
                         f"animals are sold once every track reaches level {unlock}; now: {levels} (R26)", tracks=dict(state.tracks))
    animal = config.animals[animal_id]
    label = animal.label["en"].lower()
    if animal_id in state.animals[team]:
        return RuleError("animal_owned", f"{team} already owns its {label} (R28)", animal=animal_id)
    owner = state.owns_animal(animal_id)
    if animal.kind == "unique" and owner:
        return RuleError("animal_taken", f"the {label} is unique and belongs to {owner} (R29)", animal=animal_id, owner=owner)
    return None


def buy_animal(turn: Turn, cmd: dict) -> None:
    """The builder buys an animal once every track reached the unlock level (R26, R28-R30)."""
    config = turn.config
    team = fields.team(cmd, config)
    animal_id = fields.choice(cmd, "animal", list(config.animals), "animal")
    refusal = animal_refusal(turn, team, animal_id)
    if refusal:
        raise refusal
    animal = config.animals[animal_id]
    turn.pay(team, discounted_cost(turn, team, animal.cost, "animals"), RESERVE, f"animal:{animal_id}")
    turn.emit({"type": "animal_bought", "team": team, "animal": animal_id})
    turn.points(team, animal.reputation, f"animal:{animal_id}")


def buy_second_pirate(turn: Turn, cmd: dict) -> None:
    """Optional rule: a team buys one more pirate card at the facilitators' price (R9)."""
    config, state = turn.config, turn.state
    team = fields.team(cmd, config)
    if not state.options.get("second_pirate"):
        raise RuleError("option_off", "the second pirate card is not on sale; the lead facilitator can switch the option on (R9)",
                        option="second_pirate")
    pirate = config.pirate_role()
    new_card = f"{pirate.id}-{pirate.cards + 1}"
    if new_card in state.extra_cards[team]:
        raise RuleError("card_owned", f"{team} already has its second pirate card", card=new_card)
    cost = dict(state.second_pirate_cost)
    turn.pay(team, cost, RESERVE, "second_pirate")
    turn.emit({"type": "card_added", "team": team, "card": new_card, "cost": describe(cost)})
