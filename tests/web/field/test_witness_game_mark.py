"""Issue 34 item 5: which game a witnessing page compares its head with.

A page keeps the newest chain head it saw per game (static/js/witness.js) and, when the bank's answer names
another game, starts afresh: no alarm for a new game on the same address. The game was named by its first
entry's hash, so a journal rebuilt from entry 1 (the first row changed, every hash and the checkpoint
recomputed) looked like a new game and no page said anything. Now the game is named by its mark
(Bank.game_mark, a hash of when it was created): the rebuilt journal is the same game with another head,
which the page shows; `init --force` makes another game, which it does not.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

from bank.services.bank import Bank
from bank.store import chain

CONFIG = Path(__file__).resolve().parents[3] / "config.toml"


def _client(db: Path):
    from bank.web import create_app

    return create_app({"DB": str(db), "CONFIG": str(CONFIG), "PASSWORD_HASH": "pbkdf2:sha256:1000"})


def _asked(db: Path, seq: int) -> dict:
    """What a page that saw entry `seq` hears when it (re)connects: GET /api/chain/<seq>."""
    app = _client(db)
    try:
        answer = app.test_client().get(f"/api/chain/{seq}")
        assert answer.status_code == 200, answer.get_data(as_text=True)
        return answer.get_json()
    finally:
        app.extensions["terrabank"].bank.close()


def _rebuild_from_entry_1(db: Path) -> None:
    """The forger: the first row's time changed, every chain hash and the checkpoint's tip recomputed."""
    raw = sqlite3.connect(db)
    for table in ("journal", "chain"):
        for verb in ("update", "delete"):
            raw.execute(f"DROP TRIGGER IF EXISTS {table}_no_{verb}")
    raw.execute("UPDATE journal SET at = at - 1 WHERE seq = 1")
    raw.execute("DELETE FROM chain")
    start = chain.start_of(dict(raw.execute("SELECT key, value FROM meta").fetchall()).get)  # the seed, unchanged
    links = list(chain.replay(raw.execute(f"{chain.SELECT_ROWS} ORDER BY seq").fetchall(), start=start))
    raw.executemany("INSERT INTO chain(seq, hash) VALUES (?, ?)", links)
    raw.execute("UPDATE clock_checkpoint SET seq = ?, head = ?", links[-1])
    raw.commit()
    raw.close()


def test_a_journal_rebuilt_from_entry_1_is_the_same_game_with_another_head(config, tmp_path):
    db = tmp_path / "game.db"
    with Bank.create(db, config) as bank:
        bank.execute({"id": "start", "type": "start_clock"})
        for i in range(3):
            bank.execute({"id": f"r{i}", "type": "refill", "resource": "water", "amount": 1})
    seen = _asked(db, 3)  # a phone saw entry 3 with this head, in this game
    _rebuild_from_entry_1(db)
    with Bank.open(db, config) as bank:
        assert bank.verify() == []  # a consistent forgery: only the witnesses can tell
    now = _asked(db, 3)
    assert now["game"] == seen["game"]  # before: the first entry's new hash, "another game": no alarm
    assert now["hash"] != seen["hash"]  # so the page compares, and shows both heads


def test_a_new_game_on_the_same_address_is_another_game(config, tmp_path):
    db = tmp_path / "game.db"
    with Bank.create(db, config) as bank:
        bank.execute({"id": "start", "type": "start_clock"})
    before = _asked(db, 1)
    Bank.create(db, config, force=True).close()  # `terrabank init --force`: the lead's new game
    after = _asked(db, 1)
    assert after["game"] != before["game"]  # the pages start afresh, no alarm
