"""The end of the game when terraformation is complete: 50 reputation or 6 animals (R35.2, R35.3)."""

import pytest

from bank.errors import BankError
from play import Game

COMMONS = ["sheep", "rabbit", "fish", "hen"]
UNIQUES = ["fox", "turtle", "goose", "hedgehog", "otter"]


def award(g, team, points):
    g.do(type="award", team=team, points=points, reason="test")


def complete(g):
    """Raise every track to its last level (green pays, +30 reputation for green); returns the last events."""
    g.set_tracks(phytosphere=10, hydrosphere=10)
    track = g.config.tracks["atmosphere"]
    steps = track.length - g.state.tracks["atmosphere"]
    g.give("green", joker=track.step_cost * steps)
    return g.do(type="raise_tracks", team="green", steps={"atmosphere": steps})


def open_animals(g):
    """Bring every track to the unlock level so animals are on sale (R26)."""
    level = g.config.animal_unlock_level
    g.set_tracks(phytosphere=level, hydrosphere=level, atmosphere=level)


def buy(g, team, *animals):
    """A team buys animals, paying with jokers; returns the events of the last purchase."""
    events = []
    for animal in animals:
        g.give(team, joker=sum(g.config.animals[animal].cost.values()))
        events = g.do(type="buy_animal", team=team, animal=animal)
    return events


def ended(events):
    return next((e for e in events if e["type"] == "game_ended"), None)


def test_r35_fifty_reputation_does_not_end_the_game_before_terraformation():
    g = Game()
    award(g, "blue", 60)
    g.set_tracks(phytosphere=10, hydrosphere=10, atmosphere=9)
    assert g.state.ended is None and g.state.clock["status"] == "running"


def test_r35_six_animals_do_not_end_the_game_before_terraformation():
    g = Game()
    open_animals(g)
    buy(g, "blue", *COMMONS, "fox", "otter")
    assert len(g.state.animals["blue"]) == 6 and g.state.ended is None


def test_r35_completion_with_one_team_at_fifty_ends_it_for_that_team():
    g = Game()
    award(g, "blue", 50)
    award(g, "red", 49)
    assert ended(complete(g)) == {"type": "game_ended", "reason": "reputation", "winners": ["blue"], "elapsed": 0.0}
    assert g.state.ended["winners"] == ["blue"] and g.state.clock["status"] == "ended"


def test_r35_completion_with_several_at_fifty_most_reputation_wins():
    g = Game()
    award(g, "blue", 55)
    award(g, "red", 61)
    award(g, "yellow", 50)
    assert ended(complete(g))["winners"] == ["red"]


def test_r35_completion_with_several_at_fifty_and_equal_reputation_is_a_tie():
    g = Game()
    award(g, "blue", 55)
    award(g, "red", 55)
    award(g, "yellow", 50)
    assert ended(complete(g))["winners"] == ["blue", "red"]


def test_r35_the_team_completing_terraformation_counts_its_own_step_points():
    """Green's 30 steps bring it from 20 to 50 with the very step that completes the tracks."""
    g = Game()
    award(g, "green", 20)
    events = complete(g)
    assert g.rep("green") == 50
    assert ended(events)["winners"] == ["green"]


def test_r35_completion_with_nobody_at_fifty_goes_on():
    g = Game()
    award(g, "blue", 49)
    assert ended(complete(g)) is None
    assert g.state.clock["status"] == "running"


def test_r35_after_completion_the_first_team_to_reach_fifty_wins():
    g = Game()
    award(g, "red", 49)
    complete(g)
    award(g, "blue", 45)
    events = g.do(type="award", team="blue", points=5, reason="test")
    assert ended(events)["winners"] == ["blue"] and ended(events)["reason"] == "reputation"


def test_r35_after_completion_reaching_fifty_by_building_wins():
    g = Game()
    complete(g)
    award(g, "yellow", 48)
    g.give("yellow", joker=15)
    events = g.do(type="build", team="yellow", building="power_plant_1")
    assert g.rep("yellow") == 50 and ended(events)["winners"] == ["yellow"]


