"""Sealed snapshots (issue 23): a state the start trusts must stand on the chain and be unchanged.

A snapshot spares the start a replay of the whole journal, so it is trusted without being
replayed: an edited one (sqlite3 with the trigger dropped, or psql) would make the bank serve
tokens that no row ever booked, while the chain of the rows, and the head a facilitator wrote
down, still match. So each snapshot's text carries the chain's hash at the row it stands at and
a seal over that hash, its seq and the state's exact bytes:

    {"chain":"<hash of row seq>","seal":"<sha256(chain|seq|state)>","state":{...}}

still one canonical JSON text, so it is copied verbatim between stores (`migrate`) and keeps
its seal. On open the store checks the newest sealed snapshot against the stored chain (one
indexed read) and its seal (one sha256 of its text): an edit is refused naming the row, the
same way an edited row is. A snapshot without a seal (written before issue 23, or with its
seal cut off) is never trusted: the start folds the rows from an older sealed one, or from
the beginning. Like the chain, the seal is evidence against hand edits, not a signature: a
forger who recomputes the sha256 is caught by `verify`, which replays every row and compares
every snapshot. Engine-agnostic and store-agnostic: the stores call these functions.
"""

from __future__ import annotations

import hashlib
import json
import re

from bank.store.storage import StorageError

_SEALED = re.compile(r'\{"chain":"([0-9a-f]{64})","seal":"([0-9a-f]{64})","state":')
# The SQL (same in SQLite and PostgreSQL) that keeps only sealed snapshots.
SEALED_SQL = "substr(state, 1, 9) = '{\"chain\":'"


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


def problem(seq: int, text: str, chain_hash: str | None) -> str | None:
    """What is wrong with the sealed snapshot at `seq` (None when sound or not sealed)."""
    parts = _parts(text)
    if parts is None:
        return None
    chained, seal, body = parts
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


def trusted(seq: int, text: str, chain_hash: str | None, where) -> dict:
    """The state of the sealed snapshot at `seq`, or StorageError saying what was found and what to do."""
    found = problem(seq, text, chain_hash)
    if found:
        raise StorageError("snapshot_changed", f"The game in {where} cannot be trusted: {found}; its rows are "
                           "intact, so run `terrabank verify`, then delete that snapshot (a shortcut only: without "
                           "it the bank replays the rows and loses no booked command) rather than restore a backup, "
                           "which would lose every command booked since.",
                           path=str(where), seq=seq)
    return state_of(text)
