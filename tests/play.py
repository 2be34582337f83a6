"""A small driver for rule tests: a game in memory, a controllable clock and loaded dice."""

from __future__ import annotations

from pathlib import Path

import pytest

from bank.game.config import load_config, parse_config
from bank.errors import BankError
from bank.game.engine import Context, handle
from bank.game.invariants import check
from bank.game.state import GameState

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_CONFIG = ROOT / "config.toml"


def config_with(*replacements: tuple[str, str]):
    """The default config with some lines replaced, e.g. ("cap = 2", "cap = 3")."""
    text = DEFAULT_CONFIG.read_text(encoding="utf-8")
    for old, new in replacements:
        assert old in text, f"{old!r} is not in config.toml"
        text = text.replace(old, new, 1)
    return parse_config(text, "test config")


class Game:
    """Plays commands against the pure engine and keeps a journal of rows, like the bank."""

    def __init__(self, config=None, start: bool = True):
        self.config = config or load_config(DEFAULT_CONFIG)
        self.state = GameState.initial(self.config)
        self.now = 1_000_000.0
        self.dice: list = []          # faces the next rolls return, in order
        self.rolled = 0               # how many dice were asked for
        self.rows: list = []          # {"seq", "command", "events"}
        self.do(type="setup")
        if start:
            self.do(type="start_clock")

    def _roll(self, n: int) -> list:
        self.rolled += n
        faces = [self.dice.pop(0) if self.dice else "fauna" for _ in range(n)]
        return faces

    def _lookup(self, seq: int):
        return self.rows[seq - 1] if 0 < seq <= len(self.rows) else None

    def do(self, **command) -> list:
        """Apply a command; returns its events. Raises the engine's error on refusal."""
        ctx = Context(now=self.now, roll=self._roll, lookup=self._lookup)
        events, self.state = handle(self.state, self.config, command, ctx)
        self.rows.append({"seq": len(self.rows) + 1, "command": command, "events": events})
        return events

    def give(self, team: str, **tokens) -> None:
        """Put tokens in a team's box through an inventory count (as a facilitator would)."""
        counted = {r: self.stock(team).get(r, 0) + n for r, n in tokens.items()}
        self.do(type="inventory", team=team, counted=counted)

    def stock(self, team: str) -> dict:
        return self.state.stock(team)

    def rep(self, team: str) -> int:
        return self.state.reputation[team]

    def wait(self, seconds: float) -> None:
        self.now += seconds

    def tick(self) -> list:
        return self.do(type="tick")

    def problems(self) -> list:
        return check(self.state, self.config)

    def replay(self) -> GameState:
        """Fold every recorded event from scratch: must equal the live state."""
        state = GameState.initial(self.config)
        for row in self.rows:
            for event in row["events"]:
                state.apply(event)
        return state

    def set_tracks(self, **levels) -> None:
        """Raise tracks to given levels, paid by green with jokers given for it."""
        for track, level in levels.items():
            steps = level - self.state.tracks[track]
            if steps > 0:
                cost = self.config.tracks[track].step_cost * steps
                self.give("green", joker=cost)
                self.do(type="raise_tracks", team="green", steps={track: steps})


def refused(g: Game, code: str, *words, **command):
    """Apply a command that must be refused: same state, same journal, the code and words in the message."""
    before, rows = g.state.copy(), len(g.rows)
    with pytest.raises(BankError) as caught:
        g.do(**command)
    assert caught.value.code == code
    for word in words:
        assert word in caught.value.message
    assert g.state == before and len(g.rows) == rows
    return caught.value
