"""The end of the game: its three conditions and their tie rules (R35)."""

from __future__ import annotations

from bank.game.config_model import GameConfig
from bank.game.state import GameState


def most_reputation(state: GameState, among=None) -> list:
    """The teams with the highest reputation; more than one is a tie (R35 Decision)."""
    teams = list(among if among is not None else state.reputation)
    best = max(state.reputation[t] for t in teams)
    return [t for t in teams if state.reputation[t] == best]


def most_animals_then_reputation(state: GameState, among) -> list:
    """Most animals, ties broken by reputation (R35.3)."""
    best = max(len(state.animals[t]) for t in among)
    return most_reputation(state, [t for t in among if len(state.animals[t]) == best])


def terraformed(state: GameState, config: GameConfig) -> bool:
    """Every track at its last level (R27)."""
    return all(state.tracks[t] >= track.length for t, track in config.tracks.items())


def end_event(before: GameState, after: GameState, config: GameConfig, elapsed: float) -> dict | None:
    """The game_ended event a change triggers, if it meets condition 2 or 3 (R35).

    When terraformation completes, teams already past a threshold compete; once
    it is complete, the team that crosses a threshold wins. Condition 2 is
    checked before condition 3, in the order of the rules (Decision).
    """
    if after.ended or not terraformed(after, config):
        return None
    just_completed = not terraformed(before, config)
    rep = [t for t in config.teams if after.reputation[t] >= config.reputation_threshold
           and (just_completed or before.reputation[t] < config.reputation_threshold)]
    if rep:
        return _ended("reputation", most_reputation(after, rep), elapsed)
    animals = [t for t in config.teams if len(after.animals[t]) >= config.animals_threshold
               and (just_completed or len(before.animals[t]) < config.animals_threshold)]
    if animals:
        return _ended("animals", most_animals_then_reputation(after, animals), elapsed)
    return None


def _ended(reason: str, winners: list, elapsed: float) -> dict:
    return {"type": "game_ended", "reason": reason, "winners": winners, "elapsed": elapsed}
