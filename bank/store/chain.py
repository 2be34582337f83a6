"""Tamper evidence for the journal: each row's hash is chained to the previous row's.

Editing any column of a row, or deleting or inserting one, breaks the chain from
that row on; `verify` and the start of `serve` name the first row that no longer
matches. It is evidence against hand edits (the sqlite3 tool), not a signature:
whoever can write the file can rebuild the whole chain, so `verify` prints the
head hash to write down, and `verify --at N` recomputes the chain at entry N.

The row's text columns are joined, each prefixed with its length in bytes, by
SQLite itself (ROW_BYTES), so checking a long game at start costs one sha256 per
row and no Python work per column; the same expression serves when a row is
appended, so both sides hash exactly the same bytes.

A snapshot is bound into the chain (issue 34): when one is written at row N, the chain
records its seal (bank/store/snapshots.py) and the chain's head at N becomes
bind(link of N, N, seal), which row N+1 links to. An edited snapshot, even resealed, no
longer matches the seal the chain holds; rewriting that too changes every hash from N on,
so the new head is not the one a phone saw (static/js/witness.js) or a facilitator wrote down.
"""

from __future__ import annotations

import hashlib
from typing import Iterable, Iterator

GENESIS = "0" * 64  # the "previous hash" of the first row

_TEXT_COLUMNS = ("command_id", "fingerprint", "type", "actor", "command", "events")
# length:text for each text column ('-' for a missing actor), as one BLOB per row.
ROW_BYTES = "CAST(" + " || ".join(
    f"COALESCE(length(CAST({c} AS BLOB)) || ':' || {c}, '-')" for c in _TEXT_COLUMNS) + " AS BLOB)"
SELECT_ROWS = f"SELECT seq, at, {ROW_BYTES} FROM journal"


def row_bytes(texts: tuple, at) -> tuple[float, bytes] | None:
    """(at, ROW_BYTES) of a row about to be written, made in Python from its values as SQLite will store
    them (issue 27: reading the row back cost a statement per command); None when a value might be
    stored otherwise (not text, a NUL, not a float time): the caller then reads the row back.

    `texts`: the values of _TEXT_COLUMNS in order (None for a missing actor).
    """
    if type(at) is not float:  # an int would come back as a REAL (5 -> 5.0): let SQLite say
        return None
    parts = []
    for text in texts:
        if text is None:
            parts.append(b"-")
            continue
        if type(text) is not str or "\x00" in text:
            return None
        data = text.encode("utf-8")  # what sqlite3 stores; a lone surrogate raises before anything is written
        parts.append(b"%d:%s" % (len(data), data))
    return at, b"".join(parts)


def link(previous: str, seq: int, at: float, row_bytes: bytes) -> str:
    """The hash of one row (seq, time and its text columns) chained to `previous`."""
    head = f"{previous}|{seq}|{at!r}|".encode("ascii")
    return hashlib.sha256(head + row_bytes).hexdigest()


def bind(row_hash: str, seq: int, seal: str) -> str:
    """The chain's head at row `seq` once the snapshot sealed `seal` stands there: what row seq+1 links to."""
    return hashlib.sha256(f"{row_hash}|{seq}|snapshot|{seal}".encode("ascii")).hexdigest()


def replay(rows: Iterable[tuple], seals: dict | None = None) -> Iterator[tuple[int, str]]:
    """(seq, head) after each row of SELECT_ROWS, in order, recomputed from the rows and the snapshots'
    seals the chain binds ({seq: seal}); the head is the row's hash where no snapshot is bound."""
    previous, seals = GENESIS, seals or {}
    for seq, at, row_bytes in rows:
        previous = link(previous, seq, at, row_bytes)
        if seq in seals:
            previous = bind(previous, seq, seals[seq])
        yield seq, previous


def first_break(rows: Iterable[tuple], stored: dict, bound: dict | None = None) -> str | None:
    """The first row (or snapshot binding) whose recomputed hash differs from the stored chain, as a sentence.

    `stored`: {seq: row hash}; `bound`: {seq: (seal, head)} of the snapshots the chain binds."""
    stored, bound, previous, seq = dict(stored), dict(bound or {}), GENESIS, 0
    for seq, at, row_bytes in rows:
        previous = link(previous, seq, at, row_bytes)
        if stored.pop(seq, None) != previous:
            return (f"journal row {seq} was changed, inserted or deleted after it was "
                    "written (its hash no longer matches the chain)")
        if seq in bound:
            seal, head = bound.pop(seq)
            previous = bind(previous, seq, seal)
            if head != previous:
                return (f"the chain's record of the snapshot at journal row {seq} was changed after it was "
                        "written (its hash no longer matches the chain)")
    if stored:
        return f"journal row {min(stored)} was deleted after it was written (the chain still lists it)"
    if bound:
        return (f"the chain binds a snapshot at journal row {min(bound)} but the journal ends at row {seq}: "
                f"the rows after {seq} were deleted")
    return None
