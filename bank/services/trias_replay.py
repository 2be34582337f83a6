"""A Trias game's journal checked by deciding every command again (`terrabank trias verify`).

Kept apart from trias_games.py (storing and running games): the journal service's checks (chain,
seqs, fingerprints) cannot see a row edited with its chain rebuilt; deciding each stored command
again on the state before it and comparing the events does.
"""

from __future__ import annotations

import trias
from bank.services.trias_table import Table, fold_row


def redecide_all(rows, decide) -> list[str]:
    """The problems of a replay of `rows` through `decide(table, command, seq)` (TriasGame._decide); [] when sound."""
    table = Table(trias.State())
    for row in rows:
        try:
            events, table = _redecide(table, row, decide)
        except Exception as exc:  # an edited row may not even decide
            return [f"seq {row['seq']}: its command is refused on replay ({exc})"]
        if events != row["events"]:
            return [f"seq {row['seq']}: its events are not what its command gives (an edited row?)"]
    return []


def _redecide(table: Table, row: dict, decide) -> tuple:
    command = row["command"]
    if row["type"] == "rematch":  # the new game's id was drawn when it was made: taken as written
        events = [{"type": "rematch", "game": command["game"]}]
        return events, fold_row(table, "rematch", row["actor"], row["seq"], events)
    return decide(table, command, row["seq"])
