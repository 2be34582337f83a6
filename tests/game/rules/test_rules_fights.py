"""Fights at the bank: rounds to win, who may attack, tokens moved, cooldowns (R18-R20)."""

import pytest

from play import Game, config_with, refused

EVERYONE = ("everyone_fights = false", "everyone_fights = true")
PIRATE_GIVES = ("losing_pirate_gives_tokens = false", "losing_pirate_gives_tokens = true")



def fight(g, attacker, defender, winner="attacker", **tokens):
    """Record a fight between two cards given as 'team/card'; returns its events."""
    a_team, a_card = attacker.split("/")
    d_team, d_card = defender.split("/")
    return g.do(type="fight", attacker_team=a_team, attacker_card=a_card, defender_team=d_team,
                defender_card=d_card, winner=winner, tokens=tokens)


def fight_event(events):
    return next(e for e in events if e["type"] == "fight")


def cooldowns(events):
    return {f"{e['team']}/{e['card']}": e["seconds"] for e in events if e["type"] == "cooldown"}


@pytest.mark.parametrize("defender, rounds", [
    ("harvester-1", [1, 3]), ("merchant-1", [1, 3]), ("builder-1", [1, 2]), ("pirate-1", [2, 2]),
])
def test_r18_rounds_when_a_pirate_attacks(defender, rounds):
    g = Game()
    assert fight_event(fight(g, "blue/pirate-1", f"red/{defender}"))["rounds"] == rounds


@pytest.mark.parametrize("attacker, defender, rounds", [
    ("harvester-1", "harvester-2", [2, 2]),
    ("merchant-1", "merchant-1", [2, 2]),
    ("builder-1", "builder-1", [2, 2]),
    ("harvester-1", "merchant-1", [2, 2]),
    ("merchant-1", "harvester-1", [2, 2]),
    ("builder-1", "merchant-1", [1, 2]),
    ("merchant-1", "builder-1", [2, 1]),
    ("builder-1", "harvester-1", [1, 2]),
    ("harvester-1", "builder-1", [2, 1]),
    ("harvester-1", "pirate-1", [3, 1]),
    ("merchant-1", "pirate-1", [3, 1]),
    ("builder-1", "pirate-1", [2, 1]),
])
def test_r18_everyone_fights_rounds_in_both_orders(attacker, defender, rounds):
    """The table is read by roles, whoever attacked: each side's number follows its role."""
    g = Game(config_with(EVERYONE))
    assert fight_event(fight(g, f"blue/{attacker}", f"red/{defender}"))["rounds"] == rounds


@pytest.mark.parametrize("attacker", ["harvester-1", "merchant-1", "builder-1"])
def test_r18_only_pirates_attack_without_everyone_fights(attacker):
    g = Game()
    refused(g, "only_pirates_attack", "pirate", "everyone fights", type="fight", attacker_team="blue",
            attacker_card=attacker, defender_team="red", defender_card="pirate-1", winner="attacker")


@pytest.mark.parametrize("attacker, defender", [
    ("harvester-1", "harvester-1"), ("merchant-1", "merchant-1"), ("builder-1", "builder-1"),
    ("harvester-1", "merchant-1"), ("builder-1", "merchant-1"), ("builder-1", "harvester-1"),
])
def test_r18_optional_pairs_refused_without_the_option(attacker, defender):
    g = Game()
    refused(g, "only_pirates_attack", "everyone fights", type="fight", attacker_team="blue",
            attacker_card=attacker, defender_team="red", defender_card=defender, winner="defender")


def test_r18_everyone_fights_switched_on_live_allows_the_optional_pairs():
    g = Game()
    g.do(type="set_option", option="everyone_fights", value=True)
    assert fight_event(fight(g, "blue/builder-1", "red/harvester-1"))["rounds"] == [1, 2]


def test_r18_everyone_fights_switched_off_again_refuses_them():
    g = Game(config_with(EVERYONE))
    g.do(type="set_option", option="everyone_fights", value=False)
    refused(g, "only_pirates_attack", "everyone fights", type="fight", attacker_team="blue",
            attacker_card="builder-1", defender_team="red", defender_card="harvester-1", winner="attacker")


