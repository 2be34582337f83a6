"""What the end-of-game report says, read from the journal: no drawing here."""

from __future__ import annotations

from dataclasses import dataclass, field

from bank.game import views
from bank.game.replay import points_over_time
from bank.game.state import GameState

from .report_story import RowReader


@dataclass
class TeamStory:
    """One team's game: what it owns at the end and what it did on the way."""

    buildings: list = field(default_factory=list)
    animals: list = field(default_factory=list)
    contributions: dict = field(default_factory=dict)  # event title -> tokens given
    trades: list = field(default_factory=list)         # {"minute", "other", "kind", "gave", "got"}
    fights: list = field(default_factory=list)         # {"minute", "other", "card", "other_card", "won"}
    sources: dict = field(default_factory=dict)        # where the points came from: SOURCES key -> points (R31)


# The reasons reputation is given for (bank/game/turn.py `points`), in the report's column order (R31).
SOURCES = ("building", "track", "animal", "redeem_jokers", "exchange", "event", "award")


@dataclass
class Summary:
    """The whole game: standings, how it ended, curves over game time, each team's story."""

    standings: list
    ended: dict | None
    minutes: float
    reputation: dict   # team -> [(minute, points)], a step curve
    tracks: dict       # track -> [(minute, level)]
    rates: list        # {"minute", "was", "now", "actor"}
    teams: dict        # team -> TeamStory
    moments: list = field(default_factory=list)  # {"minute", "type", ...}: what decided the game, in order
    event_titles: dict = field(default_factory=dict)  # event id -> its title


# Journal events that explain a result (R31-R35): told in the report's "moments" section; the
# corrections, refills, pauses, session breaks, the bank's own holds and the paper re-entry too
# (a report that leaves nothing out, each where it happened).
MOMENTS = ("award", "exchange", "option_set", "clock_started", "clock_paused", "session_ended", "clock_resumed",
           "session_started", "event_closed", "animal_bought", "building_built", "inventory", "refill",
           "paper_reentry", "undone", "game_ended")


def _step(curve: list, minute: float, value) -> None:
    """Add a point to a step curve: the old value up to now, then the new one."""
    if curve[-1][1] != value:
        curve.append((minute, curve[-1][1]))
        curve.append((minute, value))


def _steps(curve: list) -> list:
    """[[game second, points], ...] (one per change) as a step curve in game minutes for the chart."""
    steps = [(0.0, curve[0][1])]
    for seconds, points in curve[1:]:
        _step(steps, seconds / 60, points)
    if curve[-1][0] / 60 > steps[-1][0]:
        steps.append((curve[-1][0] / 60, steps[-1][1]))
    return steps


def summarise(config, rows) -> Summary:
    """Replay journal rows into the report's figures; reversed entries are left out of the stories."""
    rows = list(rows)  # read twice: here and for the curve of points (bank/game/replay.py)
    state = GameState.initial(config)
    tracks = {t: [(0.0, 0)] for t in config.tracks}
    records, minute, unlocked, complete, leader, leads = [], 0.0, None, None, None, []
    reader = RowReader()
    for row in rows:
        session_before = state.clock["session"]
        for event in row["events"]:
            state.apply(event)
        minute = state.elapsed(row["at"]) / 60
        if unlocked is None and all(state.tracks[t] >= config.animal_unlock_level for t in config.tracks):
            unlocked = minute  # R26: the moment animals went on sale
        if complete is None and all(state.tracks[t] >= config.tracks[t].length for t in config.tracks):
            complete = minute  # R27: terraformation complete, the end by points or animals may come (R35)
        leader = _lead(state, leader, minute, leads)
        for track in config.tracks:
            _step(tracks[track], minute, state.tracks[track])
        if row["type"] != "reverse":
            records += [(row["seq"], minute, row.get("actor"), e) for e in reader.moments(row, state, session_before)]
            reader.remember(row, minute)
        else:
            records += [(row["seq"], minute, row.get("actor"), e) for e in reader.undoing(row, minute)]
    reputation = {team: _steps(curve) for team, curve in points_over_time(config, rows)["teams"].items()}
    for curve in tracks.values():
        curve.append((max(minute, curve[-1][0]), curve[-1][1]))  # draw every line to the end
    stories = {t: TeamStory(list(state.buildings[t]), list(state.animals[t])) for t in config.teams}
    undone = set(state.reversed)
    # A paper batch stays told when its first move is undone: its line says how many were undone.
    kept = [(m, actor, e) for seq, m, actor, e in records if seq not in undone or e["type"] == "paper_reentry"]
    rates = _tell(kept, stories, state)
    moments = [{"minute": m, **e} for m, actor, e in kept if e["type"] in MOMENTS]
    if unlocked is not None:
        moments.append({"minute": unlocked, "type": "animals_unlocked"})
    if complete is not None:
        moments.append({"minute": complete, "type": "terraformation_complete"})
    moments += leads
    moments.sort(key=lambda e: e["minute"])
    titles = {e: record.get("title", e) for e, record in state.events.items()}
    return Summary(views.standings(state, config, 0), state.ended, minute, reputation, tracks, rates, stories, moments,
                   titles)


def _lead(state: GameState, leader: str | None, minute: float, leads: list) -> str | None:
    """The team alone at the top now; a change of leader is added to `leads` (a tie changes nothing)."""
    scores = state.reputation
    best = max(scores.values(), default=0)
    top = [team for team, points in scores.items() if points == best]
    if len(top) != 1 or best <= 0 or top[0] == leader:
        return leader
    leads.append({"minute": minute, "type": "new_leader", "team": top[0], "points": best, "was": leader})
    return top[0]


def _tell(records: list, stories: dict, state: GameState) -> list:
    """Give each team its trades, fights and contributions; return the rate changes."""
    rates = []
    for minute, actor, e in records:
        kind = e["type"]
        if kind == "trade":
            merchant, visited = e["merchant_team"], e["visited_team"]
            for team, other, gave, got in ((merchant, visited, e["give"], e["take"]), (visited, merchant, e["take"], e["give"])):
                stories[team].trades.append({"minute": minute, "other": other, "kind": e["kind"], "gave": gave, "got": got})
        elif kind == "fight":
            sides = (("attacker", e["attacker_team"], e["attacker_card"]), ("defender", e["defender_team"], e["defender_card"]))
            for (side, team, card), (_, other, other_card) in zip(sides, reversed(sides)):
                stories[team].fights.append({"minute": minute, "other": other, "card": card,
                                             "other_card": other_card, "won": e["winner"] == side})
        elif kind == "contributed":
            title = state.events.get(e["event"], {}).get("title", e["event"])
            given = stories[e["team"]].contributions
            given[title] = given.get(title, 0) + e["amount"]
        elif kind == "reputation":
            source = e["reason"].split(":")[0]
            given = stories[e["team"]].sources
            given[source] = given.get(source, 0) + e["points"]
        elif kind == "rate_set":
            rates.append({"minute": minute, "was": e["was"], "now": {"tokens": e["tokens"], "points": e["points"]},
                          "actor": actor})
    return rates
