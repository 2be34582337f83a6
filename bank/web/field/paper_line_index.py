"""The journal's entries by printed ledger line: which rows were booked from (sheet, number).

A numbered line books as its own entry (paper_line.py, under the line's slots) or, for a trade or a fight
between its sheet's team and another, under the move's slots (paper_shared.py); both keep the line in the
command as `paper: {sheet, line}`. The slots alone let a line typed as a trade on one laptop and as a
harvest (or the trade with other amounts) on another each book. This index answers "what was booked from
line 3 of sheet 0A", whatever the kind, from the journal itself: built once per process from the rows,
then kept up with the rows committed since, by this process or another. It holds the rows with a
`paper` mark only (a few per ledger line), as (seq, command).
"""

from __future__ import annotations

import itertools
import threading
import weakref

from bank.services.recent_rows import KEEP

_INDEXES: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()
_INDEXES_LOCK = threading.Lock()


class LineIndex:
    """Thread-safe: one lock around the catch-up and the reads."""

    def __init__(self):
        self._lock = threading.Lock()
        self._seq = 0
        self._lines: dict[tuple, list[tuple[int, dict]]] = {}

    def refresh(self, bank) -> int:
        """Take in the rows committed up to the bank's last seq (its tip, inside its transaction); that seq."""
        with self._lock:
            upto = bank.last_seq
            if upto > self._seq:
                if upto - self._seq <= KEEP:  # the usual case: the rows are in the bank's memory
                    rows = bank.rows_upto(self._seq, upto)
                else:  # the first look of this process: the journal streamed once
                    rows = itertools.takewhile(lambda row: row["seq"] <= upto, bank.journal_rows(self._seq))
                for row in rows:
                    mark = row["command"].get("paper")
                    if isinstance(mark, dict):
                        self._lines.setdefault((mark.get("sheet"), mark.get("line")), []).append(
                            (row["seq"], row["command"]))
                self._seq = upto
            return self._seq

    def rows(self, sheet: str, line: int) -> list[tuple[int, dict]]:
        """(seq, command) of each row booked from that line, oldest first (as of the last refresh)."""
        with self._lock:
            return list(self._lines.get((sheet, line), ()))


def of(bank) -> LineIndex:
    """The index of this bank (one per open game in the process)."""
    with _INDEXES_LOCK:
        index = _INDEXES.get(bank)
        if index is None:
            index = _INDEXES[bank] = LineIndex()
        return index
