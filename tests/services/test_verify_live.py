"""False alarms of tampering under load: checks of a game another process books on.

Read apart, every check of the chain read the stored chain and the rows in two statements
(PostgreSQL: on two reader connections, READ COMMITTED), and `verify` compared a replay of the
whole journal with the live state of a process that had not folded the rows booked since: a row
committed in between was reported as "journal row N was changed ... restore the database from
its last backup" at a restart, or "the live state differs" from `verify`, on a sound game. Now
each check reads from one view (bank/store/journal_pg_reads.py read_view, Journal.read_view)
and compares the live state with the replay at the seq that state stands at.
"""

from __future__ import annotations

import dataclasses
import os
import signal
import subprocess
import sys
import threading
import time
import uuid
from pathlib import Path

import pytest

from bank.services.bank import Bank
from bank.store.storage_url import ENV_VAR
from conftest import CONFIG_PATH

ROOT = Path(__file__).resolve().parents[2]
SECONDS = 2.0  # how long a check runs against a booking neighbour


@pytest.fixture(params=["sqlite", "postgresql"])
def game(request, config, tmp_path):
    """(config, db) of a started game on one store."""
    if request.param == "sqlite":
        db = tmp_path / "game.db"
    else:
        config = dataclasses.replace(config, storage_url=request.getfixturevalue("postgres_server").url)
        db = f"live-{uuid.uuid4().hex[:8]}"
    with Bank.create(db, config) as bank:
        bank.execute({"id": "start", "type": "start_clock"})
    return config, db


def _book_until(bank: Bank, stop: threading.Event, prefix: str, booked: list) -> None:
    for i in range(100_000):
        if stop.is_set():
            return
        bank.execute({"id": f"{prefix}-{i}", "type": "refill", "resource": "water", "amount": 1})
        booked.append(i)


def test_verify_says_ok_while_another_bank_books(game):
    """A second Bank on the game (its own connections: what a second process has) books without
    pause while `verify` runs again and again on the first: every verify says ok."""
    config, db = game
    writer, checker = Bank.open(db, config), Bank.open(db, config)
    stop, booked, results = threading.Event(), [], []
    thread = threading.Thread(target=_book_until, args=(writer, stop, "w", booked))
    thread.start()
    try:
        deadline = time.monotonic() + SECONDS
        while time.monotonic() < deadline or len(results) < 3:
            results.append(checker.verify())
            checker.catch_up()  # as a server does once a second; verify must not need it
    finally:
        stop.set()
        thread.join()
    writer.close()
    checker.close()
    assert len(booked) > 20, "the neighbour booked too little for the test to mean anything"
    assert [r for r in results if r] == []


def test_the_cli_verify_says_ok_while_the_bank_books(game, capsys):
    config, db = game
    if isinstance(db, str):
        os.environ[ENV_VAR] = config.storage_url
    from bank.cli.main import main
    writer = Bank.open(db, config)
    stop, booked, codes = threading.Event(), [], []
    thread = threading.Thread(target=_book_until, args=(writer, stop, "c", booked))
    thread.start()
    try:
        for _ in range(4):
            codes.append(main(["--config", str(CONFIG_PATH), "--db", str(db), "verify"]))
    finally:
        stop.set()
        thread.join()
        writer.close()
        os.environ.pop(ENV_VAR, None)
    out = capsys.readouterr().out
    assert codes == [0, 0, 0, 0], out
    assert "differs" not in out and "was changed" not in out


_WRITER = """
import itertools, sys, time
sys.path.insert(0, {root!r})
from bank.game.config import load_config
from bank.services.bank import Bank
bank = Bank.open({db!r}, load_config({config!r}))
end = time.monotonic() + 300  # stops by itself if the test never kills it (30 s: at load 23 the test took
# 57-83 s, and the steady writer stopped before its last restart: 'the neighbour did not book')
for i in itertools.count():
    if time.monotonic() > end:
        break
    bank.execute({{"id": "{prefix}-%d" % i, "type": "refill", "resource": "water", "amount": 1}})
    print("ACK", i, flush=True)
"""


def _writer(url: str, db: str, prefix: str) -> subprocess.Popen:
    code = _WRITER.format(root=str(ROOT), db=db, config=str(CONFIG_PATH), prefix=prefix)
    return subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, text=True,
                            env={**os.environ, ENV_VAR: url})


def _acks(process: subprocess.Popen, count: int) -> None:
    for _ in range(count):
        line = process.stdout.readline()
        assert line.startswith("ACK"), f"the writer stopped: {line!r}"


def test_a_restart_after_kill_9_beside_a_booking_process_cries_no_tampering(config, postgres_server):
    """PostgreSQL: two processes book on one game; one is killed with SIGKILL mid-booking and
    started again (serve's check of the chain, then the bank's open) while the other books on.
    Every start passes, and the state it opens on verifies."""
    from bank.store.journal_pg import check_before_serving

    config = dataclasses.replace(config, storage_url=postgres_server.url)
    db = f"killed-{uuid.uuid4().hex[:8]}"
    with Bank.create(db, config) as bank:
        bank.execute({"id": "start", "type": "start_clock"})
    steady = _writer(postgres_server.url, db, "steady")
    steady_acks = []  # read all along, so its pipe never fills and it never stops booking
    reader = threading.Thread(target=lambda: steady_acks.extend(steady.stdout), daemon=True)
    reader.start()
    try:
        while len(steady_acks) < 5:
            assert steady.poll() is None, "the steady writer stopped"
            time.sleep(0.05)
        for round_ in range(4):
            victim = _writer(postgres_server.url, db, f"victim{round_}")
            _acks(victim, 3)
            victim.send_signal(signal.SIGKILL)
            victim.wait()
            victim.stdout.close()
            before = len(steady_acks)
            check_before_serving(postgres_server.url, db)  # raised "journal row N was changed" before
            with Bank.open(db, config) as bank:
                assert bank.verify() == []
            assert len(steady_acks) > before, "the neighbour did not book during the restart"
    finally:
        steady.kill()
        steady.wait()
        reader.join()
        steady.stdout.close()
