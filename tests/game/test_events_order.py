"""The board lists open events and the last closed ones in opening order (R33), also after
the bank restarts from a snapshot, whose keys are stored sorted ("ev10" before "ev2")."""

from __future__ import annotations

from bank.services import bank as service
from bank.game import views
from bank.services.bank import Bank

REWARDS = [{"points": 5}, {"jokers": 2}]


def test_r33_a_restart_from_a_snapshot_keeps_the_events_in_opening_order(config, tmp_path, monkeypatch):
    monkeypatch.setattr(service, "SNAPSHOT_EVERY", 5)
    path = tmp_path / "g.db"
    with Bank.create(path, config) as bank:
        bank.execute({"id": "start", "type": "start_clock"})
        for n in range(1, 13):  # ev1 .. ev12; all but the last two closed
            bank.execute({"id": f"open{n}", "type": "open_event", "title": f"Drive {n}",
                          "accepts": ["flora"], "rewards": REWARDS})
            if n <= 10:
                bank.execute({"id": f"close{n}", "type": "close_event", "event": f"ev{n}"})
        bank.execute({"id": "pad", "type": "open_event", "title": "Drive 13", "accepts": ["flora"],
                      "rewards": REWARDS})
        if bank.last_seq % service.SNAPSHOT_EVERY == 0:  # so the reopen also folds rows after the snapshot
            bank.execute({"id": "h", "type": "harvest", "team": "blue", "card": "harvester-1", "resource": "water"})
        live = list(views.shown_events(bank.state))
        last_seq = bank.last_seq
    assert live == ["ev6", "ev7", "ev8", "ev9", "ev10", "ev11", "ev12", "ev13"]
    assert last_seq % service.SNAPSHOT_EVERY != 0
    with Bank.open(path, config) as again:
        assert list(views.shown_events(again.state)) == live
        assert list(again.state.open_event_ids()) == ["ev11", "ev12", "ev13"]
