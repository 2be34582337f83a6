"""The bank's clock loop sees a row edited with its chain left under the running bank (bank/web/push/chain_alarm.py).

Every head stays as the bank wrote it, so its check of the heads and the pages see nothing; before, only `serve` saw
it, at a restart. Each look also sweeps the next rows (Bank.sweep_rows): the edit is said in one line naming the row,
the bank books nothing more and lists its own report on the admin page.
"""

from __future__ import annotations

import logging

from bank.web import create_app
from bank.web.push.chain_alarm import CHECK_SECONDS, ChainAlarm
from forger_kit import sqlite_forger

REFILL = {"type": "refill", "resource": "water", "amount": 1}


def test_a_row_edited_with_its_chain_left_is_said_by_the_clock_loops_look(tmp_path, config, caplog):
    app = create_app({"DB": str(tmp_path / "game.db"), "CONFIG": config, "TESTING": True})
    services = app.extensions["terrabank"]
    try:
        bank = services.bank
        bank.execute({"id": "start", "type": "start_clock"})
        for n in range(4):
            bank.execute({**REFILL, "id": f"r{n}"})
        now = [1000.0]
        alarm = ChainAlarm(app, clock=lambda: now[0])
        assert alarm.look() is False
        sqlite_forger(tmp_path / "game.db")("UPDATE journal SET actor = 'mallory' WHERE seq = 3")
        caplog.set_level(logging.ERROR)
        now[0] += CHECK_SECONDS
        assert alarm.look() is True and bank.rewritten is not None
        said = [r.getMessage() for r in caplog.records if "changed by another program" in r.getMessage()]
        assert len(said) == 1 and "journal row 3 was changed" in said[0] and "books nothing more" in said[0]
        reports = services.access.witness_reports().all()  # the admin page names the row (witness_reports.js)
        assert [(r["by"], r["saw"]["seq"]) for r in reports] == [("bank_rows", 3)]
    finally:
        services.bank.close()
        services.access.close()
