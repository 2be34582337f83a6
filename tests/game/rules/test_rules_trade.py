"""Trades between teams: free trade and the forced one-for-one exchange (R16, R17)."""

import pytest

from play import Game, refused



def trade(g, kind="free", give=None, take=None, merchant="blue", visited="red"):
    """The merchant's team gives `give` and takes `take` from the visited team."""
    return g.do(type="trade", kind=kind, merchant_team=merchant, visited_team=visited, give=give or {}, take=take or {})


def test_r16_free_trade_any_amounts_both_ways():
    g = Game()
    g.give("red", joker=2)
    trade(g, give={"water": 4}, take={"dioxygen": 3, "joker": 2})
    assert g.stock("blue") == {"water": 1, "dioxygen": 3, "joker": 2}
    assert g.stock("red") == {"dioxygen": 2, "water": 4}


def test_r16_free_trade_may_go_one_way_only():
    """A gift is a free trade too: the merchant gives and takes nothing back."""
    g = Game()
    trade(g, give={"water": 5})
    assert g.stock("blue") == {} and g.stock("red") == {"dioxygen": 5, "water": 5}


def test_r16_free_trade_moving_nothing_refused():
    g = Game()
    refused(g, "nothing_given", "at least one token", type="trade", kind="free", merchant_team="blue",
            visited_team="red", give={}, take={})


def test_r16_trade_records_who_gave_what():
    g = Game()
    events = trade(g, give={"water": 2}, take={"dioxygen": 1})
    record = next(e for e in events if e["type"] == "trade")
    assert record == {"type": "trade", "kind": "free", "merchant_team": "blue", "visited_team": "red",
                      "give": {"water": 2}, "take": {"dioxygen": 1}}


def test_r17_forced_exchange_one_for_one():
    g = Game()
    trade(g, "forced", give={"water": 1}, take={"dioxygen": 1})
    assert g.stock("blue") == {"water": 4, "dioxygen": 1}
    assert g.stock("red") == {"dioxygen": 4, "water": 1}


@pytest.mark.parametrize("give, take, counted", [
    ({"water": 2}, {"dioxygen": 1}, "gives 2 and takes 1"),
    ({"water": 1}, {"dioxygen": 2}, "gives 1 and takes 2"),
    ({"water": 1, "joker": 1}, {"dioxygen": 1}, "gives 2 and takes 1"),
])
def test_r17_forced_exchange_of_more_than_one_token_refused(give, take, counted):
    g = Game()
    g.give("blue", joker=1)
    refused(g, "forced_trade_is_one_for_one", "exactly one token each way", counted, type="trade", kind="forced",
            merchant_team="blue", visited_team="red", give=give, take=take)


@pytest.mark.parametrize("side", ["give", "take"])
def test_r17_forced_exchange_one_way_only_refused(side):
    g = Game()
    command = {"give": {"water": 1}, "take": {"dioxygen": 1}}
    command[side] = {}
    refused(g, "nothing_given", f"'{side}'", type="trade", kind="forced", merchant_team="blue", visited_team="red",
            **command)


def test_r17_merchant_may_not_take_a_joker_in_a_forced_exchange():
    g = Game()
    g.give("red", joker=1)
    refused(g, "forced_trade_no_joker", "joker", type="trade", kind="forced", merchant_team="blue",
            visited_team="red", give={"water": 1}, take={"joker": 1})


def test_r17_visited_team_may_take_the_merchants_joker():
    """The no-joker limit binds the merchant only; the visited team chooses any carried token."""
    g = Game()
    g.give("blue", joker=1)
    trade(g, "forced", give={"joker": 1}, take={"dioxygen": 1})
    assert g.stock("red") == {"dioxygen": 4, "joker": 1}


def test_r16_merchant_may_take_a_joker_in_a_free_trade():
    g = Game()
    g.give("red", joker=1)
    trade(g, give={"water": 1}, take={"joker": 1})
    assert g.stock("blue") == {"water": 4, "joker": 1}


def test_r16_merchant_giving_tokens_it_does_not_hold_refused():
    g = Game()
    refused(g, "not_enough_tokens", "blue", "missing 2 water", type="trade", kind="free", merchant_team="blue",
            visited_team="red", give={"water": 7}, take={"dioxygen": 1})


def test_r16_taking_tokens_the_visited_team_does_not_hold_refused():
    g = Game()
    refused(g, "not_enough_tokens", "red", "missing 1 flora", type="trade", kind="free", merchant_team="blue",
            visited_team="red", give={"water": 1}, take={"flora": 1})


def test_r17_forced_exchange_of_a_token_not_held_refused():
    g = Game()
    refused(g, "not_enough_tokens", "blue", "missing 1 energy", type="trade", kind="forced", merchant_team="blue",
            visited_team="red", give={"energy": 1}, take={"dioxygen": 1})


def test_r16_a_joker_does_not_stand_in_for_traded_tokens():
    """Trades move the very tokens carried (R23 is for payments to the bank)."""
    g = Game()
    g.give("blue", joker=3)
    refused(g, "not_enough_tokens", "missing 1 flora", type="trade", kind="free", merchant_team="blue",
            visited_team="red", give={"flora": 1}, take={})


def test_r16_trading_with_your_own_team_refused():
    g = Game()
    refused(g, "same_team", "two different teams", type="trade", kind="free", merchant_team="blue",
            visited_team="blue", give={"water": 1})


def test_r16_unknown_kind_of_trade_refused():
    g = Game()
    refused(g, "unknown_kind_of_trade", "free", "forced", type="trade", kind="swap", merchant_team="blue",
            visited_team="red", give={"water": 1})


def test_r16_r17_trades_keep_the_invariants_and_replay():
    g = Game()
    g.give("green", joker=2)
    trade(g, give={"water": 3}, take={"dioxygen": 2})
    trade(g, "forced", merchant="green", visited="blue", give={"joker": 1}, take={"dioxygen": 1})
    trade(g, merchant="yellow", visited="green", give={"energy": 5}, take={"flora": 5, "joker": 1})
    assert g.problems() == []
    assert g.replay() == g.state
