"""A machine's two clocks (system and monotonic), moved by the test: a jump, a reboot, time passing."""

from __future__ import annotations


class Clocks:
    """A machine's two clocks: `run` lets time pass, `jump` moves only the system clock."""

    def __init__(self, wall: float = 1_800_000_000.0):
        self.wall_s, self.mono_s = wall, 5_000.0

    def wall(self) -> float:
        return self.wall_s

    def mono(self) -> float:
        return self.mono_s

    def run(self, seconds: float) -> None:
        self.wall_s += seconds
        self.mono_s += seconds

    def jump(self, seconds: float) -> None:
        self.wall_s += seconds

    def reboot(self) -> None:
        """A new process: the monotonic clock starts anywhere (here: far back)."""
        self.mono_s = 12.0
