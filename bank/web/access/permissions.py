"""Which facilitator role may send which command type (the permission table)."""

from __future__ import annotations

from bank.game.engine import COMMANDS
from bank.store.accounts.access import ROLES  # noqa: F401 (the roles, where the accounts keep them)


_BANK_COUNTER = {"harvest", "build", "buy_animal", "buy_second_pirate", "raise_tracks", "redeem_jokers",
                 "exchange", "trade", "contribute", "reverse"}
_FIGHT_AREA = {"fight"}

PERMISSIONS = {
    kind: {"lead"} | ({"banker"} if kind in _BANK_COUNTER else set()) | ({"referee", "banker"} if kind in _FIGHT_AREA else set())
    for kind, (_, phase) in COMMANDS.items() if phase != "system"
}


def may(role: str | None, kind: str) -> bool:
    """True when a facilitator with this role may send this command type."""
    return isinstance(kind, str) and role in PERMISSIONS.get(kind, set())


def may_reverse(role: str | None, original_kind: str | None) -> bool:
    """Undoing an entry needs the right to send it in the first place: a banker who may
    not award points may not take the lead's penalty back either. An unknown entry, or one
    the bank made itself (set-up, the clock's ticks), is left to the rules, which refuse it
    with their own sentence."""
    if not may(role, "reverse"):
        return False
    return original_kind not in PERMISSIONS or may(role, original_kind)


def allowed(role: str | None) -> list:
    """The command types this role may send, for the pages to show only those buttons."""
    return sorted(k for k, roles in PERMISSIONS.items() if role in roles)
