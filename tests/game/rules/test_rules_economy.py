"""Jokers, the exchange rate, reserve refills, inventories, awards and options (R6, R8, R9, R31, R32)."""

import pytest

from bank.errors import BankError
from play import Game


def test_r6_jokers_redeemed_for_one_point_each():
    g = Game()
    g.give("red", joker=3)
    g.do(type="redeem_jokers", team="red", jokers=2)
    assert g.rep("red") == 2 and g.stock("red")["joker"] == 1


def test_r6_cannot_redeem_more_jokers_than_held():
    g = Game()
    g.give("red", joker=1)
    before = g.state.copy()
    with pytest.raises(BankError) as err:
        g.do(type="redeem_jokers", team="red", jokers=2)
    assert err.value.code == "not_enough_tokens" and "1 joker" in err.value.message
    assert g.state == before


def test_r32_exchange_at_the_default_rate():
    g = Game()
    g.give("blue", flora=5, fauna=10)
    g.do(type="exchange", team="blue", tokens={"water": 5, "flora": 5, "fauna": 10})
    assert g.rep("blue") == 2 and g.stock("blue") == {}


def test_r32_exchange_needs_a_multiple_of_the_rate():
    g = Game()
    before = g.state.copy()
    with pytest.raises(BankError) as err:
        g.do(type="exchange", team="blue", tokens={"water": 5})
    assert err.value.code == "exchange_not_a_multiple" and "give 10" in err.value.message
    assert g.state == before


def test_r32_rate_change_applies_from_the_moment_it_is_made():
    g = Game()
    g.give("blue", water=5, fauna=10)
    g.do(type="exchange", team="blue", tokens={"water": 10})
    g.do(type="set_rate", tokens=5, points=2)
    g.do(type="exchange", team="blue", tokens={"fauna": 10})
    assert g.rep("blue") == 1 + 4
    assert g.state.rate == {"tokens": 5, "points": 2}


def test_r32_jokers_are_redeemed_not_exchanged():
    g = Game()
    g.give("blue", joker=10)
    with pytest.raises(BankError) as err:
        g.do(type="exchange", team="blue", tokens={"joker": 10})
    assert err.value.code == "unknown_resource"


def test_r8_refill_adds_to_the_reserve_from_the_supply():
    g = Game()
    g.do(type="refill", resource="energy", amount=30)
    assert g.state.balance("reserve", "energy") == 95 + 30
    assert g.problems() == []


def test_r31_award_and_penalty_need_a_reason():
    g = Game()
    g.do(type="award", team="red", points=3, reason="helped another team")
    g.do(type="award", team="red", points=-1, reason="left the play area")
    assert g.rep("red") == 2
    with pytest.raises(BankError) as err:
        g.do(type="award", team="red", points=2, reason="  ")
    assert err.value.code == "missing_text" and "reason" in err.value.message


def test_r31_penalty_cannot_take_the_score_below_zero():
    g = Game()
    g.do(type="award", team="red", points=1, reason="fair play")
    before = g.state.copy()
    with pytest.raises(BankError) as err:
        g.do(type="award", team="red", points=-3, reason="cheating")
    assert err.value.code == "penalty_exceeds_score" and "at most 1" in err.value.message
    assert g.state == before


def test_inventory_count_reconciles_a_team_stock_both_ways():
    g = Game()
    g.do(type="inventory", team="blue", counted={"water": 3, "energy": 2}, reason="box counted at lunch")
    assert g.stock("blue") == {"water": 3, "energy": 2}
    assert g.state.balance("reserve", "water") == 100 - 5 + 2
    assert g.problems() == []


def test_r9_second_pirate_card_only_with_the_option_and_paid():
    g = Game()
    with pytest.raises(BankError) as err:
        g.do(type="buy_second_pirate", team="red")
    assert err.value.code == "option_off"
    g.do(type="set_option", option="second_pirate", value=True, cost={"dioxygen": 3})
    g.do(type="buy_second_pirate", team="red")
    assert g.stock("red") == {"dioxygen": 2}
    assert "pirate-2" in g.config.cards(tuple(g.state.extra_cards["red"]))
    with pytest.raises(BankError) as err:
        g.do(type="buy_second_pirate", team="red")
    assert err.value.code == "card_owned"


def test_unknown_command_and_malformed_fields_are_named():
    g = Game()
    with pytest.raises(BankError) as err:
        g.do(type="buy_planet", team="red")
    assert err.value.code == "unknown_command"
    with pytest.raises(BankError) as err:
        g.do(type="harvest", team="purple", card="harvester-1", resource="water")
    assert err.value.code == "unknown_team" and "blue" in err.value.message
    with pytest.raises(BankError) as err:
        g.do(type="refill", resource="water", amount=-4)
    assert err.value.code == "out_of_range"
    with pytest.raises(BankError) as err:
        g.do(type="harvest", team="red", card="harvester-1")
    assert err.value.code == "missing_field" and "resource" in err.value.message
