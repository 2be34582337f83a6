"""Fault: the server is SIGKILLed during a burst of commands from several facilitators.

A real `terrabank serve` subprocess (bench/harness.py) is killed a few times while four
clients send harvests; clients that got no reply retry the same Idempotency-Key, as the
pages do. Nothing acknowledged may be lost, nothing applied twice, and the replayed
journal must equal the live state. bench/system/fault_kill.py runs the same with 50 kills.
(tests/system/test_crash.py is the same fault at the core's level, without HTTP.)
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))
sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench" / "system"))  # fault_kill

import fault_kill  # noqa: E402


def test_kills_during_a_burst_lose_nothing_acknowledged_and_apply_nothing_twice(tmp_path):
    result = fault_kill.run(tmp_path, kills=3, clients=4, seed=7, log=lambda *_: None)
    assert result["errors"] == []
    assert result["acknowledged"] > 0
    assert result["retried"] >= 3  # every kill cut at least one command short of its reply
    assert result["refused"] == {}
    assert result["lost"] == 0
    assert result["twice"] == 0
    assert result["rows"] == result["acknowledged"]
    assert result["verify"] == []