def test_r18_fighting_your_own_team_refused():
    g = Game()
    refused(g, "same_team", "two different teams", type="fight", attacker_team="blue", attacker_card="pirate-1",
            defender_team="blue", defender_card="harvester-1", winner="attacker")


def test_r18_a_card_the_team_does_not_hold_cannot_fight():
    g = Game()
    refused(g, "unknown_card", "pirate-2", "pirate-1", type="fight", attacker_team="blue", attacker_card="pirate-2",
            defender_team="red", defender_card="harvester-1", winner="attacker")


def test_r20_winning_pirate_takes_the_counted_tokens():
    g = Game()
    fight(g, "blue/pirate-1", "red/harvester-1", dioxygen=3)
    assert g.stock("blue") == {"water": 5, "dioxygen": 3}
    assert g.stock("red") == {"dioxygen": 2}


def test_r20_zero_tokens_is_a_valid_count():
    g = Game()
    events = fight(g, "blue/pirate-1", "red/harvester-1")
    assert not [e for e in events if e["type"] == "transfer"]
    assert g.stock("blue") == {"water": 5} and g.stock("red") == {"dioxygen": 5}


def test_r20_tokens_move_from_loser_to_winner_when_the_defender_wins():
    g = Game(config_with(EVERYONE))
    fight(g, "blue/builder-1", "red/harvester-1", winner="defender", water=2)
    assert g.stock("blue") == {"water": 3}
    assert g.stock("red") == {"dioxygen": 5, "water": 2}


def test_r20_losing_pirate_keeps_its_tokens_by_default():
    g = Game()
    refused(g, "losing_pirate_keeps_tokens", "losing_pirate_gives_tokens", "no tokens", type="fight",
            attacker_team="blue", attacker_card="pirate-1", defender_team="red", defender_card="builder-1",
            winner="defender", tokens={"water": 2})


def test_r20_losing_pirate_recorded_with_nothing_moved_by_default():
    g = Game()
    fight(g, "blue/pirate-1", "red/builder-1", winner="defender")
    assert g.stock("blue") == {"water": 5} and g.stock("red") == {"dioxygen": 5}


def test_r20_losing_pirate_gives_its_tokens_when_configured():
    g = Game(config_with(PIRATE_GIVES))
    fight(g, "blue/pirate-1", "red/builder-1", winner="defender", water=2)
    assert g.stock("blue") == {"water": 3}
    assert g.stock("red") == {"dioxygen": 5, "water": 2}


def test_r20_counting_more_tokens_than_the_loser_holds_refused():
    g = Game()
    refused(g, "not_enough_tokens", "red", "missing 2 dioxygen", type="fight", attacker_team="blue",
            attacker_card="pirate-1", defender_team="red", defender_card="harvester-1", winner="attacker",
            tokens={"dioxygen": 7})


def test_r20_a_joker_does_not_stand_in_for_counted_tokens():
    g = Game()
    g.give("red", joker=3)
    refused(g, "not_enough_tokens", "missing 1 water", type="fight", attacker_team="blue",
            attacker_card="pirate-1", defender_team="red", defender_card="harvester-1", winner="attacker",
            tokens={"water": 1})


def test_r19_winning_pirate_waits_30s_and_its_victim_leaves_at_once():
    g = Game()
    assert cooldowns(fight(g, "blue/pirate-1", "red/harvester-1")) == {"blue/pirate-1": 30}


def test_r19_losing_pirate_waits_60s_and_the_winner_leaves_at_once():
    g = Game()
    assert cooldowns(fight(g, "blue/pirate-1", "red/merchant-1", winner="defender")) == {"blue/pirate-1": 60}


def test_r19_pirate_against_pirate_both_wait():
    g = Game()
    assert cooldowns(fight(g, "blue/pirate-1", "red/pirate-1")) == {"blue/pirate-1": 30, "red/pirate-1": 60}


def test_r19_cooldown_deadline_is_in_game_seconds():
    g = Game()
    g.wait(100)
    fight(g, "blue/pirate-1", "red/pirate-1")
    assert g.state.cooldowns == {"blue/pirate-1": 130, "red/pirate-1": 160}


def test_r19_everyone_fights_any_winner_waits_30s_other_losers_leave():
    g = Game(config_with(EVERYONE))
    assert cooldowns(fight(g, "blue/harvester-1", "red/builder-1")) == {"blue/harvester-1": 30}


