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

Whatever kind of move it is read as: a trade or a fight between the sheet's team and another books under
the move's slots (paper_shared.py), so its line's slots alone did not see it. A trade line read with other
amounts on a second laptop, or a harvest line typed later as a trade (or the other way round), booked a
second entry. Every line's rows now carry `paper: {sheet, line}`, indexed from the journal
(paper_line_index.py); before booking, what the line booked, and the other team's booking it stood for
(bank/store/accounts/paper_copies.py), are read: the same move is already booked,
another move still standing is refused naming its entry. The booking checks again inside its transaction
(Bank.execute's `check`) that no row was booked from the line since: two processes typing one line two
ways at once, as a trade and a harvest or as two trades, book one entry. A line that stands for the other
team's booking books nothing, its claim kept with the accounts: the booking's check reads the claims too,
and a claim, once made, waits its turn at the journal's writer (every booking begun before is committed)
and is let go if the line was booked meanwhile (_Guard).
"""

from __future__ import annotations

import hashlib
import itertools
import json

from bank.errors import BankError, IdConflict
from bank.game.typed_names import words_of
from bank.web.field import paper_kept, paper_line_index, paper_shared
from bank.web.field.made_again import NOT_THE_MOVE

# What says who sent a row and how, not what it does (compared apart from the move).
SENDER_FIELDS = NOT_THE_MOVE  # who sent it, how and from which sheet: the same set a kept command is compared without


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


class _LineMoved(BankError):
    """An entry was booked from the line, or it stood for another, since it was read: read it again."""


def book(bank, config, command: dict, place: tuple, actor: str, copies) -> dict:
    """{status: booked|duplicate, seq, same_as?} or {status: refused, error} for the line `place` = (sheet,
    number), whatever kind of move it is. `copies`: which line stood for the other team's booking.

    Rule refusals (BankError) and storage errors are the caller's to answer."""
    sheet, number = place
    move = move_text(command)
    before = bank.booked(earlier_id(sheet, number, command))
    if before is not None:
        return {"status": "duplicate", "seq": before["seq"]}
    index = paper_line_index.of(bank)
    while True:  # again only when another device booked from this line meanwhile
        bank.catch_up()  # what other processes booked and undid: the line is read as the journal has it now
        guard = _Guard(bank, index, copies, place, index.refresh(bank), copies.stood_for(sheet, number))
        refused = _taken(bank, guard.stood, place, move, index.rows(sheet, number))
        if refused is not None:
            return refused
        try:
            if (between := paper_shared.shared(config, command, sheet)):
                outcome = paper_kept.stand_for(bank, config, copies, move_text, command, place, guard, between[1]) \
                    or paper_shared.book(bank, config, command, place, actor, copies, guard)
            else:  # the line stands for a tablet's kept booking of its move (paper_kept.py), else books its own
                outcome = paper_kept.stand_for(bank, config, copies, move_text, command, place, guard) \
                    or _walk(bank, command, place, move, actor, guard.check)
        except _LineMoved:
            continue
        if outcome is not None:
            return outcome


def _taken(bank, stood: list, place: tuple, move: str, marked: list) -> dict | None:
    """The refusal when an entry still standing was booked from the line (or stood for by it) with another
    move; already booked when the line holds this very move; None when the line is free."""
    sheet, number = place
    entries = list(marked)  # rows carrying the line's mark, of any kind
    for n in itertools.count(1):  # a single line booked before rows carried the mark
        row = bank.booked(_slot(sheet, number, n))
        if row is None:
            break
        entries.append((row["seq"], row["command"]))
    for slot in stood:  # the other team's trade or fight this line stood for, or a console's kept move
        row = bank.booked(paper_kept.booking_of(slot))
        if row is not None:
            entries.append((row["seq"], row["command"]))
    for seq, command in entries:  # this very move: booked once (also under a slot of older code, per print)
        if move_text(command) == move:
            same = command.get("paper")
            if command.get("queued") and not same:  # the line stood for a tablet's kept command (paper_kept.py)
                return {"status": "duplicate", "seq": seq, "kept": paper_kept.kept_by(command)}
            return {"status": "duplicate", "seq": seq, **({"same_as": same} if same and same != {"sheet": sheet,
                                                                                                  "line": number} else {})}
    undone = set(bank.state.reversed)
    standing = sorted((seq, command.get("type")) for seq, command in entries if seq not in undone)
    return _refusal(sheet, number, *standing[0]) if standing else None


class _Guard:
    """What the line held when it was read (the journal at `seen`, the bookings it stood for): checked again
    where a booking or a claim could race another reading of the line on another process."""

    def __init__(self, bank, index, copies, place: tuple, seen: int, stood: list):
        self.bank, self.index, self.copies, self.place, self.seen, self.stood = bank, index, copies, place, seen, stood

    def check(self) -> None:
        """Inside the booking's transaction, the journal at its tip: refused when a row was booked from the line
        since, or the line stood for another team's booking since (a claim, with the accounts)."""
        if self._booked_since() or self.copies.stood_for(*self.place) != self.stood:
            raise _LineMoved("paper_line_moved", "this line was booked meanwhile: read it again")

    def settle(self, slot: str) -> None:
        """After the line claimed `slot`: once every booking begun before is committed (a turn at the journal's
        writer, nothing written), a row booked from the line since lets the claim go, and the line is read again."""
        self.bank.probe()
        if self._booked_since():
            self.copies.release(slot, *self.place)
            raise _LineMoved("paper_line_moved", "this line was booked meanwhile: read it again")

    def _booked_since(self) -> bool:
        self.index.refresh(self.bank)
        return any(seq > self.seen for seq, _ in self.index.rows(*self.place))


def _refusal(sheet: str, number: int, seq: int, kind) -> dict:
    return {"status": "refused", "error": {
        "code": "paper_line_booked", "message": f"line {number} of sheet {sheet} is already booked as entry "
        f"{seq} with another move: check the sheet (a line of its second copy is typed under its id with /2, such as "
        "sheet 412C-K7/2); if that entry is wrong, undo it, then send this line again",
        "params": {"n": number, "sheet": sheet, "seq": seq, "type": kind}}}


def _walk(bank, command, place, move, actor, check) -> dict | None:
    """The line's own slots up to the first free one; None when another device booked it meanwhile."""
    sheet, number = place
    undone = set(bank.state.reversed)
    for n in itertools.count(1):
        cid = _slot(sheet, number, n)
        row = bank.booked(cid)
        if row is None:
            try:
                booked = bank.execute({**command, "paper": {"sheet": sheet, "line": number}, "id": cid, "actor": actor},
                                      check=check)
            except IdConflict:  # another device booked this slot meanwhile (another move, or another account)
                return None
            return {"status": "duplicate" if booked.duplicate else "booked", "seq": booked.seq}
        if move_text(row["command"]) == move:
            return {"status": "duplicate", "seq": row["seq"]}
        if row["seq"] in undone:
            continue  # that entry was undone: the line may be booked again, as now read
        return _refusal(sheet, number, row["seq"], row["command"].get("type"))
