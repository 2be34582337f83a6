"""What a journal row must be, whatever engine wrote it: its id, its fingerprint, its own consistency.

The bank (bank/services/bank.py) and the engine-agnostic service (bank/services/journal_service.py)
store rows the same way and check them the same way in `verify`; these helpers lived in the
bank's module and the service imported them from there. They know no rules and no database,
so they belong with the store, where both services reach them without importing each other.
"""

from __future__ import annotations

import hashlib

from bank.errors import CommandError
from bank.store.journal import canonical_json

MAX_ID_LENGTH = 100
# What says how a command travelled, not what it does: its id, and how long it waited on a device
# before it reached the bank (bank/web/field/outbox.py). A retry of a waiting command says a longer
# wait, and must still be the same command; the row keeps the wait of its first arrival.
TRAVEL_FIELDS = frozenset({"id", "queued"})


def fingerprint(command: dict) -> str:
    """sha256 of the command's canonical JSON without its id and wait: same content, same print."""
    body = {k: v for k, v in command.items() if k not in TRAVEL_FIELDS}
    try:
        text = canonical_json(body)
    except (TypeError, ValueError) as exc:
        raise CommandError("command_not_json", f"The command cannot be stored as JSON "
                           f"({exc}): send only strings, numbers, lists and objects.") from None
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def check_command_id(command) -> str:
    """The command's id, or CommandError if it (or the actor) is missing or unusable."""
    if not isinstance(command, dict):
        raise CommandError("command_not_object", "A command must be a JSON object with "
                           "a type and an id.")
    cid = command.get("id")
    if not isinstance(cid, str) or not cid or len(cid) > MAX_ID_LENGTH or not cid.isprintable():
        raise CommandError("bad_command_id", "Every command needs an id: a non-empty text "
                           f"of at most {MAX_ID_LENGTH} printable characters, new for each "
                           "new command and reused only to retry the same command.")
    actor = command.get("actor")
    if actor is not None and (not isinstance(actor, str) or len(actor) > MAX_ID_LENGTH):
        raise CommandError("bad_actor", "'actor' names who booked the command: a text of at "
                           f"most {MAX_ID_LENGTH} characters.", field="actor")
    return cid


def row_problems(row: dict) -> list[str]:
    """A row whose stored fingerprint, id or type no longer match its command."""
    command, seq = row["command"], row["seq"]
    problems = []
    if command.get("id") != row["command_id"]:
        problems.append(f"seq {seq}: command id differs from the row's id")
    if fingerprint(command) != row["fingerprint"]:
        problems.append(f"seq {seq}: command content differs from its fingerprint")
    if str(command.get("type")) != row["type"]:
        problems.append(f"seq {seq}: command type differs from the row's type")
    return problems


def seq_problems(rows) -> list[str]:
    """Gaps in the seqs of `rows` (read in order) and each row's own problems."""
    problems, seq = [], 0
    for row in rows:
        if row["seq"] != seq + 1:
            problems.append(f"seqs {seq + 1} to {row['seq'] - 1} are missing (rows deleted)")
        seq = row["seq"]
        problems += row_problems(row)
    return problems
