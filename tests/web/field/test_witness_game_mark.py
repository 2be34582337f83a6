"""Which game a witnessing page compares its head with.

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


def test_a_new_game_declares_the_one_it_replaced_to_the_pages(config, tmp_path):
    """`init --force` names the game it replaced and where it ended, so a page that held a
    head of that game can tell a declared successor from a swap (static/js/witness.js)."""
    db = tmp_path / "game.db"
    with Bank.create(db, config) as bank:
        bank.execute({"id": "start", "type": "start_clock"})
        end = bank.chain_head()
    before = _asked(db, 2)
    assert before["previous"] is None
    Bank.create(db, config, force=True).close()
    after = _asked(db, 1)
    assert after["previous"] == {"game": before["game"], "seq": end[0], "hash": end[1]}  # before: no such field


def test_a_head_this_bank_holds_but_seen_in_another_game_is_reported(config, tmp_path):
    """A page that saw entry N in game A and finds game B behind the same link reports it, even when B's chain
    holds the same head (a creation record edited in a game from before the seed: the rows unchanged)."""
    db = tmp_path / "game.db"
    app = _client(db)
    try:
        services = app.extensions["terrabank"]
        services.access.add_user("lea", "password1", "lead")
        services.bank.execute({"id": "start", "type": "start_clock"})
        seq, head = services.bank.chain_head()
        token = services.access.team_tokens()["blue"]
        client = app.test_client()
        other = "ab" * 32
        same = client.post("/api/chain/witness", json={"team": token, "saw": {"seq": seq, "hash": head}})
        assert same.get_json()["known"] is True  # this game's head: nothing to report
        swap = client.post("/api/chain/witness", json={"team": token, "saw": {"seq": seq, "hash": head, "game": other}})
        assert swap.get_json()["known"] is False  # before: "known", dropped
        bad = client.post("/api/chain/witness", json={"team": token, "saw": {"seq": seq, "hash": head, "game": "x"}})
        assert bad.status_code == 400
        from conftest import WebClient

        lead = WebClient(app.test_client())
        assert lead.login("lea", "password1").status_code == 200
        reports = lead.client.get("/api/chain/witness").get_json()["reports"]
        assert [r["saw"] for r in reports] == [{"seq": seq, "hash": head, "game": other}]
        assert reports[0]["game"] == services.bank.game_mark() and reports[0]["by"] == "team:blue"
    finally:
        app.extensions["terrabank"].bank.close()
