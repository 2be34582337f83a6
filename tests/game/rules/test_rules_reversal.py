"""Corrections: a mistaken entry is undone by a new reversing entry; the journal keeps both."""

import pytest

from play import Game, config_with, refused



def last_seq(g):
    """The journal number of the last entry, as a facilitator reads it on the screen."""
    return g.rows[-1]["seq"]


def held(state):
    """Every account's tokens, leaving out accounts emptied since (they stay as {})."""
    return {account: tokens for account, tokens in state.balances.items() if tokens}


def undo(g, seq, reason="wrong team"):
    return g.do(type="reverse", seq=seq, reason=reason)


def build(g, team, building):
    """Pay a building with jokers given just before; returns the build's journal number."""
    g.give(team, joker=sum(g.config.buildings[building].cost.values()))
    g.do(type="build", team=team, building=building)
    return last_seq(g)


def test_reversing_a_harvest_gives_the_tokens_back_to_the_bank():
    g = Game()
    before = g.state.copy()
    g.do(type="harvest", team="blue", card="harvester-1", resource="fauna")
    undo(g, last_seq(g))
    assert g.stock("blue") == {"water": 5}
    assert held(g.state) == held(before)


def test_reversing_a_building_takes_it_back_with_its_points_and_returns_the_tokens():
    g = Game()
    g.give("red", energy=15, water=10)
    before = g.state.copy()
    g.do(type="build", team="red", building="purification_centre")
    undo(g, last_seq(g))
    assert g.state.buildings["red"] == [] and g.rep("red") == 0
    assert g.stock("red") == {"dioxygen": 5, "energy": 15, "water": 10}
    assert held(g.state) == held(before)


def test_a_reversed_building_may_be_built_again():
    g = Game()
    seq = build(g, "red", "purification_centre")
    undo(g, seq)
    build(g, "red", "purification_centre")
    assert g.state.buildings["red"] == ["purification_centre"] and g.rep("red") == 3


def test_reversing_a_building_others_were_built_on_refused():
    g = Game()
    first = build(g, "red", "power_plant_1")
    build(g, "red", "power_plant_2")
    refused(g, "cannot_reverse", "power_plant_1", "undo those buildings first", type="reverse", seq=first,
            reason="mistake")


def test_reversing_the_building_that_lifted_the_cap_refused_when_over_the_cap():
    g = Game()
    lift = build(g, "red", "power_plant_1")
    for building in ("purification_centre", "greenhouse", "reserve"):
        build(g, "red", building)
    refused(g, "cannot_reverse", "power_plant_1", "undo those buildings first", type="reverse", seq=lift,
            reason="mistake")


def test_reversing_a_unique_animal_makes_it_available_again():
    g = Game()
    g.set_tracks(phytosphere=4, hydrosphere=4, atmosphere=4)
    g.give("blue", joker=34)
    g.do(type="buy_animal", team="blue", animal="fox")
    seq = last_seq(g)
    rep = g.rep("blue")
    undo(g, seq)
    assert g.state.animals["blue"] == [] and g.rep("blue") == rep - 6
    assert g.stock("blue")["joker"] == 34
    g.give("red", joker=34)
    g.do(type="buy_animal", team="red", animal="fox")
    assert g.state.owns_animal("fox") == "red"


def test_reversing_an_animal_a_building_required_refused():
    """The laboratory was built on 3 animals; taking one back would leave it with 2."""
    g = Game()
    g.set_tracks(phytosphere=4, hydrosphere=4, atmosphere=4)
    for animal in ("sheep", "rabbit", "fish"):
        g.give("blue", joker=sum(g.config.animals[animal].cost.values()))
        g.do(type="buy_animal", team="blue", animal=animal)
    third = last_seq(g)
    build(g, "blue", "laboratory")
    refused(g, "cannot_reverse", "laboratory", "3 animals", type="reverse", seq=third, reason="mistake")


def test_reversing_track_steps_lowers_the_track_and_takes_back_icons_and_points():
    g = Game()
    g.give("blue", joker=12)
    before = g.state.copy()
    g.dice = ["energy"]
    g.do(type="raise_tracks", team="blue", steps={"hydrosphere": 2})
    assert g.state.tracks["hydrosphere"] == 2 and g.stock("blue")["energy"] == 1 and g.rep("blue") == 2
    undo(g, last_seq(g))
    assert g.state.tracks["hydrosphere"] == 0 and g.rep("blue") == 0
    assert held(g.state) == held(before)


