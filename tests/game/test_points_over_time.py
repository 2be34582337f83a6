"""Points over game time per team, and the moments that decided the game, read from a played journal
(bank/game/replay.py): what the big screen replays and the report draws."""

from __future__ import annotations

import pytest
from printkit import play_sample

from bank.game.replay import MAX_FIGHTS, points_over_time, story


@pytest.fixture
def played(bank):
    """The conftest bank after the sample game the lead ends at 70 min."""
    play_sample(bank)
    return bank


def test_each_team_gets_a_step_per_change_of_its_score_at_game_seconds(played):
    curve = points_over_time(played.config, played.journal_rows(0))
    assert curve["seconds"] == 70 * 60
    assert curve["teams"]["green"] == [[0, 0], [300, 5], [1200, 11], [3000, 14], [4200, 14]]
    # An award undone a minute later is the rise and fall it was, not rewritten history.
    assert curve["teams"]["yellow"] == [[0, 0], [3600, 4], [3660, 0], [4200, 0]]
    # Every line reaches the end and ends on the team's final score.
    assert {t: c[-1] for t, c in curve["teams"].items()} == \
        {t: [4200, p] for t, p in played.state.reputation.items()}


def test_a_pause_takes_no_room_on_the_time_axis(bank):
    t0 = 1_700_000_000.0
    bank.execute({"id": "a", "type": "start_clock"}, now=t0)
    bank.execute({"id": "b", "type": "award", "team": "red", "points": 2, "reason": "tidy"}, now=t0 + 60)
    bank.execute({"id": "c", "type": "pause"}, now=t0 + 120)
    bank.execute({"id": "d", "type": "resume"}, now=t0 + 120 + 3600)  # an hour's lunch
    bank.execute({"id": "e", "type": "award", "team": "blue", "points": 3, "reason": "song"}, now=t0 + 180 + 3600)
    curve = points_over_time(bank.config, bank.journal_rows(0))
    assert curve["teams"]["blue"] == [[0, 0], [180, 3]]
    assert curve["seconds"] == 180


def test_the_story_calls_out_what_decided_the_game_then_the_podium(played):
    told = story(played.config, played.journal_rows(0))
    kinds = [(m["kind"], m["team"]) for m in told["moments"]]
    assert kinds[0] == ("first_building", "green")
    assert ("lead", "green") in kinds
    assert ("event_won", "blue") in kinds
    assert next(m for m in told["moments"] if m["kind"] == "event_won")["title"] == "Drought"
    fights = [(m["team"], m["other"]) for m in told["moments"] if m["kind"] == "fight"]
    assert fights == [("red", "blue"), ("red", "blue")]
    assert [m["at"] for m in told["moments"]] == sorted(m["at"] for m in told["moments"])
    assert [(p["rank"], p["team"]) for p in told["podium"]][:2] == [(1, "green"), (2, "red")]
    assert told["ended"]["winners"] == ["green"]


def test_a_long_game_calls_out_a_few_fights_spread_over_it(bank):
    t0 = 1_700_000_000.0
    bank.execute({"id": "s", "type": "start_clock"}, now=t0)
    for i in range(20):
        bank.execute({"id": f"f{i}", "type": "fight", "attacker_team": "red", "attacker_card": "pirate-1",
                      "defender_team": "blue", "defender_card": "harvester-1", "winner": "defender", "tokens": {}},
                     now=t0 + 200 * (i + 1))
    fights = [m for m in story(bank.config, bank.journal_rows(0))["moments"] if m["kind"] == "fight"]
    assert len(fights) == MAX_FIGHTS
    assert fights[0]["at"] == 200 and fights[-1]["at"] >= 200 * 15


def test_a_first_building_undone_gives_way_to_the_first_one_still_standing(bank):
    """Before: the undone building was dropped and no building was called first at all."""
    t0 = 1_700_000_000.0
    bank.execute({"id": "s", "type": "start_clock"}, now=t0)
    bank.execute({"id": "i", "type": "inventory", "team": "blue", "reason": "box counted",
                  "counted": {"energy": 40, "water": 40, "dioxygen": 40, "flora": 40}}, now=t0 + 10)
    bank.execute({"id": "j", "type": "inventory", "team": "red", "reason": "box counted",
                  "counted": {"energy": 40, "water": 40, "dioxygen": 40, "flora": 40}}, now=t0 + 10)
    wrong = bank.execute({"id": "b1", "type": "build", "team": "blue", "building": "power_plant_1"}, now=t0 + 60)
    bank.execute({"id": "r", "type": "reverse", "seq": wrong.seq, "reason": "wrong team"}, now=t0 + 90)
    bank.execute({"id": "b2", "type": "build", "team": "red", "building": "power_plant_1"}, now=t0 + 120)
    bank.execute({"id": "b3", "type": "build", "team": "red", "building": "greenhouse"}, now=t0 + 180)
    told = story(bank.config, bank.journal_rows(0))
    buildings = [(m["kind"], m["team"], m["at"]) for m in told["moments"] if "building" in m["kind"]]
    assert buildings == [("first_building", "red", 120)]  # one call-out, the red plant still standing
