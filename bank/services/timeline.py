"""The bank's own time line: the game clock must survive a wrong system clock (R34).

A Raspberry Pi has no battery clock: it may boot with yesterday's date, get the
right one minutes later from a travel router, or have it set by hand by a
facilitator. A laptop may sleep. If game time followed the system clock, a
jump of two days would end the game and a step back of an hour would stretch
every cooldown. So the bank keeps a time line of its own:

- while it runs, the time line advances by the monotonic clock only, which no
  one can set;
- it is checkpointed in the game file (every journal row, and a heartbeat while
  the game clock runs), together with the system clock read at that moment;
- at start, the system clock's advance since the last checkpoint is trusted as
  the time the bank was off only when it is plausible (not backwards, not more
  than a tolerance); otherwise the time line goes on from the checkpoint and
  the bank pauses the game clock for the lead to resume (`Bank.hold_if_suspect`);
- while it runs, the system clock is compared with the monotonic one: a jump
  beyond the tolerance is reported (`jumped`) so the bank can pause and say so.

No Flask, no SQLite: the clocks are injected, so tests jump them at will.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Callable


@dataclass(frozen=True)
class Checkpoint:
    """A point of the time line and what the system clock said at that moment."""

    timeline: float
    wall: float


@dataclass(frozen=True)
class Jump:
    """What the bank saw of the system clock: where it expected it, where it was."""

    expected_wall: float
    seen_wall: float
    at_start: bool

    @property
    def seconds(self) -> float:
        """How far the system clock moved beyond what the bank measured (+ forward)."""
        return round(self.seen_wall - self.expected_wall, 3)

    def as_cause(self) -> dict:
        """The journal's record of it, shown to the facilitators."""
        return {"kind": "clock_jump_at_start" if self.at_start else "clock_jump",
                "expected_wall": round(self.expected_wall, 3), "seen_wall": round(self.seen_wall, 3),
                "seconds": self.seconds}


class BankClock:
    """Time-line seconds for the engine: `now()` never jumps, whatever the system clock does."""

    def __init__(self, anchor: float, tolerance: float, *, wall: Callable[[], float] = time.time,
                 mono: Callable[[], float] = time.monotonic):
        self.tolerance = tolerance
        self._wall, self._mono = wall, mono
        # (anchor, monotonic then, system clock then), replaced as one tuple: a command
        # reading now() while the ticker re-bases after a jump never sees half of it.
        self._base = (anchor, mono(), wall())

    def now(self) -> float:
        """The time line: the anchor plus the monotonic seconds since the bank started."""
        anchor, mono0, _ = self._base
        return anchor + (self._mono() - mono0)

    def advance_to(self, moment: float) -> bool:
        """Never be behind `moment`, a time another process of the same game wrote.

        Several processes share one time line: each runs its own monotonic clock, anchored
        at the same checkpoint, so they agree to a few milliseconds, but none may book a row
        before one already journalled. A process that sees a later row moves forward to it;
        the fastest clock leads and the others follow. Never moves back. True if it moved.
        """
        anchor, mono0, wall0 = self._base
        behind = moment - (anchor + (self._mono() - mono0))
        if behind <= 0:
            return False
        # Only the time line moves: the system clock did not jump, so what jumped() expects of it stays.
        self._base = (anchor + behind, mono0, wall0)
        return True

    def checkpoint(self) -> Checkpoint:
        """Where the time line is, with the system clock's reading, to store in the game file."""
        return Checkpoint(self.now(), self._wall())

    def jumped(self) -> Jump | None:
        """A jump of the system clock beyond the tolerance since the last look, or None.

        Once reported, the new system time becomes the reference, so one jump is
        reported once. Small drifts (NTP slewing) stay below the tolerance.
        """
        anchor, mono0, wall0 = self._base
        mono, wall = self._mono(), self._wall()
        expected = wall0 + (mono - mono0)
        if abs(wall - expected) <= self.tolerance:
            return None
        self._base = (anchor + (mono - mono0), mono, wall)
        return Jump(expected, wall, at_start=False)


def start_anchor(last: Checkpoint | None, wall_now: float, tolerance: float,
                 running: bool) -> tuple[float, Jump | None]:
    """Where the time line starts when the bank opens, and the jump to report if any.

    The system clock's advance since the last checkpoint counts as time the bank
    was off (the teams kept playing: cooldowns ran out) only when it is plausible:
    not backwards, and within the tolerance while the game clock runs. A paused or
    finished game loses nothing by a long gap, so only a step back is ignored then.
    """
    if last is None:
        return wall_now, None
    gap = wall_now - last.wall
    if -tolerance <= gap <= tolerance or (gap > 0 and not running):
        return last.timeline + max(0.0, gap), None
    if not running:
        return last.timeline, None  # a step back while paused changes nothing: go on quietly
    return last.timeline, Jump(last.wall, wall_now, at_start=True)
