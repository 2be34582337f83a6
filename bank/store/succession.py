"""A new game made over an old one (`init --force`) declares it: the old game's mark, last entry and head,
kept in the new game's creation record and bound into its chain's seed (bank/store/chain.py). A page that
held a head of the old game behind the same link is told of a successor (static/js/witness.js); a game
that appears behind the link without naming the one the page saw is an alarm.
"""

from __future__ import annotations

import json

from bank.errors import BankError
from bank.store import chain


def ending(where) -> dict | None:
    """The game at `where` about to be replaced: {"game": its mark, "seq", "hash": its last entry and head};
    None when there is none that can be read (a damaged file is replaced all the same, undeclared)."""
    if not where.exists():
        return None
    try:
        journal = where.open()
    except (BankError, OSError):
        return None
    try:
        return {"game": chain.game_mark(journal.meta("created_at"), journal.meta("identity")),
                "seq": journal.last_seq(), "hash": journal.head()}
    except (BankError, OSError):
        return None
    finally:
        journal.close()


def declared(text: str | None) -> dict | None:
    """The declaration as the creation record holds it (chain.PREVIOUS_KEY), or None (none, or unreadable:
    edited by hand, which `verify` names as a changed creation record)."""
    try:
        found = json.loads(text) if text else None
    except ValueError:
        return None
    return found if isinstance(found, dict) else None
