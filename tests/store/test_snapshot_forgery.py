"""A forged snapshot: the start must refuse it, naming the row, on both stores.

The attack: with sqlite3 (the trigger that refuses UPDATE dropped) or as PostgreSQL's superuser
(the guard disabled), edit `snapshots.state` to give a team tokens no row ever booked. Without
the seal the bank would start from the edited snapshot and book with those tokens; the chain of
the rows, and the head a facilitator wrote down, would still match. So each snapshot carries the
chain's hash at its row and a seal (bank/store/snapshots.py): the edit is refused at start in
one sentence naming the row; a snapshot whose seal was cut off is never trusted (the rows are
folded instead); `verify` names the edited snapshot too.
"""

from __future__ import annotations

import dataclasses
import json
import sqlite3
import uuid

import pytest

from bank.cli.main import main
from bank.services import bank as service
from bank.services.bank import Bank
from bank.store.storage import StorageError
from bank.store.storage_url import ENV_VAR
from conftest import CONFIG_PATH

EVERY = 5  # a snapshot every 5 rows, so a short game has a few


@pytest.fixture(params=["sqlite", "postgresql"])
def store(request, config, tmp_path, monkeypatch):
    """(config, db, forge) on one store; forge(seq, edit) rewrites the snapshot text at `seq` as an attacker."""
    monkeypatch.setattr(service, "SNAPSHOT_EVERY", EVERY)
    if request.param == "sqlite":
        db = tmp_path / "game.db"

        def forge(seq, edit):
            raw = sqlite3.connect(db)
            raw.execute("DROP TRIGGER snapshots_no_update")
            text = raw.execute("SELECT state FROM snapshots WHERE seq = ?", (seq,)).fetchone()[0]
            raw.execute("UPDATE snapshots SET state = ? WHERE seq = ?", (edit(text), seq))
            raw.commit()
            raw.close()
        return config, db, forge
    server = request.getfixturevalue("postgres_server")
    name = f"forged-{uuid.uuid4().hex[:8]}"
    monkeypatch.setenv(ENV_VAR, server.url)

    def forge(seq, edit):
        import psycopg
        with psycopg.connect(server.admin_url.rsplit("/", 1)[0] + "/games", autocommit=True) as raw:
            game = raw.execute("SELECT id FROM terrabank.games WHERE name = %s", (name,)).fetchone()[0]
            text = raw.execute("SELECT state FROM terrabank.snapshots WHERE game = %s AND seq = %s",
                               (game, seq)).fetchone()[0]
            raw.execute("ALTER TABLE terrabank.snapshots DISABLE TRIGGER USER")
            raw.execute("UPDATE terrabank.snapshots SET state = %s WHERE game = %s AND seq = %s",
                        (edit(text), game, seq))
            raw.execute("ALTER TABLE terrabank.snapshots ENABLE TRIGGER USER")
    return dataclasses.replace(config, storage_url=server.url), name, forge


def _play(config, db, rows: int = 12) -> tuple:
    """A started game of `rows` rows; returns (its state, its chain head)."""
    with Bank.create(db, config) as bank:
        bank.execute({"id": "start", "type": "start_clock"})
        i = 0
        while bank.last_seq < rows:
            bank.execute({"id": f"r{i}", "type": "refill", "resource": "water", "amount": 1})
            i += 1
        return bank.state, bank.chain_head()


def _richer_json(text: str) -> str:
    """The attacker's edit: 1000 water more for blue, the rest of the text (its seal) kept."""
    data = json.loads(text)
    state = data.get("state", data)
    state["balances"]["team:blue"]["water"] = state["balances"]["team:blue"].get("water", 0) + 1000
    return json.dumps(data, sort_keys=True, separators=(",", ":"))


def test_an_edited_snapshot_is_refused_at_start_naming_its_row(store):
    config, db, forge = store
    _play(config, db)
    forge(10, _richer_json)
    with pytest.raises(StorageError) as refused:
        Bank.open(db, config)
    message = refused.value.message
    assert "snapshot at journal row 10 was changed" in message and "terrabank verify" in message
    assert "loses no booked command" in message  # what to do, and that it keeps every booked row


def test_the_cli_start_says_it_in_one_sentence(store, capsys):
    config, db, forge = store
    _play(config, db)
    forge(10, _richer_json)
    assert main(["--config", str(CONFIG_PATH), "--db", str(db), "standings"]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("terrabank: ") and "\n" not in err and "journal row 10" in err


def test_a_snapshot_with_its_seal_cut_off_is_not_trusted_the_rows_are_folded(store):
    config, db, forge = store
    state, head = _play(config, db)
    forge(10, lambda text: json.dumps(json.loads(_richer_json(text))["state"], sort_keys=True,
                                      separators=(",", ":")))
    with Bank.open(db, config) as bank:
        assert bank.state == state and bank.chain_head() == head  # the forged tokens are not served
        assert any("snapshot at seq 10 differs" in p for p in bank.verify())


def test_verify_names_the_edited_snapshot(store):
    config, db, forge = store
    _play(config, db)
    forge(5, _richer_json)  # an older one: the start uses the newest (10), verify reads them all
    with Bank.open(db, config) as bank:
        problems = bank.verify()
    assert any("snapshot at journal row 5 was changed" in p for p in problems)
    assert any("snapshot at seq 5 differs" in p for p in problems)


def test_a_sound_game_opens_from_its_sealed_snapshot(store, monkeypatch):
    config, db, _ = store
    state, _ = _play(config, db)
    folded = []
    real = service.fold
    monkeypatch.setattr(service, "fold", lambda s, events: folded.append(1) or real(s, events))
    with Bank.open(db, config) as bank:
        assert bank.state == state and bank.verify() == []
        assert len(folded) == bank.last_seq - 10  # the rows after it only: the snapshot at 10 was trusted


def _resealed(text: str) -> str:
    """The attacker who read bank/store/snapshots.py: the richer state, sealed again with the row's hash."""
    from bank.store import snapshots

    data = json.loads(_richer_json(text))
    body = json.dumps(data["state"], sort_keys=True, separators=(",", ":"))
    return snapshots.sealed(10, data["chain"], body)


def test_a_snapshot_edited_and_sealed_again_is_refused_at_start(store):
    """The seal holds no secret, but the chain binds it (bank/store/chain.py): a forger who
    seals an edited state again no longer carries the seal the chain vouches for, and the start refuses
    the game naming the snapshot (tests/store/test_chain_witness.py: the forger who rewrites the chain too)."""
    config, db, forge = store
    _play(config, db)
    forge(10, _resealed)
    with pytest.raises(StorageError) as refused:
        Bank.open(db, config)
    assert "snapshot at journal row 10 does not match the chain" in refused.value.message