def test_r35_after_completion_an_event_reward_reaching_fifty_wins():
    g = Game()
    complete(g)
    award(g, "blue", 45)
    g.do(type="open_event", title="Drought", accepts=[], rewards=[{"points": 5}])
    g.do(type="contribute", event="ev1", team="blue", tokens={"water": 1})
    events = g.do(type="close_event", event="ev1")
    assert ended(events)["winners"] == ["blue"]


def test_r35_after_completion_an_event_closed_by_its_deadline_reaching_fifty_wins():
    """The tick that closes an event gives its points; crossing 50 there must end the game too."""
    g = Game()
    complete(g)
    award(g, "blue", 45)
    g.do(type="open_event", title="Drought", accepts=[], rewards=[{"points": 5}], deadline_minutes=1)
    g.do(type="contribute", event="ev1", team="blue", tokens={"water": 1})
    g.wait(60)
    events = g.tick()
    assert ended(events) == {"type": "game_ended", "reason": "reputation", "winners": ["blue"], "elapsed": 60.0}


def test_r35_completion_with_one_team_at_six_animals_ends_it_for_that_team():
    g = Game()
    open_animals(g)
    buy(g, "blue", *COMMONS, "fox", "otter")
    buy(g, "red", *COMMONS, "goose")
    assert ended(complete(g)) == {"type": "game_ended", "reason": "animals", "winners": ["blue"], "elapsed": 0.0}


def test_r35_completion_with_several_at_six_animals_most_animals_wins():
    """Seven animals beat six, even with less reputation."""
    g = Game()
    open_animals(g)
    buy(g, "blue", *COMMONS, "fox", "otter", "goose")
    buy(g, "red", *COMMONS, "turtle", "hedgehog")
    award(g, "red", 10)
    assert g.rep("red") > g.rep("blue")
    assert ended(complete(g))["winners"] == ["blue"]


def test_r35_completion_with_several_at_six_animals_tie_broken_by_reputation():
    g = Game()
    open_animals(g)
    buy(g, "blue", *COMMONS, "fox", "otter")
    buy(g, "red", *COMMONS, "turtle", "hedgehog")
    award(g, "red", 1)
    assert ended(complete(g))["winners"] == ["red"]


def test_r35_completion_with_equal_animals_and_reputation_is_a_tie():
    g = Game()
    open_animals(g)
    buy(g, "blue", *COMMONS, "fox", "otter")
    buy(g, "red", *COMMONS, "turtle", "hedgehog")
    assert ended(complete(g))["winners"] == ["blue", "red"]


def test_r35_after_completion_the_team_buying_its_sixth_animal_wins():
    g = Game()
    open_animals(g)
    buy(g, "blue", *COMMONS, "fox")
    buy(g, "red", *COMMONS, "turtle")
    award(g, "red", 10)
    assert ended(complete(g)) is None
    events = buy(g, "blue", "otter")
    assert ended(events) == {"type": "game_ended", "reason": "animals", "winners": ["blue"], "elapsed": 0.0}


def test_r35_reputation_condition_checked_before_animals_at_completion():
    """Decision of the engine: both met by the same step, condition 2 (reputation) decides."""
    g = Game()
    open_animals(g)
    buy(g, "blue", *COMMONS, "fox", "otter")
    award(g, "red", 50)
    assert ended(complete(g)) == {"type": "game_ended", "reason": "reputation", "winners": ["red"], "elapsed": 0.0}


def test_r35_after_the_end_nothing_more_is_booked():
    g = Game()
    award(g, "blue", 50)
    complete(g)
    before = g.state.copy()
    with pytest.raises(BankError) as caught:
        g.do(type="harvest", team="red", card="harvester-1", resource="water")
    assert caught.value.code == "game_over" and "blue" in caught.value.message
    assert g.state == before


def test_r35_the_end_keeps_the_invariants_and_replays():
    g = Game()
    open_animals(g)
    buy(g, "blue", *COMMONS, "fox", "otter")
    complete(g)
    assert g.state.ended["reason"] == "animals"
    assert g.problems() == []
    assert g.replay() == g.state
