"""Kill the bank mid-flight (SIGKILL): every acknowledged command survives, the file stays sound."""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from bank.store.journal import Journal
from bank.services.bank import Bank

CHILD = Path(__file__).resolve().parents[1] / "crash_child.py"
ROUNDS = 8


def _run_and_kill(db, prefix: str, acks_wanted: int) -> list:
    """Start the child, read ACK lines, SIGKILL it after `acks_wanted`; return the acked ids."""
    child = subprocess.Popen([sys.executable, str(CHILD), str(db), prefix],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    acked = []
    try:
        for line in child.stdout:
            if line.startswith("ACK "):
                acked.append(line.split()[1])
            if len(acked) >= acks_wanted:
                os.kill(child.pid, signal.SIGKILL)
                break
    finally:
        if child.poll() is None:
            child.kill()
        child.wait(timeout=10)
        errors = child.stderr.read()
        child.stdout.close()
        child.stderr.close()
    assert len(acked) >= acks_wanted, f"child stopped early: {errors}"
    return acked


@pytest.mark.skipif(not hasattr(signal, "SIGKILL"), reason="needs SIGKILL (POSIX)")
def test_acknowledged_commands_survive_sigkill(config, bank_path):
    # New kill points each run; TERRABANK_CRASH_SEED=<seed from a failure> replays one.
    seed = int(os.environ.get("TERRABANK_CRASH_SEED") or random.randrange(2**32))
    rng = random.Random(seed)
    acked = []
    for round_ in range(ROUNDS):
        acked += _run_and_kill(bank_path, f"r{round_}", rng.randint(5, 60))
        journal = Journal.open(bank_path)
        try:
            assert journal.integrity_check() == "ok", f"seed {seed}"
            missing = [cid for cid in acked if journal.find(cid) is None]
        finally:
            journal.close()
        assert missing == [], f"seed {seed}, round {round_}: acknowledged but lost"
        with Bank.open(bank_path, config) as bank:
            assert bank.verify() == [], f"seed {seed}"
    with Bank.open(bank_path, config) as bank:
        assert bank._journal.latest_snapshot() is not None  # kills around snapshots too