def test_reversing_track_steps_refused_once_the_track_moved_on():
    g = Game()
    g.give("blue", joker=6)
    g.do(type="raise_tracks", team="blue", steps={"phytosphere": 1})
    seq = last_seq(g)
    g.give("red", joker=6)
    g.do(type="raise_tracks", team="red", steps={"phytosphere": 1})
    refused(g, "cannot_reverse", "phytosphere", "moved on", type="reverse", seq=seq, reason="mistake")


def test_reversing_track_steps_allowed_when_another_track_moved():
    g = Game()
    g.give("blue", joker=6)
    g.do(type="raise_tracks", team="blue", steps={"phytosphere": 1})
    seq = last_seq(g)
    g.give("red", joker=6)
    g.do(type="raise_tracks", team="red", steps={"atmosphere": 1})
    undo(g, seq)
    assert g.state.tracks == {"phytosphere": 0, "hydrosphere": 0, "atmosphere": 1}


def test_reversing_an_award():
    g = Game()
    g.do(type="award", team="green", points=4, reason="fair play")
    undo(g, last_seq(g), "meant yellow")
    assert g.rep("green") == 0


def test_reversing_a_penalty_gives_the_points_back():
    g = Game()
    g.do(type="award", team="green", points=4, reason="fair play")
    g.do(type="award", team="green", points=-3, reason="left the zone")
    undo(g, last_seq(g), "it was not them")
    assert g.rep("green") == 4


def test_reversing_an_award_already_spent_by_a_penalty_refused():
    g = Game()
    g.do(type="award", team="green", points=4, reason="fair play")
    seq = last_seq(g)
    g.do(type="award", team="green", points=-3, reason="left the zone")
    refused(g, "cannot_reverse", "green", "reputation", type="reverse", seq=seq, reason="mistake")


def test_reversing_a_fight_moves_the_tokens_back():
    g = Game()
    g.do(type="fight", attacker_team="blue", attacker_card="pirate-1", defender_team="red",
         defender_card="harvester-1", winner="attacker", tokens={"dioxygen": 2})
    undo(g, last_seq(g))
    assert g.stock("blue") == {"water": 5} and g.stock("red") == {"dioxygen": 5}


PIRATES = dict(type="fight", attacker_team="blue", attacker_card="pirate-1", defender_team="red",
               defender_card="pirate-1", tokens={})


def test_r19_reversing_a_fight_ends_the_waits_it_started():
    g = Game()
    g.do(**PIRATES, winner="attacker")
    assert set(g.state.cooldowns) == {"blue/pirate-1", "red/pirate-1"}
    undo(g, last_seq(g), "the referee tapped the wrong winner")
    assert g.state.cooldowns == {}
    g.do(**PIRATES, winner="defender")  # the right result, at once: nobody is still waiting
    assert g.replay() == g.state


def test_r19_reversing_an_old_fight_keeps_the_wait_of_a_later_one():
    g = Game()
    g.do(**PIRATES, winner="attacker")
    first = last_seq(g)
    g.wait(61)  # both waits have run out
    g.do(**PIRATES, winner="defender")
    later = dict(g.state.cooldowns)
    undo(g, first, "booked twice")
    assert g.state.cooldowns == later


def test_r14_reversing_a_harvest_frees_the_harvester_from_the_interval():
    g = Game(config_with(("min_interval_seconds = 0", "min_interval_seconds = 120")))
    g.do(type="harvest", team="blue", card="harvester-1", resource="flora")
    undo(g, last_seq(g), "it was water")
    assert "blue/harvester-1" not in g.state.last_harvest
    g.do(type="harvest", team="blue", card="harvester-1", resource="water")
    assert g.replay() == g.state


def test_r14_reversing_an_old_harvest_keeps_the_later_one():
    g = Game(config_with(("min_interval_seconds = 0", "min_interval_seconds = 120")))
    g.do(type="harvest", team="blue", card="harvester-1", resource="flora")
    first = last_seq(g)
    g.wait(121)
    g.do(type="harvest", team="blue", card="harvester-1", resource="water")
    later = g.state.last_harvest["blue/harvester-1"]
    undo(g, first, "booked on the wrong day")
    assert g.state.last_harvest["blue/harvester-1"] == later
    assert refused(g, "harvest_too_soon", type="harvest", team="blue", card="harvester-1", resource="water")


