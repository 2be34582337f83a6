"""A command kept on a device, made again on another before the first could be sent (docs/OUTBOX.md).

A station loses the Wi-Fi; its tablet keeps a harvest ("kept on this device"). The facilitator, or the
harvester who cannot wait, has it booked at the other console. When the first tablet is back in reach its
outbox sends what it kept, under its own Idempotency-Key: before, the bank booked it as well, and the team got
the harvest twice, seen by nobody until the counts went wrong.

The bank cannot tell a move made again from the same move truly made twice (a harvester back from a second
trip, R14), so it does not decide: a kept command whose very move (the same type, team, card, resource,
amounts...; not who sent it, how or from which sheet) was booked since it was made on the device, from
anywhere but this device's own outbox, is refused `409 made_again` naming that entry, who booked it and how
long after; the page shows it in red with its three choices: drop it (it was made again), or book it again (it
really happened twice: a new try, made now, which the entry before no longer matches). Its own outbox's rows
are left out: two kept commands of one device were both made on it, where the page already asks about a
double tap and a harvest made again. An entry undone since no longer counts.

The rows booked since the command was made are read before the booking takes the bank's lock; the check inside the
booking's transaction (Bank.execute's `check`), once the rows of other processes are folded, reads only those
committed since: two devices sending the same kept move at once book one, and the other is asked.
"""

from __future__ import annotations

from bank.errors import BankError

# Travel and authorship, not the move: who sent it, from which device or sheet, under which id.
NOT_THE_MOVE = frozenset({"id", "actor", "queued", "paper"})
# The wait is counted by the device in whole seconds: a booking this close before the command's making may be
# the one it stands for.
ROUNDING_SECONDS = 2.0
# Rows read back from the tip per step while looking for the first booked after the making (then 4 times more).
FIRST_LOOK = 32


class MadeAgain(BankError):
    """A 409 refusal: the kept command's move was booked since it was made (code `made_again`)."""


def move_of(command: dict) -> dict:
    return {k: v for k, v in command.items() if k not in NOT_THE_MOVE}


def rows_since(bank, at: float, upto: int) -> list[dict]:
    """The committed rows up to entry `upto` booked at `at` or later (bank time), oldest first, read back from
    `upto`: from memory when it holds them (bank.rows_upto), else from the journal."""
    look, chunks = FIRST_LOOK, []
    while upto > 0:  # each step reads only the rows before the last step's (a row is decoded once)
        after = max(0, upto - look)
        rows = bank.rows_upto(after, upto)
        chunks.append(rows)
        if rows and rows[0]["at"] < at:
            break
        upto, look = after, look * 4
    return [row for rows in reversed(chunks) for row in rows if row["at"] >= at]


def guard(bank, command: dict):
    """The `check` for Bank.execute of a kept command (its `queued` note set), which raises MadeAgain. The rows
    booked since the command was made are read here, before the booking takes the bank's lock (a long look back
    would hold every other station's booking); the check itself reads only the rows committed since."""
    queued = command.get("queued") or {}
    made = bank.now() - float(queued.get("seconds", 0)) - ROUNDING_SECONDS
    move, device, seen = move_of(command), queued.get("device"), bank.last_seq
    before = [row for row in rows_since(bank, made, seen) if _same(row, move, device)]

    def check() -> None:
        since = [row for row in bank.rows_upto(seen, bank.last_seq) if _same(row, move, device)]
        undone = set(bank.state.reversed) if before or since else ()
        for row in before + since:
            if row["seq"] not in undone:
                raise _refusal(row, made, command.get("type"))
    return check


def _same(row: dict, move: dict, device) -> bool:
    """The row books this very move, and not from the same device's outbox."""
    booked = row["command"]
    return (booked.get("type") == move.get("type") and (booked.get("queued") or {}).get("device") != device
            and move_of(booked) == move)


def _refusal(row: dict, made: float, kind) -> MadeAgain:
    actor = row["command"].get("actor") or ""
    after = max(0, round((row["at"] - made - ROUNDING_SECONDS) / 60))
    return MadeAgain("made_again", f"the same {kind} was booked as entry {row['seq']} by {actor or 'the bank'} "
                     f"{after} min after this one was kept on this device: if it was made again there, drop this "
                     "one; if it really happened twice, book it again", seq=row["seq"], actor=actor, minutes=after)
