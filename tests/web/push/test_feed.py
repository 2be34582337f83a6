"""The activity feed's pictures: nothing secret, and what it costs each update.

The big screen's feed (in the public picture every page gets) carries no team's tokens; a team's
phone gets only its own entries with its own tokens and points (its stock stays its own, R19); an
undo names what it undid and its reason and strikes the original; the feed rides the live path's
patches, one booking costing one entry more and one less, whatever the length of the list.
"""

from __future__ import annotations

import itertools
from pathlib import Path

import pytest

from bank.game.config import load_config
from bank.services.bank import Bank
from bank.web.field import payloads
from bank.web.push import delta

ROOT = Path(__file__).resolve().parents[3]


@pytest.fixture
def game(tmp_path):
    config = load_config(ROOT / "config.toml")
    bank = Bank.create(tmp_path / "game.db", config)
    ids = itertools.count()

    def run(**command):
        return bank.execute({"id": f"feed-{next(ids)}", "actor": "lea", **command})

    run(type="start_clock")
    yield bank, config, run
    bank.close()


def test_the_public_feed_carries_no_tokens_and_a_team_sees_only_its_own(game):
    bank, config, run = game
    run(type="harvest", team="blue", card="harvester-1", resource="water")
    run(type="fight", attacker_team="red", attacker_card="pirate-1", defender_team="blue", defender_card="harvester-1",
        winner="attacker", tokens={"water": 1})
    run(type="harvest", team="green", card="harvester-1", resource="flora")
    public = payloads.public(bank, config)["feed"]
    assert [e["type"] for e in public.values()] == ["harvest", "fight", "harvest"]
    assert all("tok" not in e for e in public.values())
    blue = payloads.team(bank, config, "blue")["team_feed"]
    assert [e["type"] for e in blue.values()] == ["harvest", "fight"]  # not green's harvest
    assert [e["tok"] for e in blue.values()] == [{"water": 1}, {"water": -1}]  # its own, never red's gain


def test_an_undo_names_what_it_undid_with_its_reason_and_the_points_before_and_after(game):
    bank, config, run = game
    run(type="inventory", team="blue", counted={"energy": 5, "water": 5, "dioxygen": 5}, reason="box counted")
    run(type="award", team="blue", points=1, reason="fair play")
    built = run(type="build", team="blue", building="power_plant_1")
    run(type="reverse", seq=built.seq, reason="wrong team")
    blue = list(payloads.team(bank, config, "blue")["team_feed"].values())
    undo, build = blue[-1], blue[-2]
    assert undo["undo"] == {"seq": built.seq, "type": "build", "what": {"building": "power_plant_1"}}
    assert (undo["reason"], undo["rep"], undo["rep_after"]) == ("wrong team", -2, 1)  # 3 -> 1
    assert (build["undone"], build["rep_after"]) == ("wrong team", 3)
    assert payloads.public(bank, config)["feed"][str(built.seq)]["undone"] == "wrong team"


def test_a_deadline_that_pays_an_event_is_in_the_feed(game):
    bank, config, run = game
    run(type="open_event", title="Drought", accepts=[], rewards=[{"points": 5}], deadline_minutes=1)
    run(type="contribute", event="ev1", team="blue", tokens={"water": 2})
    bank.tick(bank.now() + 120)  # the bank's own row closes it and pays Blue: no point without its entry
    blue = list(payloads.team(bank, config, "blue")["team_feed"].values())
    assert (blue[-1]["type"], blue[-1]["rep"]) == ("close_event", 5)


def test_one_booking_costs_one_entry_in_the_patch_whatever_the_feed_holds(game, capsys):
    """The extra bytes each update costs on the live path (bank/web/push/delta.py), measured."""
    bank, config, run = game
    for n in range(30):  # a full feed, and more
        run(type="harvest", team="blue" if n % 2 else "red", card=f"harvester-{n % 2 + 1}", resource="water", confirm=True)
    before_pub, before_blue = payloads.public(bank, config), payloads.team(bank, config, "blue")
    run(type="harvest", team="blue", card="harvester-1", resource="water", confirm=True)
    after_pub, after_blue = payloads.public(bank, config), payloads.team(bank, config, "blue")
    feed_ops = [op for op in delta.diff(before_pub, after_pub) if op[1][:1] == ["feed"]]
    team_ops = [op for op in delta.diff(before_blue, after_blue) if op[1][:1] == ["team_feed"]]
    assert sorted(op[0] for op in feed_ops) == ["d", "s"]  # one entry in, the oldest out: never the whole list
    assert sorted(op[0] for op in team_ops) == ["d", "s"]
    public_bytes, team_bytes = delta.size(feed_ops), delta.size(team_ops)
    whole = delta.size(after_pub["feed"]), delta.size(after_blue["team_feed"])
    print(f"\nfeed per booking: public patch +{public_bytes} B, team patch +{team_bytes} B; "
          f"whole feed {whole[0]} B public, {whole[1]} B team (on connect)")
    assert public_bytes < whole[0] / 4 and team_bytes < whole[1] / 2


def test_a_feed_asked_after_every_booking_is_the_feed_a_bank_reopened_on_the_file_gives(game, tmp_path):
    """The feeds' parts are made once per entry and kept (feed_tail.FeedTail.shown): after every booking, undo
    included, what the screens and each phone get is what a bank that never kept anything makes from the journal."""
    bank, config, run = game
    run(type="inventory", team="blue", counted={"energy": 5, "water": 5, "dioxygen": 5}, reason="box counted")
    steps = [dict(type="award", team="blue", points=1, reason="fair play"),
             dict(type="build", team="blue", building="power_plant_1"),
             dict(type="harvest", team="red", card="harvester-1", resource="water"),
             dict(type="award", team="blue", points=2, reason="help"),
             "reverse the build",
             dict(type="harvest", team="blue", card="harvester-1", resource="water")]
    built = None
    for step in steps:
        done = run(type="reverse", seq=built.seq, reason="wrong team") if step == "reverse the build" else run(**step)
        built = done if isinstance(step, dict) and step["type"] == "build" else built
        for _ in range(2):  # asked twice: the second from what was kept
            kept = {"public": payloads.public(bank, config)["feed"],
                    **{t: payloads.team(bank, config, t)["team_feed"] for t in config.teams}}
        fresh_bank = Bank.open(tmp_path / "game.db", config)
        try:
            fresh = {"public": payloads.public(fresh_bank, config)["feed"],
                     **{t: payloads.team(fresh_bank, config, t)["team_feed"] for t in config.teams}}
        finally:
            fresh_bank.close()
        assert kept == fresh, step
