"""A move between two teams, written on both teams' ledgers: one move, booked once.

A trade or a fight is written on the ledger of each team in it. Typed back from both sheets, the two
lines have their own sheet and number, so each was its own entry and the trade was booked twice. Such
a line now books under a slot: an id made from the print its sheet comes from (the entry every team's
ledger starts from), the move as read and a count. The slots of that move are walked in order:
- one booked from this very line (same sheet, same number): the line was typed before;
- one booked from the other team's sheet: a copy of the move this line may stand for;
- one booked from another line of this team's sheets: another time the teams made the same move.
The line stands for the first other-team slot an earlier line of the batch has not stood for, and is
answered as already booked there, naming that sheet and line; with none left it books the first free
slot. Two devices typing both sheets at once book one entry: the journal takes an id once. The k-th
time two teams made the same move is the k-th on each sheet, counted over the lines typed together.
"""

from __future__ import annotations

import hashlib
import itertools
import json

from bank.errors import IdConflict
from bank.game.paper_sheet import sheet_parts, team_letters

PARTIES = {"trade": ("merchant_team", "visited_team"), "fight": ("attacker_team", "defender_team")}


def sheet_team(config, sheet: str) -> tuple:
    """(the entry the sheet starts from, the team whose ledger it is, or None for a letter no team has)."""
    if not sheet:
        return None, None
    seq, letters = sheet_parts(sheet)
    team = next((t for i, t in enumerate(config.teams) if team_letters(i) == letters), None)
    return seq, team


def shared(config, command: dict, sheet: str) -> tuple | None:
    """(print, the sheet's team) when the move is between the sheet's team and another, else None."""
    fields = PARTIES.get(command.get("type"))
    if fields is None:
        return None
    seq, team = sheet_team(config, sheet)
    if team is None or team not in (command.get(fields[0]), command.get(fields[1])):
        return None
    return seq, team


def book(bank, config, command: dict, place: tuple, actor: str, stood_for: dict) -> dict | None:
    """The line's outcome {status, seq, same_as?} when it is a move between its sheet's team and another,
    else None (the caller books it as its own line). `stood_for` counts, per move and team, the lines
    of this batch answered as copies. Rule refusals and storage errors are the caller's to answer."""
    found = shared(config, command, place[0])
    if found is None:
        return None
    seq, team = found
    move = json.dumps(command, sort_keys=True, ensure_ascii=False)
    mark = {"sheet": place[0], "line": place[1]}
    taken = stood_for.get((seq, move, team), 0)
    copies = []
    for slot in itertools.count(1):
        cid = "paper:" + hashlib.sha256(f"shared\n{seq}\n{move}\n{slot}".encode()).hexdigest()[:40]
        row = bank.booked(cid)
        if row is None and taken >= len(copies):
            try:
                booked = bank.execute({**command, "paper": mark, "id": cid, "actor": actor})
            except IdConflict:  # another device booked this slot meanwhile: read what it booked
                row = bank.booked(cid)
                if row is None:
                    raise
            else:
                return {"status": "duplicate" if booked.duplicate else "booked", "seq": booked.seq}
        if row is None:
            stood_for[(seq, move, team)] = taken + 1
            first = copies[taken]
            return {"status": "duplicate", "seq": first["seq"], "same_as": first["command"]["paper"]}
        booked_from = row["command"].get("paper") or {}
        if booked_from == mark:
            return {"status": "duplicate", "seq": row["seq"]}
        if sheet_team(config, booked_from.get("sheet"))[1] != team:
            copies.append(row)
