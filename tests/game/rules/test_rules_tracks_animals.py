"""Terraformation tracks and animals (R24-R30)."""

import pytest

from bank.errors import BankError
from play import Game, config_with


def test_r24_a_step_costs_six_of_the_track_resource_and_gives_one_point():
    g = Game()
    g.give("green", flora=7)  # 5 starting + 7 = 12 flora
    g.do(type="raise_tracks", team="green", steps={"phytosphere": 2})
    assert g.state.tracks["phytosphere"] == 2
    assert g.rep("green") == 2
    assert g.state.balance("track:phytosphere", "flora") == 12


def test_r24_several_tracks_in_one_visit_paid_together():
    g = Game()
    g.give("blue", water=1, flora=6, dioxygen=6)
    g.do(type="raise_tracks", team="blue", steps={"hydrosphere": 1, "phytosphere": 1, "atmosphere": 1})
    assert g.state.tracks == {"phytosphere": 1, "hydrosphere": 1, "atmosphere": 1}
    assert g.rep("blue") == 3


def test_r24_whole_visit_refused_if_one_track_cannot_be_paid():
    g = Game()
    g.give("blue", water=1, flora=3)
    before = g.state.copy()
    with pytest.raises(BankError) as err:
        g.do(type="raise_tracks", team="blue", steps={"hydrosphere": 1, "phytosphere": 1})
    assert err.value.code == "not_enough_tokens" and "3 flora" in err.value.message
    assert g.state == before


def test_r25_icons_give_fauna_dice_and_jokers_to_the_paying_team():
    """Default board (R27): phytosphere 2 = 1 fauna, hydrosphere 2 = 1 die, atmosphere 2 = 1 joker."""
    g = Game()
    g.give("red", flora=12, water=12, dioxygen=7)
    g.dice = ["energy"]
    g.do(type="raise_tracks", team="red", steps={"phytosphere": 2, "hydrosphere": 2, "atmosphere": 2})
    assert g.stock("red") == {"fauna": 1, "energy": 1, "joker": 1}
    assert g.rolled == 1


def test_r25_icon_only_for_the_step_that_reaches_the_level():
    g = Game()
    g.give("red", flora=6)
    g.do(type="raise_tracks", team="red", steps={"phytosphere": 1})
    g.give("blue", flora=6)
    g.do(type="raise_tracks", team="blue", steps={"phytosphere": 1})
    assert g.stock("blue").get("fauna") == 1 and "fauna" not in g.stock("red")


def test_r25_joker_icons_are_tokens_not_points():
    g = Game()
    g.give("red", dioxygen=7)
    g.do(type="raise_tracks", team="red", steps={"atmosphere": 2})
    assert g.stock("red") == {"joker": 1}
    assert g.rep("red") == 2  # the two steps only


def test_r27_track_cannot_go_past_its_last_level():
    g = Game()
    g.set_tracks(hydrosphere=9)
    g.give("red", water=12)
    before = g.state.copy()
    with pytest.raises(BankError) as err:
        g.do(type="raise_tracks", team="red", steps={"hydrosphere": 2})
    assert err.value.code == "track_full" and "1 more step" in err.value.message
    assert g.state == before


def test_r24_step_cost_comes_from_config():
    g = Game(config_with(("step_cost = 6", "step_cost = 2")))
    g.do(type="raise_tracks", team="green", steps={"phytosphere": 2})  # 4 of its 5 flora
    assert g.stock("green") == {"flora": 1, "fauna": 1}


def test_r26_animals_refused_until_all_three_tracks_reach_4():
    g = Game()
    g.set_tracks(phytosphere=4, hydrosphere=4, atmosphere=3)
    g.give("blue", joker=20)
    before = g.state.copy()
    with pytest.raises(BankError) as err:
        g.do(type="buy_animal", team="blue", animal="sheep")
    assert err.value.code == "animals_locked_until_all_tracks_reach_4"
    assert "atmosphere 3" in err.value.message
    assert g.state == before
    g.set_tracks(atmosphere=4)
    g.do(type="buy_animal", team="blue", animal="sheep")
    assert g.rep("blue") == 3


def test_r28_common_animal_once_per_team_and_each_team_has_its_own():
    g = Game()
    g.set_tracks(phytosphere=4, hydrosphere=4, atmosphere=4)
    g.give("blue", joker=40)
    g.give("red", joker=20)
    g.do(type="buy_animal", team="blue", animal="hen")
    g.do(type="buy_animal", team="red", animal="hen")
    with pytest.raises(BankError) as err:
        g.do(type="buy_animal", team="blue", animal="hen")
    assert err.value.code == "animal_owned"


def test_r29_unique_animal_bought_by_one_team_is_gone_for_the_others():
    g = Game()
    g.set_tracks(phytosphere=4, hydrosphere=4, atmosphere=4)
    g.give("blue", joker=40)
    g.give("red", joker=40)
    g.do(type="buy_animal", team="blue", animal="fox")
    assert g.rep("blue") == 6
    before = g.state.copy()
    with pytest.raises(BankError) as err:
        g.do(type="buy_animal", team="red", animal="fox")
    assert err.value.code == "animal_taken" and "blue" in err.value.message
    assert g.state == before


def test_r30_reserve_and_power_plant_2_discounts_on_animals():
    g = Game()
    for b in ("reserve", "power_plant_1", "power_plant_2"):
        g.give("yellow", joker=sum(g.config.buildings[b].cost.values()))
        g.do(type="build", team="yellow", building=b)
    g.set_tracks(phytosphere=4, hydrosphere=4, atmosphere=4)
    g.give("yellow", fauna=7, flora=6, dioxygen=6, energy=5)  # fox: 12-5 fauna, 6 flora, 6 dioxygen, 10-5 energy
    held = g.stock("yellow")
    g.do(type="buy_animal", team="yellow", animal="fox")
    spent = {r: held[r] - g.stock("yellow").get(r, 0) for r in held}
    assert {r: n for r, n in spent.items() if n} == {"fauna": 7, "flora": 6, "dioxygen": 6, "energy": 5}