def test_reversing_a_contribution_while_the_event_is_open():
    g = Game()
    g.do(type="open_event", title="Drought", accepts=[], rewards=[{"points": 3}])
    g.do(type="contribute", event="ev1", team="blue", tokens={"water": 2})
    undo(g, last_seq(g))
    assert g.state.events["ev1"]["given"] == {} and g.stock("blue") == {"water": 5}


def test_reversing_a_contribution_after_the_event_closed_refused():
    g = Game()
    g.do(type="open_event", title="Drought", accepts=[], rewards=[{"points": 3}])
    g.do(type="contribute", event="ev1", team="blue", tokens={"water": 2})
    seq = last_seq(g)
    g.do(type="close_event", event="ev1")
    refused(g, "cannot_reverse", "event is closed", type="reverse", seq=seq, reason="mistake")


def test_reversing_twice_refused():
    g = Game()
    g.do(type="harvest", team="blue", card="harvester-1", resource="fauna")
    seq = last_seq(g)
    undo(g, seq)
    refused(g, "already_reversed", f"entry {seq}", type="reverse", seq=seq, reason="again")


def test_reversing_a_reversal_refused():
    g = Game()
    g.do(type="harvest", team="blue", card="harvester-1", resource="fauna")
    undo(g, last_seq(g))
    refused(g, "cannot_reverse", "reverse", type="reverse", seq=last_seq(g), reason="undo the undo")


@pytest.mark.parametrize("seq, kind", [(1, "setup"), (2, "start_clock")])
def test_reversing_setup_or_the_clock_start_refused(seq, kind):
    g = Game()
    refused(g, "cannot_reverse", kind, "cannot be undone", type="reverse", seq=seq, reason="mistake")


@pytest.mark.parametrize("command", [{"type": "pause"}, {"type": "end_session"}])
def test_reversing_a_clock_command_refused(command):
    g = Game()
    g.do(**command)
    g.do(type="resume")
    refused(g, "cannot_reverse", command["type"], type="reverse", seq=last_seq(g) - 1, reason="mistake")


def test_reversing_a_live_option_refused():
    g = Game()
    g.do(type="set_option", option="team_bonus", value=True)
    refused(g, "cannot_reverse", "set_option", "new command", type="reverse", seq=last_seq(g), reason="mistake")


def test_reversing_an_unknown_entry_refused():
    g = Game()
    refused(g, "unknown_entry", "99", type="reverse", seq=99, reason="mistake")


def test_reversing_without_a_reason_refused():
    g = Game()
    g.do(type="harvest", team="blue", card="harvester-1", resource="fauna")
    refused(g, "missing_text", "reason", type="reverse", seq=last_seq(g))


def test_reversal_refused_when_the_tokens_were_spent_since():
    g = Game()
    g.do(type="harvest", team="blue", card="harvester-1", resource="fauna")
    seq = last_seq(g)
    g.do(type="trade", kind="free", merchant_team="blue", visited_team="red", give={"fauna": 1}, take={})
    refused(g, "cannot_reverse", "team:blue with -1 fauna", "spent", type="reverse", seq=seq, reason="mistake")


def test_the_journal_keeps_the_entry_and_its_reversal():
    g = Game()
    g.do(type="harvest", team="blue", card="harvester-1", resource="fauna")
    seq = last_seq(g)
    events = undo(g, seq, "wrong card")
    assert g.rows[seq - 1]["command"]["type"] == "harvest"
    assert g.rows[-1]["command"] == {"type": "reverse", "seq": seq, "reason": "wrong card"}
    assert events[-1] == {"type": "reversed", "seq": seq, "reason": "wrong card"}
    assert all(e["reason"] == "reversal:harvest" for e in events if e["type"] == "transfer")
    assert g.state.reversed == [seq]


def test_reversals_keep_the_invariants_and_replay():
    g = Game()
    g.dice = ["joker", "water"]
    g.do(type="harvest", team="blue", card="harvester-1", resource="fauna")
    harvest = last_seq(g)
    building = build(g, "red", "purification_centre")
    g.give("yellow", joker=12)
    g.do(type="raise_tracks", team="yellow", steps={"hydrosphere": 2})
    steps = last_seq(g)
    g.do(type="award", team="green", points=2, reason="fair play")
    award = last_seq(g)
    for seq in (harvest, building, steps, award):
        undo(g, seq)
    assert g.state.tracks["hydrosphere"] == 0 and g.state.buildings["red"] == []
    assert g.problems() == []
    assert g.replay() == g.state
