"""Buildings: the 2-building cap, Power plant I, prerequisites, discounts, jokers (R21-R23)."""

import pytest

from bank.errors import BankError
from play import Game, config_with


def pay_in_jokers(g, team, building):
    g.give(team, joker=sum(g.config.buildings[building].cost.values()))


def test_r21_building_gives_reputation_and_takes_its_cost():
    g = Game()
    g.give("yellow", water=10)  # yellow starts with 5 energy
    g.give("yellow", energy=10)
    g.do(type="build", team="yellow", building="purification_centre")
    assert g.state.buildings["yellow"] == ["purification_centre"]
    assert g.rep("yellow") == 3
    assert g.stock("yellow") == {}
    assert g.state.balance("reserve", "energy") == 100  # paid tokens go back to the bank's bowls


def test_r23_jokers_cover_what_is_missing():
    g = Game()
    g.give("blue", energy=15, water=5, joker=7)  # blue has 10 water with its 5 starting ones
    g.do(type="build", team="blue", building="purification_centre")
    assert g.stock("blue") == {"joker": 7}  # had every token: no joker used
    g.give("blue", energy=10, flora=10, water=10, dioxygen=1, joker=2)
    g.do(type="build", team="blue", building="greenhouse")  # short 5 energy and 4 dioxygen: 9 jokers
    assert g.stock("blue") == {}
    assert g.state.buildings["blue"] == ["purification_centre", "greenhouse"]


def test_r23_refusal_names_every_missing_resource_and_changes_nothing():
    g = Game()
    g.give("red", energy=9, joker=1)
    before = g.state.copy()
    with pytest.raises(BankError) as err:
        g.do(type="build", team="red", building="purification_centre")
    assert err.value.code == "not_enough_tokens"
    assert "6 energy" in err.value.message and "10 water" in err.value.message and "1 joker" in err.value.message
    assert g.state == before


def test_r21_third_building_refused_until_power_plant_1():
    g = Game()
    for b in ("purification_centre", "greenhouse"):
        pay_in_jokers(g, "green", b)
        g.do(type="build", team="green", building=b)
    pay_in_jokers(g, "green", "reserve")
    before = g.state.copy()
    with pytest.raises(BankError) as err:
        g.do(type="build", team="green", building="reserve")
    assert err.value.code == "building_cap_reached" and "Power plant I" in err.value.message
    assert g.state == before


def test_r21_power_plant_1_may_be_the_third_and_lifts_the_cap_for_all_six():
    g = Game()
    order = ["purification_centre", "greenhouse", "power_plant_1", "reserve", "power_plant_2"]
    for b in order:
        pay_in_jokers(g, "green", b)
        g.do(type="build", team="green", building=b)
    assert g.state.buildings["green"] == order
    assert g.problems() == []


def test_r21_each_building_once_per_team():
    g = Game()
    pay_in_jokers(g, "green", "power_plant_1")
    g.do(type="build", team="green", building="power_plant_1")
    pay_in_jokers(g, "green", "power_plant_1")
    with pytest.raises(BankError) as err:
        g.do(type="build", team="green", building="power_plant_1")
    assert err.value.code == "building_owned"
    g.give("red", joker=15)
    g.do(type="build", team="red", building="power_plant_1")  # another team may build its own


def test_r21_power_plant_2_requires_power_plant_1():
    g = Game()
    pay_in_jokers(g, "red", "power_plant_2")
    with pytest.raises(BankError) as err:
        g.do(type="build", team="red", building="power_plant_2")
    assert err.value.code == "building_required" and "Power plant I" in err.value.message


def test_r21_laboratory_requires_three_animals():
    g = Game()
    pay_in_jokers(g, "red", "laboratory")
    with pytest.raises(BankError) as err:
        g.do(type="build", team="red", building="laboratory")
    assert err.value.code == "animals_required" and "3 animals" in err.value.message


def test_r21_laboratory_rolls_six_dice_when_built():
    g = Game()
    g.set_tracks(phytosphere=4, hydrosphere=4, atmosphere=4)
    for animal in ("sheep", "rabbit", "fish"):
        g.give("red", joker=sum(g.config.animals[animal].cost.values()))
        g.do(type="buy_animal", team="red", animal=animal)
    pay_in_jokers(g, "red", "laboratory")
    g.rolled, g.dice = 0, ["water", "water", "flora", "fauna", "energy", "joker"]
    g.do(type="build", team="red", building="laboratory")
    assert g.rolled == 6
    # its 5 starting dioxygen paid part of the laboratory, leaving 5 of the jokers given
    assert g.stock("red") == {"water": 2, "flora": 1, "fauna": 1, "energy": 1, "joker": 5 + 1}
    assert g.rep("red") == 3 * 3 + 8


def test_r21_power_plant_2_takes_5_energy_off_later_costs():
    g = Game()
    for b in ("power_plant_1", "power_plant_2"):
        pay_in_jokers(g, "blue", b)
        g.do(type="build", team="blue", building=b)
    g.give("blue", energy=10, water=5, flora=10, dioxygen=5)  # greenhouse: 15 energy, 10 water...
    g.do(type="build", team="blue", building="greenhouse")
    assert g.stock("blue") == {}


def test_r22_discount_on_a_cost_without_energy_stays_at_zero():
    """Power plant II on an animal with no energy cost: the cost stays as it is, never negative."""
    g = Game(config_with(("cost = { fauna = 6, flora = 4, energy = 5 }", "cost = { fauna = 6, flora = 4 }")))
    for b in ("power_plant_1", "power_plant_2"):
        pay_in_jokers(g, "red", b)
        g.do(type="build", team="red", building=b)
    g.set_tracks(phytosphere=4, hydrosphere=4, atmosphere=4)
    g.give("red", fauna=6, flora=4)
    before = g.stock("red")
    g.do(type="buy_animal", team="red", animal="sheep")
    paid = {r: before.get(r, 0) - g.stock("red").get(r, 0) for r in before}
    assert {r: n for r, n in paid.items() if n} == {"fauna": 6, "flora": 4}
    assert g.problems() == []


def test_r22_reserve_discount_never_below_zero_on_fauna():
    g = Game(config_with(("cost = { fauna = 6, water = 6, energy = 5 }", "cost = { fauna = 3, water = 6, energy = 5 }")))
    for b in ("reserve",):
        pay_in_jokers(g, "blue", b)
        g.do(type="build", team="blue", building=b)
    g.set_tracks(phytosphere=4, hydrosphere=4, atmosphere=4)
    g.give("blue", energy=5, water=1)  # blue already holds 5 water
    g.do(type="buy_animal", team="blue", animal="fish")
    assert g.state.animals["blue"] == ["fish"]
    assert g.stock("blue").get("fauna", 0) == 0


def test_r21_cap_comes_from_config():
    g = Game(config_with(("cap = 2", "cap = 1")))
    pay_in_jokers(g, "red", "greenhouse")
    g.do(type="build", team="red", building="greenhouse")
    pay_in_jokers(g, "red", "reserve")
    with pytest.raises(BankError) as err:
        g.do(type="build", team="red", building="reserve")
    assert "1 buildings" in err.value.message
