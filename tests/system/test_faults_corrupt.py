"""Fault: a damaged game file, found when the bank starts, and the way back from a backup.

`terrabank serve` (and `python3 run.py serve`) on a damaged database must print one
sentence naming the file and the backup to restore (no traceback) and exit non-zero,
even when the damage is in old entries that opening the bank does not read (they are
covered by the last snapshot). Then the backup procedure of README.md ("Backup and
restore") is followed to the letter and the bank serves the backed-up game again.
"""

from __future__ import annotations

import json
import os
import shutil
import sqlite3
import subprocess
import sys
import urllib.request
from pathlib import Path

import pytest

from bank.services import bank as service
from bank.game.config import load_config

ROOT = Path(__file__).resolve().parents[2]
CONFIG = str(ROOT / "config.toml")
TERRABANK = str(Path(sys.executable).with_name("terrabank"))
sys.path.insert(0, str(ROOT / "bench"))
from harness import end, launch  # noqa: E402

HARVEST = {"type": "harvest", "team": "blue", "card": "harvester-1", "resource": "water"}


def terrabank(db: Path, *args, timeout: float = 60) -> subprocess.CompletedProcess:
    return subprocess.run([TERRABANK, "--config", CONFIG, "--db", str(db), *args],
                          capture_output=True, text=True, timeout=timeout, cwd=db.parent)


def serve_refuses(db: Path) -> str:
    """Run `terrabank serve`; it must stop by itself with exit code 2. Returns stderr."""
    try:
        done = terrabank(db, "serve", "--host", "127.0.0.1", "--port", "0", timeout=60)  # any free port, if it started
    except subprocess.TimeoutExpired:
        pytest.fail(f"terrabank serve started on the damaged {db.name}")
    assert done.returncode == 2, done.stderr
    return done.stderr


def assert_one_clear_sentence(stderr: str, db: Path) -> None:
    assert "Traceback" not in stderr
    assert stderr.count("\n") == 1 and stderr.startswith("terrabank: ")
    assert f"The database {db} is damaged" in stderr
    assert f"{db.stem}-backup.db" in stderr and '"Backup and restore" in README.md' in stderr
    # The restore it advises loses what was booked since the copy: it says so.
    assert "commands booked after that copy are not in it" in stderr


@pytest.fixture
def game(tmp_path, monkeypatch):
    """A game in tmp_path/terrabank.db with 60 entries and snapshots every 20, closed."""
    monkeypatch.setattr(service, "SNAPSHOT_EVERY", 20)  # a long game's snapshots, in 60 rows
    db = tmp_path / "terrabank.db"
    with service.Bank.create(db, load_config(CONFIG)) as bank:
        bank.execute({"id": "clock", "type": "start_clock"})
        for n in range(58):
            bank.execute({"id": f"h{n}", **HARVEST})
    return db


def old_journal_page(db: Path) -> int:
    """The number of a page holding the first journal entries (covered by a snapshot)."""
    conn = sqlite3.connect(db)
    try:
        rows = conn.execute("SELECT pageno FROM dbstat WHERE name='journal' AND pagetype='leaf' "
                            "ORDER BY pageno").fetchall()
    except sqlite3.OperationalError:
        pytest.skip("this SQLite has no dbstat table to find a journal page")
    finally:
        conn.close()
    return rows[0][0]


def smash(db: Path, how: str) -> None:
    size = db.stat().st_size
    with open(db, "r+b") as f:
        if how == "header":
            f.write(b"this is not a database" * 4)
        elif how == "old entries":
            f.seek((old_journal_page(db) - 1) * 4096 + 8)
            f.write(bytes(range(256)) * 15)
        elif how == "truncated":
            f.truncate(size // 2)


@pytest.mark.parametrize("how", ["header", "old entries", "truncated"])
def test_serve_on_a_damaged_file_prints_one_sentence_with_the_backup_and_exits(game, how):
    smash(game, how)
    assert_one_clear_sentence(serve_refuses(game), game)


def test_run_py_serve_says_the_same(game):
    """run.py's serve path (its .venv set-up is skipped: that may reinstall, which is not the point)."""
    smash(game, "header")
    env = {**os.environ, "TERRABANK_DB": str(game), "TERRABANK_CONFIG": CONFIG}
    code = (f"import sys; sys.path.insert(0, {str(ROOT)!r}); import run; "
            "sys.exit(run.serve(['--host', '127.0.0.1', '--port', '0']))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, env=env)
    assert done.returncode != 0
    assert_one_clear_sentence(done.stderr, game)


def make_backup(db: Path, way: str) -> None:
    """README.md, "Backup and restore": the two ways it describes."""
    backup = db.with_name("terrabank-backup.db")
    if way == "sqlite3 .backup while the bank runs":
        from needs import require

        require("sqlite3")
        with service.Bank.open(db, load_config(CONFIG)):  # the bank is running
            subprocess.run(["sqlite3", db.name, f".backup {backup.name}"], cwd=db.parent, check=True)
    else:  # stop the bank and copy the file, with its -wal if there is one
        shutil.copy(db, backup)
        if Path(f"{db}-wal").exists():
            shutil.copy(f"{db}-wal", f"{backup}-wal")


def restore(db: Path) -> None:
    """README.md: delete the three files, copy the backup (and its -wal) in their place."""
    backup = db.with_name("terrabank-backup.db")
    for suffix in ("", "-wal", "-shm"):
        Path(f"{db}{suffix}").unlink(missing_ok=True)
    shutil.copy(backup, db)
    if Path(f"{backup}-wal").exists():
        shutil.copy(f"{backup}-wal", f"{db}-wal")


@pytest.mark.parametrize("way", ["sqlite3 .backup while the bank runs", "copy after stopping"])
def test_the_documented_backup_brings_the_game_back_after_damage(game, way):
    make_backup(game, way)
    with service.Bank.open(game, load_config(CONFIG)) as bank:
        backed_up = bank.last_seq
        bank.execute({"id": "after-backup", **HARVEST})  # lost with the damage: after the backup
    smash(game, "header")
    assert_one_clear_sentence(serve_refuses(game), game)

    restore(game)
    verified = terrabank(game, "verify")
    assert (verified.returncode, verified.stdout.splitlines()[0]) == (0, "ok")
    bank, port = launch([TERRABANK, "--config", CONFIG, "--db", str(game), "serve", "--host", "127.0.0.1",
                         "--port", "0"], game.with_name("serve.log"), timeout=60, cwd=game.parent)
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/api/public", timeout=10) as reply:
            assert json.load(reply)["seq"] == backed_up
    finally:
        end(bank, timeout=20)
