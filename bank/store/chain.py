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

A snapshot is bound into the chain: when one is written at row N, the chain
records its seal (bank/store/snapshots.py) and the chain's head at N becomes
bind(link of N, N, seal), which row N+1 links to. An edited snapshot, even resealed, no
longer matches the seal the chain holds; rewriting that too changes every hash from N on,
so the new head is not the one a phone saw (static/js/witness.js) or a facilitator wrote down.

The game's creation record is bound too: a new game's meta holds the chain's seed, a hash of
when it was created, its identity and the game it declares it follows (`init --force` over a game names
that game's mark and head, so a page that held the old head is told of a successor, not fooled by a
swap: static/js/witness.js), and row 1 links to that seed instead of GENESIS. An edited creation
record no longer matches the seed (`meta_problem` names it); rewriting the seed too changes every
hash. A game from before has no seed: its row 1 links to GENESIS, as it always did.

The last row written leaves a trace outside the chain too: the time line's checkpoint,
saved with every row in the same transaction, records that row's seq and head. Deleting the tail
with its chain rows, which the chain alone cannot see, then falls short of the checkpoint. It
raises the bar, it is no seal: whoever also rewrites the checkpoint passes, and only the heads
kept outside the file (phones, paper, a head written down) tell.
"""

from __future__ import annotations

import hashlib
import time
from typing import Iterable, Iterator

GENESIS = "0" * 64  # the "previous hash" of the first row of a game made before its seed (below)
SEED_KEY = "chain_seed"  # meta: what row 1 links to (absent in a game made before it)
PREVIOUS_KEY = "previous_game"  # meta: the game this one follows, {"game", "seq", "hash"} (init --force)
BOUND_META = ("created_at", "identity", PREVIOUS_KEY)  # what the seed covers

_TEXT_COLUMNS = ("command_id", "fingerprint", "type", "actor", "command", "events")
# length:text for each text column ('-' for a missing actor), as one BLOB per row.
ROW_BYTES = "CAST(" + " || ".join(
    f"COALESCE(length(CAST({c} AS BLOB)) || ':' || {c}, '-')" for c in _TEXT_COLUMNS) + " AS BLOB)"
SELECT_ROWS = f"SELECT seq, at, {ROW_BYTES} FROM journal"


def row_bytes(texts: tuple, at) -> tuple[float, bytes] | None:
    """(at, ROW_BYTES) of a row about to be written, made in Python from its values as SQLite will store
    them (reading the row back cost a statement per command); None when a value might be
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


def game_mark(created_at: str | None, identity: str | None) -> str:
    """What names a game to the pages that witness it: a hash of its creation record (when, which config)."""
    return hashlib.sha256(f"terrabank game|{created_at}|{identity}".encode()).hexdigest()


def seed(meta: dict) -> str:
    """The hash row 1 of a new game links to: its creation record (BOUND_META's values, as stored)."""
    parts = "|".join(f"{len(str(meta.get(k) or ''))}:{meta.get(k) or ''}" for k in BOUND_META)
    return hashlib.sha256(f"terrabank chain seed|{parts}".encode()).hexdigest()


def creation_meta(schema_version: str, config_text: str, identity: str, previous: str | None) -> dict:
    """A new game's meta rows, as stored: its creation record and the seed that binds it (`previous`: the
    game it follows, as canonical JSON, or None)."""
    meta = {"schema_version": schema_version, "created_at": repr(time.time()), "config_text": config_text,
            "identity": identity}
    if previous:
        meta[PREVIOUS_KEY] = previous
    meta[SEED_KEY] = seed(meta)
    return meta


def start_of(meta) -> str:
    """What row 1 links to in the game whose meta `meta(key)` reads: its seed, or GENESIS for an older game."""
    return meta(SEED_KEY) or GENESIS


