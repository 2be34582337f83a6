"""What a booked command gives back (bank/services/bank.py), shared with the clock's ticks (bank_clock.py)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Result:
    """What a command did: its journal seq, its events, and whether it was a retry."""

    seq: int
    events: list
    duplicate: bool = False
