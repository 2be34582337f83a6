"""One whole game, told as the facilitators would book it, from set-up to the winner (R1-R35)."""

import pytest

from bank.errors import BankError
from play import Game


def harvest(g, team, resource, tokens):
    """Send both harvesters back and forth until the team has gained `tokens` of a resource."""
    start = g.stock(team).get(resource, 0)
    trips = 0
    while g.stock(team).get(resource, 0) - start < tokens:
        g.do(type="harvest", team=team, card=f"harvester-{trips % 2 + 1}", resource=resource)
        g.wait(20)
        trips += 1
    return trips


def test_a_whole_game_from_setup_to_the_winner():
    g = Game()
    assert g.stock("green") == {"flora": 5}                               # R3
    g.do(type="set_option", option="team_bonus", value=True)                # R4

    # Morning: harvests, a fight, a trade.
    harvest(g, "red", "dioxygen", 4)
    harvest(g, "blue", "water", 6)
    g.do(type="fight", attacker_team="red", attacker_card="pirate-1", defender_team="blue",
         defender_card="harvester-1", winner="attacker", tokens={"water": 2})   # R18, R20
    with pytest.raises(BankError, match="must wait"):                        # R19
        g.do(type="fight", attacker_team="red", attacker_card="pirate-1", defender_team="green",
             defender_card="builder-1", winner="attacker", tokens={})
    g.wait(30)
    g.do(type="fight", attacker_team="red", attacker_card="pirate-1", defender_team="green",
         defender_card="builder-1", winner="defender", tokens={})            # a losing pirate waits 60 s
    g.do(type="trade", kind="free", merchant_team="blue", visited_team="yellow", give={"water": 2}, take={"energy": 2})

    # Buildings: green grows flora, blue purifies water.
    harvest(g, "green", "energy", 15)
    harvest(g, "green", "water", 10)
    harvest(g, "green", "dioxygen", 5)
    harvest(g, "green", "flora", 5)
    g.do(type="build", team="green", building="greenhouse")                 # R21
    assert harvest(g, "green", "flora", 30) <= 10                           # 2 + 1 per trip (R12, R4)

    # An event when the bank runs short of water (R33).
    g.do(type="open_event", title="Sécheresse", accepts=["water"], rewards=[{"points": 3}, {"jokers": 1}])
    g.do(type="contribute", event="ev1", team="blue", tokens={"water": 6})
    g.do(type="contribute", event="ev1", team="red", tokens={"water": 2})
    g.do(type="close_event", event="ev1")
    assert g.rep("blue") == 3 and g.stock("red").get("joker") == 1

    # Lunch: the first session ends by itself, the afternoon resumes it (R34).
    g.wait(g.config.duration_seconds / 2)
    assert g.tick()[-1]["type"] == "session_ended"
    with pytest.raises(BankError, match="resume"):
        g.do(type="harvest", team="red", card="harvester-1", resource="water")
    g.now += 3600  # an hour of lunch does not count
    g.do(type="resume")
    assert g.state.clock["session"] == 2

    # Afternoon: green terraforms the phytosphere, everyone helps with the rest (R24-R27).
    harvest(g, "green", "flora", 60 - g.stock("green")["flora"])
    g.do(type="raise_tracks", team="green", steps={"phytosphere": 10})
    assert g.rep("green") == 5 + 10
    for team, resource, track in (("blue", "water", "hydrosphere"), ("red", "dioxygen", "atmosphere")):
        harvest(g, team, resource, 24 - g.stock(team).get(resource, 0))
        g.do(type="raise_tracks", team=team, steps={track: 4})
    assert g.state.tracks == {"phytosphere": 10, "hydrosphere": 4, "atmosphere": 4}

    # Animals are open (R26): green buys a sheep, red the unique fox (R28, R29).
    harvest(g, "green", "fauna", 6)
    harvest(g, "green", "energy", 5)
    g.do(type="buy_animal", team="green", animal="sheep")
    harvest(g, "green", "flora", 10 - g.stock("green").get("flora", 0))
    g.do(type="exchange", team="green", tokens={"flora": 10})               # R32: +1
    assert g.rep("green") == 15 + 3 + 1

    # Green finishes the other two tracks and passes 50 reputation: it wins (R35.2).
    for resource, track, level in (("water", "hydrosphere", 4), ("dioxygen", "atmosphere", 4)):
        harvest(g, "green", resource, 6 * (10 - level) - g.stock("green").get(resource, 0))
        g.do(type="raise_tracks", team="green", steps={track: 10 - level})
    assert g.state.ended is None and g.rep("green") < 50                   # complete, not yet 50
    g.do(type="award", team="green", points=50 - g.rep("green") - 1, reason="helped the other teams")
    assert g.state.ended is None
    harvest(g, "green", "flora", 10)
    events = g.do(type="exchange", team="green", tokens={"flora": 10})
    assert events[-1] == {"type": "game_ended", "reason": "reputation", "winners": ["green"], "elapsed": events[-1]["elapsed"]}

    with pytest.raises(BankError) as err:
        g.do(type="harvest", team="red", card="harvester-1", resource="water")
    assert err.value.code == "game_over" and "green" in err.value.message
    assert g.problems() == []
    assert g.replay() == g.state