def meta_problem(meta) -> str | None:
    """A sentence when the creation record no longer matches the seed its chain starts from; None when it
    does, or for a game made before the seed (nothing to compare)."""
    stored = meta(SEED_KEY)
    if stored is None or stored == seed({k: meta(k) for k in BOUND_META}):
        return None
    return ("the game's creation record (meta: created_at, identity or the game it follows) was changed after the "
            "game was created: it no longer matches the seed its chain starts from")


def link(previous: str, seq: int, at: float, row_bytes: bytes) -> str:
    """The hash of one row (seq, time and its text columns) chained to `previous`."""
    head = f"{previous}|{seq}|{at!r}|".encode("ascii")
    return hashlib.sha256(head + row_bytes).hexdigest()


def bind(row_hash: str, seq: int, seal: str) -> str:
    """The chain's head at row `seq` once the snapshot sealed `seal` stands there: what row seq+1 links to."""
    return hashlib.sha256(f"{row_hash}|{seq}|snapshot|{seal}".encode("ascii")).hexdigest()


def replay(rows: Iterable[tuple], seals: dict | None = None, start: str = GENESIS) -> Iterator[tuple[int, str]]:
    """(seq, head) after each row of SELECT_ROWS, in order, recomputed from the rows and the snapshots'
    seals the chain binds ({seq: seal}); the head is the row's hash where no snapshot is bound.
    `start`: what row 1 links to (start_of)."""
    previous, seals = start, seals or {}
    for seq, at, row_bytes in rows:
        previous = link(previous, seq, at, row_bytes)
        if seq in seals:
            previous = bind(previous, seq, seals[seq])
        yield seq, previous


def first_break(rows: Iterable[tuple], stored: dict, bound: dict | None = None,
                tip: tuple | None = None, start: str = GENESIS) -> str | None:
    """The first row (or snapshot binding) whose recomputed hash differs from the stored chain, as a sentence.

    `stored`: {seq: row hash}; `bound`: {seq: (seal, head)} of the snapshots the chain binds;
    `tip`: (seq, head) the time line's checkpoint recorded with the last row it saw written (None, or
    a None seq, for a game from before it did): a tail deleted with its chain rows falls short of it.
    `start`: what row 1 links to (start_of)."""
    stored, bound, previous, seq = dict(stored), dict(bound or {}), start, 0
    tip_seq, tip_head = tip if tip and tip[0] else (None, None)
    heads_at_tip = set()  # the row's hash there, and its binding once a snapshot stands there
    for seq, at, row_bytes in rows:
        previous = link(previous, seq, at, row_bytes)
        if stored.pop(seq, None) != previous:
            return (f"journal row {seq} was changed, inserted or deleted after it was "
                    "written (its hash no longer matches the chain)")
        if seq == tip_seq:
            heads_at_tip.add(previous)
        if seq in bound:
            seal, head = bound.pop(seq)
            previous = bind(previous, seq, seal)
            if head != previous:
                return (f"the chain's record of the snapshot at journal row {seq} was changed after it was "
                        "written (its hash no longer matches the chain)")
            if seq == tip_seq:
                heads_at_tip.add(previous)
    if stored:
        return f"journal row {min(stored)} was deleted after it was written (the chain still lists it)"
    if bound:
        return (f"the chain binds a snapshot at journal row {min(bound)} but the journal ends at row {seq}: "
                f"the rows after {seq} were deleted")
    return _tip_problem(seq, tip_seq, tip_head, heads_at_tip)


def _tip_problem(last: int, tip_seq: int | None, tip_head: str | None, heads_at_tip: set) -> str | None:
    """What the checkpoint's record of the last row written says of a journal ending at `last`."""
    if tip_seq is None:
        return None
    if tip_seq > last:
        return (f"the bank wrote journal row {tip_seq} (its clock checkpoint recorded it) but the journal "
                f"ends at row {last}: the rows after {last} were deleted")
    if tip_head and tip_head not in heads_at_tip:
        return (f"journal row {tip_seq} is not the one the bank wrote (its clock checkpoint recorded chain "
                f"head {tip_head[:12]} there): the journal was rewritten up to that row")
    return None
