"""Sealed snapshots: a state the start trusts must stand on the chain and be unchanged.

A snapshot spares the start a replay of the whole journal, so it is trusted without being
replayed: an edited one (sqlite3 with the trigger dropped, or psql) would make the bank serve
tokens that no row ever booked, while the chain of the rows, and the head a facilitator wrote
down, still match. So each snapshot's text carries the chain's hash at the row it stands at and
a seal over that hash, its seq and the state's exact bytes:

    {"chain":"<hash of row seq>","seal":"<sha256(chain|seq|state)>","state":{...}}

still one canonical JSON text, so it is copied verbatim between stores (`migrate`) and keeps
its seal. On open the store checks the newest sealed snapshot against the stored chain (one
indexed read) and its seal (one sha256 of its text): an edit is refused naming the row, the
same way an edited row is. A snapshot without a seal (written by an older version, or with
its seal cut off) is never trusted: the start folds the rows from an older sealed one, or from
the beginning. Like the chain, the seal is evidence against hand edits, not a signature: a
forger who recomputes the sha256 is caught by `verify`, which replays every row and compares
every snapshot. Engine-agnostic and store-agnostic: the stores call these functions.

The chain also binds each snapshot's seal (bank/store/chain.py's bind): a snapshot
edited and resealed no longer carries the seal the chain vouches for, and is refused naming the
snapshot; a forger who rewrites the chain's record too must rewrite every hash after it, and the
new head is not the one the phones saw. The start trusts only a bound snapshot (or, in a game
written before binding, an older sealed one while no snapshot is bound yet).
"""

from __future__ import annotations

import hashlib
import json
import re

from bank.store.storage import StorageError

_SEALED = re.compile(r'\{"chain":"([0-9a-f]{64})","seal":"([0-9a-f]{64})","state":')
# The SQL (same in SQLite and PostgreSQL) that keeps only sealed snapshots.
SEALED_SQL = "substr(state, 1, 9) = '{\"chain\":'"
# ...and of those, the ones the start may trust (`b` the chain's bindings LEFT JOINed on seq, `{bindings}`
# that table for this game): a bound one, or any sealed one in a game with no binding yet.
TRUSTED_SQL = "(b.seq IS NOT NULL OR NOT EXISTS (SELECT 1 FROM {bindings}))"


def _seal(seq: int, chain_hash: str, body: str) -> str:
    return hashlib.sha256(f"{chain_hash}|{seq}|".encode("ascii") + body.encode("utf-8")).hexdigest()


def sealed(seq: int, chain_hash: str, body: str) -> str:
    """The text stored for the state whose canonical JSON is `body`, standing at row `seq` of hash `chain_hash`."""
    return f'{{"chain":"{chain_hash}","seal":"{_seal(seq, chain_hash, body)}","state":{body}}}'


def _parts(text: str) -> tuple[str, str, str] | None:
    """(chain hash, seal, state's text) of a sealed snapshot, or None for one without a seal."""
    found = _SEALED.match(text)
    if found is None or not text.endswith("}"):
        return None
    return found[1], found[2], text[found.end():-1]


def seal_of(text: str) -> str | None:
    """The seal of a sealed snapshot's text (what the chain binds), or None for one without a seal."""
    parts = _parts(text)
    return None if parts is None else parts[1]


def problem(seq: int, text: str, chain_hash: str | None, bound_seal: str | None = None) -> str | None:
    """What is wrong with the sealed snapshot at `seq` (None when sound or not sealed).

    `bound_seal`: the seal the chain binds at `seq` (None: the chain binds none there)."""
    parts = _parts(text)
    if parts is None:
        return None
    chained, seal, body = parts
    if bound_seal is not None and bound_seal != seal:
        return (f"the snapshot at journal row {seq} does not match the chain (the chain vouches for seal "
                f"{bound_seal[:12]}, the snapshot holds {seal[:12]}): the snapshot was changed and sealed again")
    if chained != chain_hash:
        return (f"the snapshot at journal row {seq} was changed or moved after it was written "
                "(it names another chain hash than that row's)")
    if _seal(seq, chained, body) != seal:
        return (f"the snapshot at journal row {seq} was changed after it was written "
                "(its seal no longer matches the state it holds)")
    return None


def state_of(text: str) -> dict:
    """The state a snapshot's text holds, sealed or not (no check: `verify` compares it with a replay)."""
    parts = _parts(text)
    return json.loads(text if parts is None else parts[2])


def trusted(seq: int, text: str, chain_hash: str | None, where, bound_seal: str | None = None) -> dict:
    """The state of the sealed snapshot at `seq`, or StorageError saying what was found and what to do."""
    if chain_hash is None and _parts(text) is not None:  # its row's link is gone: the journal's tail was cut
        raise StorageError("journal_cut", f"The game in {where} cannot be trusted: its snapshot at journal row {seq} "
                           f"has no row any more: the rows from {seq} on were deleted after they were written. "
                           "Restore the game's backup (README, 'Backup and restore'), then run `terrabank verify`.",
                           path=str(where), seq=seq)
    found = problem(seq, text, chain_hash, bound_seal)
    if found:
        raise StorageError("snapshot_changed", f"The game in {where} cannot be trusted: {found}; its rows are "
                           "intact, so run `terrabank verify`, then delete that snapshot (a shortcut only: without "
                           "it the bank replays the rows and loses no booked command) rather than restore a backup, "
                           "which would lose every command booked since.",
                           path=str(where), seq=seq)
    return state_of(text)

