"""An export of the journal as a witness: does the game still hold every entry as it was exported?

A journal export (export.py) carries the chain's head at each entry, as the phones and the paper keep it.
Copied off the bank (the lead's phone, a USB stick, a mail), it is out of reach of whoever later holds the
game file: a journal cut back, restored from an older copy, or rewritten with its whole chain rebuilt (which
`verify` alone cannot tell: the chain is consistent) no longer holds those heads. `terrabank verify
--witness FILE` asks.
"""

from __future__ import annotations

import csv
import json
import re
from pathlib import Path

from bank.errors import BankError

_HASH = re.compile(r"[0-9a-f]{64}")


def exported_heads(path) -> dict[int, str]:
    """{entry: head} read from a journal export (JSON or CSV, by its first character), or a BankError
    that says what is wrong with the file and what to do."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise BankError("witness_unreadable", f"cannot read {path} ({getattr(exc, 'strerror', None) or exc}): "
                        "give the journal export's path (terrabank export journal).", path=str(path)) from None
    if text.lstrip().startswith("["):
        try:
            rows = json.loads(text)
        except ValueError:
            raise _not_an_export(path) from None
        pairs = [(r.get("seq"), r.get("chain")) for r in rows if isinstance(r, dict)]
    else:
        pairs = [(r.get("seq"), r.get("chain")) for r in csv.DictReader(text.splitlines())]
    heads: dict[int, str] = {}
    for seq, head in pairs:
        seq = _entry(seq)
        if seq is None:
            raise _not_an_export(path)
        if head is None:
            raise BankError("witness_without_heads", f"{path} carries no chain heads: it was exported before "
                            "exports carried them. Export the journal again to witness the game from now on.",
                            path=str(path))
        if not isinstance(head, str) or not _HASH.fullmatch(head) or heads.get(seq, head) != head:
            raise _not_an_export(path)
        heads[seq] = head
    if not heads:
        raise BankError("witness_empty", f"{path} holds no journal entry: nothing to compare. Export the "
                        "journal once something is booked.", path=str(path))
    return heads


def _entry(value) -> int | None:
    try:
        seq = int(value)
    except (TypeError, ValueError):
        return None
    return seq if 0 < seq < 2**63 else None


def _not_an_export(path: Path) -> BankError:
    return BankError("witness_not_an_export", f"{path} is not a journal export as terrabank writes it (each "
                     "entry's seq and chain head): give the file `terrabank export journal` wrote, unedited.",
                     path=str(path))


def witness_problems(bank, heads: dict[int, str]) -> list[str]:
    """What the game no longer holds of the heads an export witnessed, as sentences (none: it holds them all).
    The first differing entry says it all (a head covers every entry before it); a cut tail is one sentence."""
    last = bank.chain_head()[0]
    stored = _stored_heads(bank, sorted(heads))
    for seq in sorted(heads):
        now = next(stored, None)
        if now is None:
            return [f"witness: the export holds entry {seq} (chain {heads[seq][:12]}…), the game no longer has it "
                    f"(its last entry is {last}): the journal was cut back or restored from an older copy"]
        if now != heads[seq]:
            return [f"witness: at entry {seq} the export holds chain {heads[seq][:12]}…, the game now holds "
                    f"{now[:12]}…: the journal was rewritten after the export (entry {seq} or one before it)"]
    return []


def _stored_heads(bank, wanted: list[int]):
    """The game's head at each of the entries `wanted` (in order), read with the rows in one stream, not a query an
    entry (a round trip an entry on PostgreSQL); then None for each the game no longer holds."""
    if wanted:
        rows = bank.journal_rows_with_heads(wanted[0] - 1)
        at = 0
        for row, head in rows:
            while at < len(wanted) and wanted[at] < row["seq"]:
                at += 1  # an entry the game skips: never, but said as missing rather than as another's head
                yield None
            if at == len(wanted):
                rows.close()
                return
            if wanted[at] == row["seq"]:
                at += 1
                yield head
        rows.close()
    while True:
        yield None
