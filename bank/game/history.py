"""Reputation over game time, read from the journal: the big screen's and the report's curve."""

from __future__ import annotations

from bank.game.config_model import GameConfig


class _Clock:
    """The game clock re-read from clock events, to date each row in game seconds (R34)."""

    def __init__(self):
        self.elapsed, self.since = 0.0, None

    def read(self, at: float) -> float:
        return self.elapsed + (max(0.0, at - self.since) if self.since is not None else 0.0)

    def see(self, event: dict) -> None:
        kind = event["type"]
        if kind in ("clock_started", "clock_resumed"):
            self.since = event["at"]
        elif kind in ("clock_paused", "session_ended", "game_ended"):
            self.elapsed, self.since = event["elapsed"], None


def reputation_history(rows, config: GameConfig, limit: int = 2000) -> list:
    """[{x: game seconds, rep: {team: points}}], one point per row that changed a score."""
    clock, rep, points = _Clock(), {t: 0 for t in config.teams}, []
    for row in rows:
        changed = False
        for event in row["events"]:
            clock.see(event)
            if event["type"] == "reputation":
                rep[event["team"]] += event["points"]
                changed = True
        if changed:
            points.append({"x": round(min(clock.read(row["at"]), config.duration_seconds)), "rep": dict(rep)})
    if len(points) > limit:  # keep the shape, drop the middle points evenly
        step = len(points) / limit
        points = [points[int(i * step)] for i in range(limit - 1)] + [points[-1]]
    return points
