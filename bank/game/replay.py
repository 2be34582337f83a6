"""The game's story from its journal: points over game time per team, the moments that decided it, the podium.

One pure reading (no Flask, no clock of its own) for the big screen's replay (static/js/replay.js,
served by bank/web/field/replay_routes.py) and the end-of-game report's chart (printables/report.py):
the same journal gives the same curve in both. Scores are re-folded with the game's own state
(bank/game/state.py), so an undone entry shows as the rise and fall it was, and game time is the
game clock's (R34): a pause or a session break takes no room on the time axis.
"""

from __future__ import annotations

from bank.game import views
from bank.game.config_model import GameConfig
from bank.game.state import GameState

MAX_FIGHTS = 6  # fights called out in a replay at most: a game day has dozens, a minute and a half holds few


def points_over_time(config: GameConfig, rows) -> dict:
    """{"seconds": game length, "teams": {team: [[game second, points], ...]}} from journal rows.

    Each team's list starts at [0, 0] and has one point per change of its score, at the game
    second the entry was booked; the last point is at the game's end, so every line reaches it.
    """
    return _walk(config, rows)["curve"]


def story(config: GameConfig, rows) -> dict:
    """What the replay plays: the curve, the moments in game order, the podium and how it ended."""
    walked = _walk(config, rows)
    undone = walked["undone"]
    # An undone building or fight is left out; a change of leader stays: the scores did cross then.
    kept = [m for seq, m in walked["moments"] if m["kind"] == "lead" or seq not in undone]
    # The first building is the first one still standing: one undone is not the game's first.
    first = next((m for m in kept if m["kind"] == "building"), None)
    moments = [dict(m, kind="first_building") if m is first else m
               for m in kept if m["kind"] != "building" or m is first]
    return {"seconds": walked["curve"]["seconds"], "teams": walked["curve"]["teams"],
            "moments": _chosen(moments), "podium": walked["podium"], "ended": walked["ended"]}


def _walk(config: GameConfig, rows) -> dict:
    state = GameState.initial(config)
    teams = {t: [[0, 0]] for t in config.teams}
    moments, leader, seconds = [], None, 0
    for row in rows:
        for event in row["events"]:
            state.apply(event)
        seconds = round(state.elapsed(row["at"]))
        for team, curve in teams.items():
            if state.reputation[team] != curve[-1][1]:
                curve.append([seconds, state.reputation[team]])
        for event in row["events"]:
            moment = _moment(event, seconds)
            if moment and moment["kind"] == "event_won":
                moment["title"] = state.events.get(event["event"], {}).get("title", event["event"])
            if moment:
                moments.append((row["seq"], moment))
        leader = _lead(state, leader, seconds, row["seq"], moments)
    for curve in teams.values():
        if curve[-1][0] < seconds:
            curve.append([seconds, curve[-1][1]])
    podium = [{"team": r["team"], "rank": r["rank"], "points": r["reputation"]}
              for r in views.standings(state, config, 0)]
    return {"curve": {"seconds": seconds, "teams": teams}, "moments": moments, "undone": set(state.reversed),
            "podium": podium, "ended": state.ended}


def _moment(event: dict, seconds: int) -> dict | None:
    """A journal event the replay may call out, or None (of the buildings, story() keeps the first standing)."""
    kind = event["type"]
    if kind == "building_built":
        return {"at": seconds, "kind": "building", "team": event["team"], "building": event["building"]}
    if kind == "event_closed":
        first = [entry["team"] for entry in event["ranking"] if entry.get("rank") == 1]
        if first:
            return {"at": seconds, "kind": "event_won", "team": first[0], "event": event["event"]}
    if kind == "fight":
        won = event["attacker_team"] if event["winner"] == "attacker" else event["defender_team"]
        lost = event["defender_team"] if won == event["attacker_team"] else event["attacker_team"]
        return {"at": seconds, "kind": "fight", "team": won, "other": lost}
    return None


def _lead(state: GameState, leader: str | None, seconds: int, seq: int, moments: list) -> str | None:
    """The team alone at the top; a new one is a moment (a tie changes nothing)."""
    best = max(state.reputation.values(), default=0)
    top = [team for team, points in state.reputation.items() if points == best]
    if len(top) != 1 or best <= 0 or top[0] == leader:
        return leader
    moments.append((seq, {"at": seconds, "kind": "lead", "team": top[0], "was": leader, "points": best}))
    return top[0]


def _chosen(moments: list) -> list:
    """Every moment but the fights, and at most MAX_FIGHTS fights spread over the game."""
    fights = [m for m in moments if m["kind"] == "fight"]
    if len(fights) > MAX_FIGHTS:
        step = len(fights) / MAX_FIGHTS
        keep = {id(fights[int(i * step)]) for i in range(MAX_FIGHTS)}
        moments = [m for m in moments if m["kind"] != "fight" or id(m) in keep]
    return moments
