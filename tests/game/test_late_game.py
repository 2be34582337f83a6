"""A command decides on a copy-on-first-touch draft of the live state, and the
committed states share what a command did not touch. These tests hold the guarantees
that made the whole-state copy safe: a refused command changes nothing (R33-R35 rules
included), the live state is always a replay of the journal, a committed state is never
changed afterwards, and a game file written before the change opens to the same state.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from unittest import mock

from hypothesis import HealthCheck, given, settings

from bank.game import engine
from bank.services import bank as service
from bank.game import views
from bank.errors import BankError
from bank.services.bank import Bank
from bank.game.state import FIELDS, GameState
from bank.game.turn import Turn
from play import Game
from test_properties import PLAIN, TEAMS, steps

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"


class RecordingTurn(Turn):
    """The engine's Turn, remembered so a test can look at the draft it decided on."""

    made: list = []

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        RecordingTurn.made.append(self)


def rich_game() -> Game:
    g = Game()
    for t in TEAMS:  # rich teams, so that purchases, trades and fights happen, not only refusals
        g.give(t, joker=10, **{r: 30 for r in PLAIN})
    return g


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(steps)
def test_random_commands_live_state_is_the_replay_and_committed_states_never_change(plan):
    g = rich_game()
    committed = [(g.state, g.state.to_dict())]  # every state the game has had, with what it held
    with mock.patch.object(engine, "Turn", RecordingTurn):
        for command, wait, faces in plan:
            g.wait(wait)
            g.dice = list(faces)
            before, rows = g.state, len(g.rows)
            RecordingTurn.made.clear()
            try:
                g.do(**command)
            except BankError:
                # A refusal leaves the very same state, holding what it held (==), and the
                # draft the rules worked on owns every container it touched.
                assert g.state is before and len(g.rows) == rows
                assert before.to_dict() == committed[-1][1], f"a refused {command['type']} changed the state"
                for turn in RecordingTurn.made:
                    for name in turn.state.touched():
                        assert getattr(turn.state, name) is not getattr(before, name), name
            else:
                turn = RecordingTurn.made[-1]
                untouched = set(FIELDS) - turn.state.touched() - {"event_counter", "ended"}
                assert all(getattr(g.state, name) is getattr(before, name) for name in untouched)
                committed.append((g.state, g.state.to_dict()))
            assert g.replay() == g.state, command
            # What is kept with a committed state is what a full read of its events says (R33).
            events = g.state.events
            assert g.state.open_event_ids() == tuple(e for e, r in events.items() if r["status"] == "open")
            last_closed = [e for e, r in events.items() if r["status"] != "open"][-views.RECENT_CLOSED_EVENTS:]
            assert list(views.shown_events(g.state).items()) == [
                (e, r) for e, r in events.items() if r["status"] == "open" or e in last_closed]
            # Sharing is safe only if no committed state is ever written to again.
            assert all(state.to_dict() == held for state, held in committed), command


def test_a_harvest_late_in_the_game_copies_neither_events_nor_reversals():
    """R14 harvest on a game with many closed events (R33) and reversals: the decision
    copies the small fields it needs; the history is shared, not copied."""
    g = rich_game()
    for i in range(30):
        g.do(type="open_event", title=f"Drought {i}", accepts=[], rewards=[{"points": 1}])
        g.do(type="contribute", event=f"ev{i + 1}", team=TEAMS[i % 4], tokens={"water": 1})
        g.do(type="close_event", event=f"ev{i + 1}")
    for i in range(10):
        g.do(type="harvest", team="blue", card="harvester-1", resource="water")
        g.do(type="reverse", seq=len(g.rows), reason="mistake")
    before = g.state
    with mock.patch.object(engine, "Turn", RecordingTurn):
        RecordingTurn.made.clear()
        g.do(type="harvest", team="red", card="harvester-2", resource="flora")
    touched = RecordingTurn.made[-1].state.touched()
    assert "events" not in touched and "reversed" not in touched
    assert g.state.events is before.events and g.state.reversed is before.reversed
    assert len(g.state.reversed) == 10 and sum(r["status"] == "closed" for r in g.state.events.values()) == 30
    assert g.state.stock("red")["flora"] > before.stock("red").get("flora", 0)
    assert g.replay() == g.state


def test_game_written_before_issue_14_opens_to_the_same_state_and_plays_on(tmp_path, config):
    """A journal and snapshots written by the code before the copy-on-write state
    (tests/fixtures, 168 rows, snapshots every 40, 6 closed events, 10 reversals)."""
    db = tmp_path / "old.db"
    shutil.copy(FIXTURES / "game_before_issue14.db", db)
    expected = json.loads((FIXTURES / "game_before_issue14.state.json").read_text())
    with Bank.open(db, config) as bank:
        assert bank.state.to_dict() == expected
        assert bank.verify() == []
        closed = [e for e, r in bank.state.events.items() if r["status"] == "closed"]
        assert len(closed) == 6 and set(closed[-5:]) <= set(views.shown_events(bank.state))
        bank.execute({"id": "after-1", "type": "resume"})
        bank.execute({"id": "after-2", "type": "harvest", "team": "blue", "card": "harvester-1", "resource": "water"})
        live = bank.state.to_dict()
    with Bank.open(db, config) as again:
        assert again.state.to_dict() == live and again.verify() == []


def test_snapshots_of_shared_states_load_back_equal(tmp_path, config, monkeypatch):
    """Snapshots are encoded straight from the committed state (no copy): reopening from
    them, with events closed (R33) and reversals, gives the live state; verify agrees."""
    monkeypatch.setattr(service, "SNAPSHOT_EVERY", 7)
    db = tmp_path / "game.db"
    ids = iter(range(1000))

    def do(bank, **command):
        try:
            return bank.execute({"id": f"c{next(ids)}", **command})
        except BankError:
            return None

    with Bank.create(db, config) as bank:
        do(bank, type="start_clock")
        for i in range(12):
            do(bank, type="open_event", title=f"Flood {i}", accepts=[], rewards=[{"jokers": 1}])
            do(bank, type="harvest", team=TEAMS[i % 4], card="harvester-1", resource="water")
            do(bank, type="contribute", event=f"ev{i + 1}", team=TEAMS[i % 4], tokens={"water": 1})
            result = do(bank, type="harvest", team=TEAMS[(i + 1) % 4], card="harvester-2", resource="flora")
            do(bank, type="reverse", seq=result.seq, reason="mistake")
            do(bank, type="close_event", event=f"ev{i + 1}")
        live = bank.state.to_dict()
        assert len(list(bank._journal.snapshots())) >= 8
    with Bank.open(db, config) as again:
        assert again.state.to_dict() == live and again.verify() == []
        assert GameState.from_dict(live) == again.state
