"""One printed ledger line, one move: a numbered line books once, however it is typed again.

A line under a sheet's id ("feuille 412C", then "3 Verts récolte eau 1") used to book under an id made
from the sheet, its number and the move as read: the same line typed again from another laptop booked
once, but typed differently it was a new entry. A second facilitator who read a handwritten 1 as 7, wrote
an award's reason in other words ("belle cabane" for "Belle cabane !") or another resource booked the line
a second time, silently. Now a printed line books under slots of its own (the sheet, the number, k),
walked in order: the slot holding this very move answers already booked; a slot holding another move
refuses the line, naming the entry (undo it if it is the wrong one, then the line books again); a slot
whose entry was undone is passed over; the first free slot books. The journal takes an id once, so two
devices typing the same line at once, alike or not, book one entry.
"""

from __future__ import annotations

import hashlib
import itertools
import json

from bank.errors import IdConflict
from bank.game.typed_names import words_of

# What says who sent a row and how, not what it does (compared apart from the move).
SENDER_FIELDS = frozenset({"id", "actor", "queued", "paper"})


def move_text(command: dict) -> str:
    """The move as compared: the command without who sent it, as canonical JSON; a reason (an award's, as
    written) by its words, so "belle cabane" typed again is the line booked as "Belle cabane !"."""
    move = {k: v for k, v in command.items() if k not in SENDER_FIELDS}
    if isinstance(move.get("reason"), str):
        move["reason"] = words_of(move["reason"])
    return json.dumps(move, sort_keys=True, ensure_ascii=False)


def _slot(sheet: str, number: int, n: int) -> str:
    return "paper:" + hashlib.sha256(f"line\n{sheet}\n{number}\n{n}".encode()).hexdigest()[:40]


def earlier_id(sheet: str, number: int, command: dict) -> str:
    """The id a numbered line was booked under before slots (a game typed back on the older code)."""
    move = json.dumps(command, sort_keys=True, ensure_ascii=False)
    return "paper:" + hashlib.sha256(f"sheet\n{sheet}\n{number}\n{move}".encode()).hexdigest()[:40]


def book(bank, command: dict, place: tuple, actor: str) -> dict:
    """{status: booked|duplicate, seq} or {status: refused, error} for the line `place` = (sheet, number).

    Rule refusals (BankError) and storage errors are the caller's to answer."""
    sheet, number = place
    move = move_text(command)
    before = bank.booked(earlier_id(sheet, number, command))
    if before is not None:
        return {"status": "duplicate", "seq": before["seq"]}
    while True:  # again only when another device booked the free slot meanwhile
        outcome = _walk(bank, command, sheet, number, move, actor)
        if outcome is not None:
            return outcome


def _walk(bank, command, sheet, number, move, actor) -> dict | None:
    undone = set(bank.state.reversed)
    for n in itertools.count(1):
        cid = _slot(sheet, number, n)
        row = bank.booked(cid)
        if row is None:
            try:
                booked = bank.execute({**command, "id": cid, "actor": actor})
            except IdConflict:  # another device booked this slot meanwhile (another move, or another account)
                return None
            return {"status": "duplicate" if booked.duplicate else "booked", "seq": booked.seq}
        if move_text(row["command"]) == move:
            return {"status": "duplicate", "seq": row["seq"]}
        if row["seq"] in undone:
            continue  # that entry was undone: the line may be booked again, as now read
        return {"status": "refused", "error": {
            "code": "paper_line_booked", "message": f"line {number} of sheet {sheet} is already booked as entry "
            f"{row['seq']} with another move; if that entry is wrong, undo it, then send this line again",
            "params": {"n": number, "sheet": sheet, "seq": row["seq"], "type": row["command"].get("type")}}}
