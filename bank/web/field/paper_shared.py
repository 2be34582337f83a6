"""A move between two teams, written on both teams' ledgers: one move, booked once.

A trade or a fight is written on the ledger of each team in it. Typed back from both sheets, the two
lines have their own sheet and number, so each was its own entry and the trade was booked twice. Such
a line now books under a slot: an id made from the move as read and a count. The slots of that move are
walked in order:
- one booked from this very line (same sheet, same number): the line was typed before;
- one booked from the other team's sheet after this line's sheet was printed: a copy of the move this line
  may stand for;
- one booked from another line of this team's sheets: another time the teams made the same move.
The line stands for the first other-team slot no line of its team has stood for yet, and is answered as
already booked there, naming that sheet and line; with none left it books the first free slot. Which line
stood for which slot is kept with the accounts (bank/store/accounts/paper_copies.py), so the count holds
across batches, devices and processes: a sheet typed in two parts, or half on each laptop, pairs its k-th
line with the other team's k-th booking. Two devices typing both sheets at once book one entry: the
journal takes an id once, and a slot is stood for by the first line to claim it.

The two halves may be on sheets of two prints: one team on its continuation ledger (from entry 412), the
other on the print pack's blank ledger (0C), or on an older print it kept. The slots were per print, and
such a trade booked twice. They are now the game's, and a print only bounds what a line may stand for: a
sheet printed from entry S carries moves made after S, whose other half was typed back later still, so a
booking of entry S or before is another trade (each team forgot one of two same trades at two stops: two
trades, as written). A blank ledger (entry 0) gives no such bound: a trade each team forgot once, the second
time written on a blank ledger, is one trade, as two blank ledgers' always were (docs/RELIABILITY.md).
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


def book(bank, config, command: dict, place: tuple, actor: str, copies, guard=None) -> dict | None:
    """The line's outcome {status, seq, same_as?} when it is a move between its sheet's team and another,
    else None (the caller books it as its own line). `copies` keeps which line stood for which booking
    (bank/store/accounts/paper_copies.py). `guard` (paper_line.py) keeps the line to one entry: its check goes
    with the booking, and a claim is settled by it. Rule refusals and storage errors are the caller's to answer."""
    found = shared(config, command, place[0])
    if found is None:
        return None
    seq, team = found
    move = json.dumps(command, sort_keys=True, ensure_ascii=False)
    mark = {"sheet": place[0], "line": place[1]}
    while True:  # again only when another device took the slot or the booking this line was to stand for
        outcome = _walk(bank, config, command, seq, move, team, mark, actor, copies, guard)
        if outcome is not None:
            return outcome


def _slot(move: str, n: int) -> str:
    """The n-th booking of the move in the game (slots were per print before: "shared\n{print}\n{move}\n{n}";
    a line booked so is known again by paper_line.py from the journal's marks and the claims)."""
    return "paper:" + hashlib.sha256(f"shared\n{move}\n{n}".encode()).hexdigest()[:40]


def _walk(bank, config, command, seq, move, team, mark, actor, copies, guard) -> dict | None:
    """One walk over the move's slots up to the first free one; None when another device got there first. `seq`:
    the entry the line's sheet was printed from, before which no booking is this line's move."""
    free_copy = None  # the first booking from the other team's sheet that no line of this team stood for yet
    for n in itertools.count(1):
        cid = _slot(move, n)
        row = bank.booked(cid)
        if row is None:
            break
        booked_from = row["command"].get("paper") or {}
        if booked_from == mark:  # this very line, typed before
            return {"status": "duplicate", "seq": row["seq"]}
        if sheet_team(config, booked_from.get("sheet"))[1] == team:
            continue  # another line of this team's sheets: another time the teams made this move
        holder = copies.holder(cid)
        if holder == mark:  # this line stood for it before, from whatever batch or device
            return {"status": "duplicate", "seq": row["seq"], "same_as": booked_from}
        if holder is None and free_copy is None and row["seq"] > seq:
            free_copy = cid, row
    if free_copy is not None:
        slot, row = free_copy
        if copies.claim(slot, mark["sheet"], mark["line"]) != mark:
            return None  # another line of this team claimed it at this moment: walk again
        if guard is not None:
            guard.settle(slot)  # the line booked another move at this very moment: the claim is let go, refused
        return {"status": "duplicate", "seq": row["seq"], "same_as": row["command"]["paper"]}
    try:
        booked = bank.execute({**command, "paper": mark, "id": cid, "actor": actor}, check=guard and guard.check)
    except IdConflict:  # another device booked this slot meanwhile: walk again and read what it booked
        return None
    return {"status": "duplicate" if booked.duplicate else "booked", "seq": booked.seq}
