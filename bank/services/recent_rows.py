"""The last journal rows this bank committed or folded, and the chain heads it knows, kept in memory.

Why: each broadcast round would read back what the bank had just written: the activity feed's new
rows (bank/services/feed_tail.py), the consoles' new rows (bank/web/push/broadcaster.py) and the chain
head at the picture's entry (bank/web/field/payloads.py), so a command would cost more statements with
pages connected than without.

Only committed rows get here: the bank hands its own rows over after COMMIT (a try rolled back or
refused leaves nothing), and the rows another process committed as it folds them. The rows are kept
as one run of consecutive seqs: a row that does not follow the last starts a new run, so a question
about rows the memory does not hold all of is answered None, and the caller reads the journal.
"""

from __future__ import annotations

import threading

KEEP = 64  # rows kept: more than a round is behind the bank (the feed keeps 40 entries, a burst ~12 rows a round)


class RecentRows:
    """Thread-safe by replacement: the writer (under the bank's lock) swaps in a new tuple, readers
    (the round's thread) take one reference and see one consistent run."""

    def __init__(self):
        self._rows: tuple[dict, ...] = ()
        self._heads: dict[int, str] = {}  # seq -> chain head as stored at that entry
        self._first: str | None = None    # the head at entry 1 (which game this is): every picture asks it
        self._heads_lock = threading.Lock()  # heads are noted by the bank's thread and the round's

    def remember(self, rows: list[dict], heads: dict[int, str] | None = None) -> None:
        """Committed `rows` (in seq order) and, for the ones this process wrote, their heads."""
        if not rows:
            return
        kept = self._rows
        if kept and kept[-1]["seq"] + 1 != rows[0]["seq"]:
            kept = ()  # not the next rows (another process's booked meanwhile, unseen): a new run
        self._rows = (kept + tuple(rows))[-KEEP:]
        for seq, head in (heads or {}).items():
            self.note_head(seq, head)

    def between(self, after: int, upto: int) -> list[dict] | None:
        """The rows with after < seq <= upto, or None when the memory does not hold every one of them."""
        if upto <= after:
            return []
        rows = self._rows
        if not rows or rows[0]["seq"] > after + 1 or rows[-1]["seq"] < upto:
            return None
        first = rows[0]["seq"]
        return list(rows[max(0, after + 1 - first):upto + 1 - first])

    def head(self, seq: int) -> str | None:
        """The head at entry `seq` if known, else None."""
        return self._first if seq == 1 else self._heads.get(seq)

    def note_head(self, seq: int, head: str) -> None:
        """A committed entry's head (it never changes): kept with the newest KEEP others."""
        if seq == 1:
            self._first = head
            return
        with self._heads_lock:
            heads = self._heads
            heads[seq] = head
            if len(heads) > 2 * KEEP:  # drop the oldest half: the pictures ask the newest entries
                self._heads = {s: heads[s] for s in sorted(heads)[-KEEP:]}
