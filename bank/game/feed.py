"""The activity feed: what was just booked, in the game's terms, from the journal.

Root the Box, CTFd and Goosechase show one; before it the big screen showed only numbers changing,
and an undone building took a team from 3 points to 1 with no word on its phone. A feed entry is
built from one journal row: which teams it concerns, what (a building, an animal, track steps, a
fight's winner...), the reputation it moved, the tokens it moved per team, and the reason a
facilitator gave (awards, inventories, undos). The pages put it in words (board_feed.js).

Two cuts, so nothing secret leaves the bank (R19 keeps each team's stock to itself):
`public_entry` drops the tokens (the big screen, every phone's public picture); `team_entry`
keeps the entries that concern one team, with that team's own tokens and points only.
"""

from __future__ import annotations

# What the bank does on its own or only moves the clock: not a booking a player did or must hear of.
SILENT = frozenset({"setup", "tick", "hold_clock", "start_clock", "pause", "resume", "end_session", "end_game", "refill"})
TEAM_KEYS = ("team", "attacker_team", "defender_team", "merchant_team", "visited_team")


def entry(row: dict, original: dict | None = None) -> dict | None:
    """The feed entry of a journal row ({seq, at, command, events}), or None for a silent one.

    `original`: for an undo, the row it reverses (read from the journal by the caller), so the
    entry says what was undone ("Build · Power plant I"), not only "entry 12"."""
    command, events = row.get("command") or {}, row.get("events") or []
    kind = command.get("type") or row.get("type")
    if kind in SILENT:
        # The bank's own rows that close an event (its deadline, the end of the game) pay rewards:
        # told as the event's closing, so every point a team gets or loses has its entry.
        closed = _first(events, "event_closed")
        if not closed and not _reputation(events):
            return None
        kind, command = "close_event", {"event": closed.get("event")} if closed else {}
    if not events:
        return None
    out = {"seq": row["seq"], "at": round(row["at"]), "type": kind, "teams": _teams(command, events)}
    what = _what(kind, command, events)
    if what:
        out["what"] = what
    rep, tokens = _reputation(events), _tokens(events)
    if rep:
        out["rep"] = rep
    if tokens:
        out["tok"] = tokens
    reason = command.get("reason")
    if isinstance(reason, str) and reason.strip():
        out["reason"] = reason.strip()[:200]
    if kind == "reverse":
        undone = {"seq": command.get("seq")}
        if original:
            undone["type"] = (original.get("command") or {}).get("type")
            undone["what"] = _what(undone["type"], original.get("command") or {}, original.get("events") or [])
            out["teams"] = sorted(set(out["teams"]) | set(_teams(original.get("command") or {}, original.get("events") or [])))
        out["undo"] = undone
    return out


def public_entry(full: dict) -> dict:
    """The entry as every screen may read it: no team's tokens (its stock stays its own)."""
    return {k: v for k, v in full.items() if k != "tok"}


def team_entry(full: dict, team: str) -> dict | None:
    """The entry as one team's phone reads it: only if it concerns the team, its own moves only."""
    if team not in full["teams"]:
        return None
    out = {k: v for k, v in full.items() if k not in ("tok", "rep")}
    if team in full.get("tok", {}):
        out["tok"] = full["tok"][team]
    if team in full.get("rep", {}):
        out["rep"] = full["rep"][team]
    return out


def _teams(command: dict, events: list) -> list:
    found = [command[k] for k in TEAM_KEYS if isinstance(command.get(k), str)]
    found += [e["team"] for e in events if isinstance(e.get("team"), str) and e["type"] in ("reputation", "contributed")]
    return sorted(set(found))


def _reputation(events: list) -> dict:
    rep: dict = {}
    for e in events:
        if e["type"] == "reputation":
            rep[e["team"]] = rep.get(e["team"], 0) + e["points"]
    return {t: n for t, n in rep.items() if n}


def _tokens(events: list) -> dict:
    """{team: {resource: +n or -n}} from the row's transfers between a team's account and any other."""
    moved: dict = {}
    for e in events:
        if e["type"] != "transfer":
            continue
        for account, sign in ((e["to"], 1), (e["from"], -1)):
            if account.startswith("team:"):
                team = moved.setdefault(account[5:], {})
                team[e["resource"]] = team.get(e["resource"], 0) + sign * e["amount"]
    return {t: {r: n for r, n in res.items() if n} for t, res in moved.items() if any(res.values())}


def _first(events: list, kind: str) -> dict:
    return next((e for e in events if e["type"] == kind), {})


def _what(kind: str | None, command: dict, events: list) -> dict:
    """The few ids the words need, by kind of booking (board_feed.js says them)."""
    pick = lambda *keys: {k: command[k] for k in keys if k in command}  # noqa: E731
    if kind == "harvest":
        return pick("card", "resource")
    if kind in ("build", "buy_animal"):
        return pick("building", "animal")
    if kind == "raise_tracks":
        return pick("steps")
    if kind == "trade":
        return pick("kind", "merchant_team", "visited_team")
    if kind == "fight":
        winner = command.get("attacker_team") if command.get("winner") == "attacker" else command.get("defender_team")
        return {**pick("attacker_team", "attacker_card", "defender_team", "defender_card"), "winner": winner}
    if kind in ("contribute", "close_event"):
        given = _first(events, "contributed")
        return {**pick("event"), **({"amount": given["amount"]} if given else {})}
    if kind == "open_event":
        return {"event": _first(events, "event_opened").get("event"), "title": command.get("title")}
    if kind == "set_rate":
        return {**pick("tokens", "points"), "was": _first(events, "rate_set").get("was")}
    if kind == "set_option":
        return pick("option", "value")
    if kind == "award":
        return pick("points")
    return {}
