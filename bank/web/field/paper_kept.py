"""A ledger line typed back after a tablet's outbox sent the same move: the line stands for that booking.

While the bank does not answer, the procedure (printables/state_procedure.py) has every move written on the
team's ledger; a console or fight tablet whose page stayed open also keeps what is tapped on it, and its
outbox sends it by itself as soon as the bank answers (docs/OUTBOX.md), before anyone types the ledgers.
A move tapped *and* written (what the procedure asks of a facilitator unsure the tablet kept it) was then
booked twice: from the outbox, then from the typed line. (Typed first, the line wins and the outbox's copy
is refused `made_again`, bank/web/field/made_again.py.)

Only a booking made during an outage is stood for: the bank booked nothing live (from any station or the admin
page) for 2 minutes around its making. A station's Wi-Fi blip earlier in the game, its kept harvest sent a
minute later while the other stations booked, is no move of the paper ledgers (a print pack's blank ledger
bears no print to bound it): the same harvest written on a ledger later books.

The bank cannot tell the same move from one truly made twice (a harvester's second trip, R14). It pairs,
rather than asking the facilitator at a folding table about every tablet move: the k-th line of the team's
sheets with a move stands for the k-th booking of that very move sent from an outbox, made after the sheet
was printed, that no line of the team stood for yet (a trade: each team's line stands for it once). It is
answered already booked, naming the entry and whose console kept it; nothing is booked. A move made twice,
each tapped and written, is two bookings and two lines: paired one to one. Written twice, tapped once: the
second line books. Only a move tapped but never written, and the same move written but never tapped, books
once instead of twice: the answer names the entry and says to book the second, if it happened, from the
console.

Which line stood for which booking is a claim kept with the accounts (bank/store/accounts/paper_copies.py,
the same table as a trade's other half), so it holds across batches, devices and processes; the first
claim wins, and the line's guard (paper_line.py) lets it go when the line was booked meanwhile.
"""

from __future__ import annotations

import bisect
import itertools
import threading
import weakref

from bank.services.recent_rows import KEEP
from bank.web.field.made_again import ROUNDING_SECONDS
from bank.web.field.paper_shared import sheet_team

# A move kept while the bank booked nothing live for this long around its making: kept through an outage, the
# kind the paper procedure is for (a station's own Wi-Fi blip, other stations booking meanwhile, is not one).
OUTAGE_SECONDS = 120.0

_INDEXES: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()
_INDEXES_LOCK = threading.Lock()


class KeptIndex:
    """The journal's rows sent from an outbox (their `queued` note), by move: (seq, id, made at, kept_by).
    Built once per process from the journal, then kept up with the rows committed since. Thread-safe."""

    def __init__(self, move_text):
        self._lock, self._seq, self._moves, self._move_text = threading.Lock(), 0, {}, move_text
        self._live: list[float] = []  # bank times of the rows booked live (not from an outbox), sorted

    def refresh(self, bank) -> None:
        with self._lock:
            upto = bank.last_seq
            if upto <= self._seq:
                return
            if upto - self._seq <= KEEP:
                rows = bank.rows_upto(self._seq, upto)
            else:
                rows = itertools.takewhile(lambda row: row["seq"] <= upto, bank.journal_rows(self._seq))
            for row in rows:
                queued = row["command"].get("queued")
                if isinstance(queued, dict) and not row["command"].get("paper"):
                    made = row["at"] - float(queued.get("seconds") or 0)
                    self._moves.setdefault(self._move_text(row["command"]), []).append(
                        (row["seq"], row["command_id"], made, kept_by(row["command"])))
                else:
                    bisect.insort(self._live, row["at"])
            self._seq = upto

    def bookings(self, move: str) -> list[tuple]:
        """(seq, id, made, kept_by) of the outbox bookings of `move` made during an outage, oldest first."""
        with self._lock:
            return [booking for booking in self._moves.get(move, ()) if self._silent(booking[2])]

    def _silent(self, made: float) -> bool:
        """Whether the bank booked nothing live for OUTAGE_SECONDS around `made` (the last live row before, the
        first after): a bank down or out of reach for everyone, not one station's blip while others booked."""
        i = bisect.bisect_right(self._live, made)
        before = self._live[i - 1] if i else float("-inf")
        after = self._live[i] if i < len(self._live) else float("inf")
        return after - before >= OUTAGE_SECONDS


def kept_by(command: dict) -> dict:
    """Who kept the booking the line stands for, for the answer: the device's id and the account."""
    return {"device": (command.get("queued") or {}).get("device") or "", "actor": command.get("actor") or ""}


def index_of(bank, move_text) -> KeptIndex:
    with _INDEXES_LOCK:
        index = _INDEXES.get(bank)
        if index is None:
            index = _INDEXES[bank] = KeptIndex(move_text)
        return index


def printed_at(bank, seq: int | None) -> float | None:
    """Bank time of entry `seq`, the one the sheet was printed from; None for a blank ledger (no bound)."""
    if not seq or seq > bank.last_seq:
        return None
    rows = bank.rows_upto(seq - 1, seq)
    return rows[0]["at"] if rows else None


def claim_key(cid: str, team: str | None) -> str:
    """The claim of a line on an outbox booking: its id; for a trade or a fight, one per team (each team's ledger
    has the move once), the id and the team after a tab, never in an id (bank/web/field/paper_line.py reads it)."""
    return cid if team is None else f"{cid}\t{team}"


def booking_of(key: str) -> str:
    """The id of the booking a claim's key stands for."""
    return key.split("\t", 1)[0]


def stand_for(bank, config, copies, move_text, command: dict, place: tuple, guard, team: str | None = None) -> dict | None:
    """{status: duplicate, seq, kept: {device, actor}} when the line `place` = (sheet, number) now stands for an outbox
    booking of its move made after its sheet's print, stood for by no line yet (claimed now); else None. `team`: the
    sheet's team for a trade or fight, whose other team's line stands for that booking too."""
    index = index_of(bank, move_text)
    index.refresh(bank)
    since_seq = sheet_team(config, place[0])[0] or 0
    since_at = printed_at(bank, since_seq)
    undone = set(bank.state.reversed)
    mark = {"sheet": place[0], "line": place[1]}
    for seq, cid, made, by in index.bookings(move_text(command)):
        if seq <= since_seq or seq in undone:
            continue
        if since_at is not None and made < since_at - ROUNDING_SECONDS:
            continue  # kept before the sheet was printed: not a move written on it
        key = claim_key(cid, team)
        while copies.holder(key) in (None, mark):
            if copies.claim(key, *place) == mark:  # the first claim wins; another line's: the next booking
                guard.settle(key)  # the line was booked meanwhile from another device: claim let go, read again
                return {"status": "duplicate", "seq": seq, "kept": by}
    return None
