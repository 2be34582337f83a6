"""A journal export copied off the bank witnesses the game: `terrabank verify --witness FILE`.

The forger who holds the game file and rebuilds the whole chain over a rewritten row leaves `verify` saying
"ok" (the chain is consistent, tests/store/test_chain_witness.py); only what was copied elsewhere can tell.
Before, an export carried no chain head: the lead's downloaded journal could not say the game had changed.
"""

from __future__ import annotations

import json
import shutil
import sqlite3

import pytest

from bank.cli.main import main
from bank.game.config import load_config
from bank.services.bank import Bank
from bank.store import chain
from conftest import CONFIG_PATH


@pytest.fixture
def cli(bank_path, monkeypatch):
    monkeypatch.delenv("TERRABANK_CONFIG", raising=False)
    monkeypatch.delenv("TERRABANK_DB", raising=False)
    return lambda *args: main(["--config", str(CONFIG_PATH), "--db", str(bank_path), *args])


def _book(bank_path, *ids):
    with Bank.open(bank_path, load_config(CONFIG_PATH)) as bank:
        for i in ids:
            bank.execute({"id": i, "type": "harvest", "team": "red", "card": "harvester-1",
                          "resource": "dioxygen", "actor": "ana"})


@pytest.fixture
def exported(cli, bank_path, tmp_path, capsys):
    """A game of a few entries, its journal exported as JSON and as CSV (the lead's copies)."""
    assert cli("init") == 0
    with Bank.open(bank_path, load_config(CONFIG_PATH)) as bank:
        bank.execute({"id": "go", "type": "start_clock"})
    _book(bank_path, "h1", "h2", "h3")
    copies = {fmt: tmp_path / f"copy.{fmt}" for fmt in ("json", "csv")}
    for fmt, path in copies.items():
        assert cli("export", "journal", "--format", fmt, "--out", str(path)) == 0
    capsys.readouterr()
    return copies


def _rewrite_actor_and_rebuild_the_chain(db, seq: int, actor: str) -> None:
    """The forger: who booked entry `seq` changed, then every hash from the seed on recomputed, and the
    checkpoint told the new head, so that `serve` and `verify` find a consistent game."""
    raw = sqlite3.connect(db)
    raw.executescript("DROP TRIGGER journal_no_update; DROP TRIGGER chain_no_update;")
    raw.execute("UPDATE journal SET actor = ? WHERE seq = ?", (actor, seq))
    meta = dict(raw.execute("SELECT key, value FROM meta").fetchall())
    assert not raw.execute("SELECT 1 FROM chain_snapshot").fetchall()  # no binding in so short a game
    links = list(chain.replay(raw.execute(f"{chain.SELECT_ROWS} ORDER BY seq").fetchall(), start=chain.seed(meta)))
    raw.executemany("UPDATE chain SET hash = ? WHERE seq = ?", [(h, s) for s, h in links])
    raw.execute("UPDATE clock_checkpoint SET seq = ?, head = ?", links[-1])
    raw.commit()
    raw.close()


@pytest.mark.parametrize("fmt", ["json", "csv"])
def test_an_export_witnesses_a_row_rewritten_with_its_whole_chain_which_verify_alone_calls_ok(
        cli, bank_path, exported, fmt, capsys):
    assert cli("verify", "--witness", str(exported[fmt])) == 0
    out = capsys.readouterr().out
    assert out.startswith("ok\n") and "witness: the game holds the" in out and "(up to entry 5)" in out, out
    _book(bank_path, "h4")  # the game goes on after the export: still the same game
    assert cli("verify", "--witness", str(exported[fmt])) == 0
    capsys.readouterr()

    _rewrite_actor_and_rebuild_the_chain(bank_path, 3, "mallory")
    assert cli("verify") == 0  # the forgery is consistent: verify alone cannot tell
    capsys.readouterr()
    assert cli("verify", "--witness", str(exported[fmt])) == 1
    out = capsys.readouterr().out
    assert "ok" not in out.split() and "at entry 3 the export holds chain" in out, out
    assert "rewritten after the export" in out, out


def test_an_export_witnesses_a_game_restored_from_an_older_copy(cli, bank_path, exported, tmp_path, capsys):
    older = tmp_path / "older.db"
    shutil.copy(bank_path, older)
    _book(bank_path, "h4", "h5")
    later = tmp_path / "later.json"
    assert cli("export", "journal", "--out", str(later)) == 0
    shutil.copy(older, bank_path)  # the copy from before h4 and h5 put back
    capsys.readouterr()
    assert cli("verify", "--witness", str(exported["json"])) == 0  # the older export: still held
    capsys.readouterr()
    assert cli("verify", "--witness", str(later)) == 1
    out = capsys.readouterr().out
    assert "the export holds entry 6" in out and "its last entry is 5" in out and "older copy" in out, out


@pytest.mark.parametrize("content, says", [
    ("", "holds no journal entry"),
    ("[]", "holds no journal entry"),
    ("[{\"seq\": 1}]", "exported before exports carried them"),
    ("seq,at,type\n1,2.0,harvest\n", "exported before exports carried them"),
    ("[{\"seq\": 1, \"chain\": \"abc\"}]", "not a journal export"),
    ("[{\"seq\": \"one\", \"chain\": \"" + "a" * 64 + "\"}]", "not a journal export"),
    ("[{\"seq\": 1, \"chain\": ", "not a journal export"),
    ("\xff\xfe", "cannot read"),
])
def test_a_file_that_is_not_an_export_is_said_and_the_game_is_not_opened(cli, bank_path, exported, tmp_path,
                                                                         content, says, capsys):
    bad = tmp_path / "bad.json"
    bad.write_bytes(content.encode("latin-1"))
    before = bank_path.read_bytes()
    assert cli("verify", "--witness", str(bad)) == 2
    err = capsys.readouterr().err
    assert err.startswith("terrabank: ") and says in err and "Traceback" not in err, err
    assert bank_path.read_bytes() == before


def test_each_exported_row_and_transfer_line_names_its_entry_s_head(cli, bank_path, exported):
    rows = json.loads(exported["json"].read_text(encoding="utf-8"))
    with Bank.open(bank_path, load_config(CONFIG_PATH)) as bank:
        assert [r["chain"] for r in rows] == [bank.head_at(r["seq"]) for r in rows]
        assert rows[-1]["chain"] == bank.chain_head()[1]
    assert exported["csv"].read_text(encoding="utf-8").splitlines()[0].endswith(",chain")