def test_r19_everyone_fights_losing_pirate_still_waits_60s():
    g = Game(config_with(EVERYONE))
    events = fight(g, "blue/merchant-1", "red/pirate-1")
    assert cooldowns(events) == {"blue/merchant-1": 30, "red/pirate-1": 60}


def test_r19_everyone_fights_deadlines_in_game_seconds():
    g = Game(config_with(EVERYONE))
    g.wait(50)
    fight(g, "blue/harvester-1", "red/builder-1")
    fight(g, "yellow/builder-1", "green/pirate-1", winner="defender")
    assert g.state.cooldowns == {"blue/harvester-1": 80, "green/pirate-1": 80}


def test_r19_cooldown_rules_follow_the_option_switched_live():
    g = Game()
    g.do(type="set_option", option="everyone_fights", value=True)
    assert cooldowns(fight(g, "blue/pirate-1", "red/harvester-1", winner="defender")) == {
        "blue/pirate-1": 60, "red/harvester-1": 30}


def test_r19_a_pirate_cooling_down_cannot_fight():
    g = Game()
    fight(g, "blue/pirate-1", "red/harvester-1")
    g.wait(29)
    refused(g, "card_cooling_down", "blue", "pirate-1", "1 s", type="fight", attacker_team="blue",
            attacker_card="pirate-1", defender_team="yellow", defender_card="harvester-1", winner="attacker")


def test_r19_a_card_cooling_down_cannot_be_attacked():
    g = Game()
    fight(g, "blue/pirate-1", "red/pirate-1")
    refused(g, "card_cooling_down", "red", "pirate-1", "60 s", type="fight", attacker_team="yellow",
            attacker_card="pirate-1", defender_team="red", defender_card="pirate-1", winner="attacker")


def test_r19_a_pirate_may_fight_again_after_waiting():
    g = Game()
    fight(g, "blue/pirate-1", "red/harvester-1")
    g.wait(30)
    fight(g, "blue/pirate-1", "yellow/harvester-1")
    assert g.state.cooldowns["blue/pirate-1"] == 60


def test_r19_a_harvester_cooling_down_cannot_harvest():
    g = Game(config_with(EVERYONE))
    fight(g, "blue/harvester-1", "red/harvester-1")
    g.wait(10)
    refused(g, "card_cooling_down", "harvester-1", "20 s", type="harvest", team="blue", card="harvester-1",
            resource="water")


def test_r19_the_other_harvester_of_the_team_may_still_harvest():
    g = Game(config_with(EVERYONE))
    fight(g, "blue/harvester-1", "red/harvester-1")
    g.do(type="harvest", team="blue", card="harvester-2", resource="water")
    assert g.stock("blue") == {"water": 6}


def test_r19_a_harvester_may_harvest_again_after_waiting():
    g = Game(config_with(EVERYONE))
    fight(g, "blue/harvester-1", "red/harvester-1")
    g.wait(30)
    g.do(type="harvest", team="blue", card="harvester-1", resource="water")
    assert g.stock("blue") == {"water": 6}


def test_r19_cooldowns_freeze_while_the_clock_is_paused():
    g = Game()
    fight(g, "blue/pirate-1", "red/harvester-1")
    g.wait(10)
    g.do(type="pause")
    g.wait(600)
    g.do(type="resume")
    refused(g, "card_cooling_down", "20 s", type="fight", attacker_team="blue", attacker_card="pirate-1",
            defender_team="yellow", defender_card="harvester-1", winner="attacker")
    g.wait(20)
    fight(g, "blue/pirate-1", "yellow/harvester-1")


def test_r18_r20_fights_keep_the_invariants_and_replay():
    g = Game(config_with(EVERYONE, PIRATE_GIVES))
    fight(g, "blue/pirate-1", "red/harvester-1", dioxygen=2)
    fight(g, "red/builder-1", "yellow/merchant-1", winner="defender")
    fight(g, "green/merchant-1", "blue/harvester-2", winner="attacker", water=1, dioxygen=1)
    fight(g, "yellow/pirate-1", "green/pirate-1", winner="defender", energy=4)
    assert g.problems() == []
    assert g.replay() == g.state
