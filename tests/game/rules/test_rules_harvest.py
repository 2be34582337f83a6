"""Harvest at the bank: doubling, team bonus, laboratory dice, intervals (R4, R7, R11-R15)."""

import pytest

from bank.errors import BankError
from play import Game, config_with


def own(g, team, *buildings):
    """Give a team buildings by paying for them with jokers (the real purchase path)."""
    for b in buildings:
        g.give(team, joker=sum(g.config.buildings[b].cost.values()))
        g.do(type="build", team=team, building=b)


def test_r11_harvest_gives_one_token_of_the_chosen_kind():
    g = Game()
    events = g.do(type="harvest", team="red", card="harvester-1", resource="fauna")
    assert g.stock("red") == {"dioxygen": 5, "fauna": 1}
    assert any(e["type"] == "transfer" and e["from"] == "reserve" for e in events)


def test_r7_jokers_are_never_harvested():
    g = Game()
    before = g.state.copy()
    with pytest.raises(BankError) as err:
        g.do(type="harvest", team="red", card="harvester-1", resource="joker")
    assert err.value.code == "unknown_harvestable_resource" and "water" in err.value.message
    assert g.state == before


def test_r11_only_harvester_cards_harvest():
    g = Game()
    with pytest.raises(BankError) as err:
        g.do(type="harvest", team="red", card="pirate-1", resource="water")
    assert err.value.code == "not_a_harvester"


def test_r12_purification_centre_doubles_water_only():
    g = Game()
    own(g, "red", "purification_centre")
    base = g.stock("red")
    g.do(type="harvest", team="red", card="harvester-1", resource="water")
    g.do(type="harvest", team="red", card="harvester-2", resource="flora")
    assert g.stock("red")["water"] - base.get("water", 0) == 2
    assert g.stock("red")["flora"] - base.get("flora", 0) == 1


def test_r12_greenhouse_doubles_flora_and_dioxygen():
    g = Game()
    own(g, "yellow", "greenhouse")
    g.do(type="harvest", team="yellow", card="harvester-1", resource="flora")
    g.do(type="harvest", team="yellow", card="harvester-1", resource="dioxygen")
    assert g.stock("yellow")["flora"] == 2 and g.stock("yellow")["dioxygen"] == 2


def test_r4_team_bonus_adds_one_of_the_team_colour():
    g = Game()
    g.do(type="set_option", option="team_bonus", value=True)
    g.do(type="harvest", team="blue", card="harvester-1", resource="water")
    g.do(type="harvest", team="blue", card="harvester-1", resource="flora")
    assert g.stock("blue") == {"water": 5 + 2, "flora": 1}


def test_r12_team_bonus_is_not_doubled_blue_purification_gets_three():
    """The worked example of the rules: 1 x 2 + 1 = 3 water."""
    g = Game()
    g.do(type="set_option", option="team_bonus", value=True)
    own(g, "blue", "purification_centre")
    water = g.stock("blue").get("water", 0)
    g.do(type="harvest", team="blue", card="harvester-1", resource="water")
    assert g.stock("blue")["water"] - water == 3


def test_r13_laboratory_rolls_one_die_per_token_blue_gets_three_dice():
    g = Game()
    g.do(type="set_option", option="team_bonus", value=True)
    own(g, "blue", "purification_centre")
    g.set_tracks(phytosphere=4, hydrosphere=4, atmosphere=4)
    for animal in ("sheep", "rabbit", "fish"):
        g.give("blue", joker=sum(g.config.animals[animal].cost.values()))
        g.do(type="buy_animal", team="blue", animal=animal)
    g.dice = ["energy"] * 6
    own(g, "blue", "power_plant_1", "laboratory")  # laboratory rolls 6 dice when built
    g.rolled, g.dice = 0, ["joker", "flora", "joker"]
    before = g.stock("blue")
    events = g.do(type="harvest", team="blue", card="harvester-1", resource="water")
    assert g.rolled == 3
    rolled = [e for e in events if e["type"] == "dice_rolled"]
    assert rolled[0]["faces"] == ["joker", "flora", "joker"]
    after = g.stock("blue")
    assert after["water"] - before.get("water", 0) == 3
    assert after["joker"] - before.get("joker", 0) == 2
    assert after["flora"] - before.get("flora", 0) == 1


def test_r13_dice_faces_are_stored_so_replay_never_rerolls():
    g = Game()
    g.set_tracks(phytosphere=2)  # level 2 of the phytosphere gives 1 fauna, hydrosphere 2 gives a die
    g.dice = ["energy"]
    g.set_tracks(hydrosphere=2)
    replayed = g.replay()
    assert replayed == g.state
    assert g.rolled == 1


def test_r14_harvest_interval_when_configured():
    g = Game(config_with(("min_interval_seconds = 0", "min_interval_seconds = 60")))
    g.do(type="harvest", team="blue", card="harvester-1", resource="water")
    before = g.state.copy()
    g.wait(20)
    with pytest.raises(BankError) as err:
        g.do(type="harvest", team="blue", card="harvester-1", resource="water")
    assert err.value.code == "harvest_too_soon" and "40 s" in err.value.message
    assert g.state == before
    g.do(type="harvest", team="blue", card="harvester-2", resource="water")  # the other card may
    g.wait(40)
    g.do(type="harvest", team="blue", card="harvester-1", resource="water")


def test_r14_interval_off_by_default_but_last_harvest_is_shown():
    g = Game()
    g.do(type="harvest", team="blue", card="harvester-1", resource="water")
    g.do(type="harvest", team="blue", card="harvester-1", resource="water")
    assert g.state.last_harvest["blue/harvester-1"] == 0.0


def test_r8_low_reserve_warns_and_still_pays_by_default():
    g = Game(config_with(("water = 100,", "water = 11,")))  # teams take 5: 6 left for the bank
    events = []
    for _ in range(7):
        events += g.do(type="harvest", team="red", card="harvester-1", resource="water")
    assert g.stock("red")["water"] == 7
    assert any(e["type"] == "low_stock" for e in events)
    assert any(e["type"] == "shortfall" for e in events)
    assert g.problems() == []


def test_r8_refuse_when_empty_switch():
    g = Game(config_with(("water = 100,", "water = 5,"), ("refuse_when_empty = false", "refuse_when_empty = true")))
    with pytest.raises(BankError) as err:
        g.do(type="harvest", team="red", card="harvester-1", resource="water")
    assert err.value.code == "bank_reserve_empty" and "refill" in err.value.message
    g.do(type="refill", resource="water", amount=20)
    g.do(type="harvest", team="red", card="harvester-1", resource="water")
    assert g.state.balance("reserve", "water") == 19
