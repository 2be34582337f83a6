"""The activity feed of a running game, kept up as the journal grows (bank/game/feed.py words it).

One `FeedTail` per Bank. It reads only the rows after the last one it saw, and only when the bank's
seq moved: the clock's rounds (one a second) cost no read; the rows this process just committed come from
the bank's memory (bank/services/recent_rows.py), not a read. At the first read it starts from the last
`START_ROWS` rows, not the whole journal (a long game's first picture must not wait for it). It
keeps the last `KEEP` entries; an undo marks the entry it reverses as `undone` (with the reason)
while that entry is still kept, and names what it undid from the journal's own row.
"""

from __future__ import annotations

import threading
import weakref

from bank.game import feed

KEEP = 40        # entries kept: more than any screen shows (the big screen ~6, a phone 8 of its own)
START_ROWS = 400  # rows read back at the first picture after a start
PUBLIC_SHOWN = 12  # entries in the public picture (every page gets it: bytes on every phone)
TEAM_SHOWN = 8     # a team's own entries on its phone

_TAILS: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()
_LOCK = threading.Lock()


class FeedTail:
    def __init__(self, bank):
        self._bank = weakref.ref(bank)
        self._seq = None
        self._entries: list = []  # oldest first, at most KEEP
        self._lock = threading.Lock()
        # What each page is shown of a kept entry, made once: id(entry) -> (entry, public part, {team: its part}).
        # The live pages' rounds make the feeds of every audience each time, and the broadcaster's diff passes at
        # once over an entry that is the same object in both pictures (delta.py); an entry is never changed in place
        # (an undo makes a new one), so what is shown of it stays true.
        self._shown: dict = {}

    def upto(self, seq: int) -> list:
        """The entries of rows up to `seq` (read from the journal if the tail is behind it)."""
        with self._lock:
            if self._seq is None or seq > self._seq:
                self._read(seq)
            return [e for e in self._entries if e["seq"] <= seq]

    def _read(self, seq: int) -> None:
        bank = self._bank()
        if bank is None:
            return
        after = max(0, seq - START_ROWS) if self._seq is None else self._seq
        for row in bank.rows_upto(after, seq):
            self._add(bank, row)
            self._seq = row["seq"]
        if self._seq is None:
            self._seq = after

    def _add(self, bank, row: dict) -> None:
        original = None
        if row.get("type") == "reverse":
            target = (row.get("command") or {}).get("seq")
            original = _row(bank, target) if isinstance(target, int) else None
        made = feed.entry(row, original)
        if made is None:
            return
        if "undo" in made:  # a new dict, never an edit: the last pictures sent still hold the old one
            self._entries = [{**kept, "undone": made.get("reason", "")} if kept["seq"] == made["undo"]["seq"] else kept
                             for kept in self._entries]
        self._entries = (self._entries + [made])[-KEEP:]


    def shown(self, entry: dict) -> tuple:
        """(entry, its public part, {team: its team's part}) for a kept entry, made on first use."""
        kept = self._shown.get(id(entry))
        if kept is None or kept[0] is not entry:
            if len(self._shown) >= 4 * KEEP:  # the entries gone from the tail are forgotten
                live = {id(e) for e in self._entries}
                self._shown = {k: v for k, v in self._shown.items() if k in live}
            kept = self._shown[id(entry)] = (entry, feed.public_entry(entry), {})
        return kept


def _row(bank, seq: int) -> dict | None:
    """Journal row `seq`, or None (an undo of a recent entry finds it in the bank's memory)."""
    found = bank.rows_upto(seq - 1, seq) if seq > 0 else []
    return found[0] if found else None


def tail_of(bank) -> FeedTail:
    with _LOCK:
        tail = _TAILS.get(bank)
        if tail is None:
            tail = _TAILS[bank] = FeedTail(bank)
        return tail


def public(bank, seq: int) -> dict:
    """{"<seq>": entry} of the last bookings, for every screen (a dict by seq: a new booking is one
    key more and one less in the page's patch, where a list shifted by one is sent whole)."""
    tail = tail_of(bank)
    return {str(e["seq"]): tail.shown(e)[1] for e in tail.upto(seq)[-PUBLIC_SHOWN:]}


def team(bank, seq: int, team_id: str, reputation: int) -> dict:
    """{"<seq>": entry} of the team's own last bookings, its own tokens and points only, each with the
    team's reputation after it (`rep_after`, counted back from `reputation`, the team's now): a phone
    reads "3 -> 1 pts" under an undone building. Every row that moves points has its entry (feed.py)."""
    tail = tail_of(bank)
    mine = [e for e in tail.upto(seq) if team_id in e["teams"]][-TEAM_SHOWN:]
    out, after = {}, reputation
    for e in reversed(mine):
        parts = tail.shown(e)[2]
        part = parts.get(team_id)
        if part is None:
            part = parts[team_id] = feed.team_entry(e, team_id)
        if "rep" in part:
            if part.get("rep_after") != after:  # a new dict: the pictures already sent hold the old one
                part = parts[team_id] = {**part, "rep_after": after}
            after -= part["rep"]
        out[str(e["seq"])] = part
    return dict(reversed(out.items()))
