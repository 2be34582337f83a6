"""Which ledger line stood for a move already booked from the other team's sheet (bank/web/field/paper_shared.py).

A trade or a fight is written on both teams' ledgers and books once: the second team's line is answered
"already booked from sheet 0A, no. 3". When the teams made the same move twice, the k-th line of one team
stands for the k-th booking of the other's. Which line stood for which booking was counted over the lines
of one batch only: a sheet typed in two parts, or from two laptops, counted again from the first booking,
so a move only one team wrote down twice was refused as a copy the second time.

The claim is kept here, with the accounts, so it holds across batches, devices and the game's processes:
one row per booking a line stood for, the first claim wins (the slot is the primary key), removed only when
the claiming line was booked as another move at that very moment (bank/web/field/paper_line.py).
The rows are bounded by the game's bookings from paper, one each at most.
"""

from __future__ import annotations

SCHEMA = """CREATE TABLE IF NOT EXISTS paper_copies (
    slot TEXT PRIMARY KEY, sheet TEXT NOT NULL, line INTEGER NOT NULL);"""


def _mark(rows) -> dict | None:
    return {"sheet": rows[0][0], "line": rows[0][1]} if rows else None


class PaperCopies:
    """The rows in the game's SQLite file, through the accounts' `sql` (one statement, its errors as sentences)."""

    def __init__(self, sql):
        self._sql = sql

    def holder(self, slot: str) -> dict | None:
        """{sheet, line} of the line that stood for the booking `slot`, or None while no line has."""
        return _mark(self._sql("SELECT sheet, line FROM paper_copies WHERE slot = ?", (slot,)))

    def stood_for(self, sheet: str, line: int) -> list[str]:
        """The slots of the bookings that line stood for (one, but for a game typed on older code)."""
        return [r[0] for r in self._sql("SELECT slot FROM paper_copies WHERE sheet = ? AND line = ? ORDER BY slot",
                                        (sheet, line))]

    def claim(self, slot: str, sheet: str, line: int) -> dict:
        """The line that stands for `slot` now: this one if no line did yet, else the one that claimed it first."""
        self._sql("INSERT INTO paper_copies VALUES (?, ?, ?) ON CONFLICT (slot) DO NOTHING", (slot, sheet, line))
        return self.holder(slot)

    def release(self, slot: str, sheet: str, line: int) -> None:
        """That line's claim let go: it was booked as another move at the very moment it claimed."""
        self._sql("DELETE FROM paper_copies WHERE slot = ? AND sheet = ? AND line = ?", (slot, sheet, line))


class PostgresPaperCopies:
    """The rows of one game in PostgreSQL (access_pg_schema.py), on the accounts' connections."""

    def __init__(self, db):
        self.db, self.game = db, db.game

    def holder(self, slot: str) -> dict | None:
        return _mark(self.db.rows("SELECT sheet, line FROM terrabank.paper_copies WHERE game = %s AND slot = %s",
                                  (self.game, slot)))

    def stood_for(self, sheet: str, line: int) -> list[str]:
        return [r[0] for r in self.db.rows("SELECT slot FROM terrabank.paper_copies WHERE game = %s AND sheet = %s "
                                           "AND line = %s ORDER BY slot", (self.game, sheet, line))]

    def claim(self, slot: str, sheet: str, line: int) -> dict:
        self.db.rows("""INSERT INTO terrabank.paper_copies(game, slot, sheet, line) VALUES (%s, %s, %s, %s)
                        ON CONFLICT (game, slot) DO NOTHING""", (self.game, slot, sheet, line))
        return self.holder(slot)

    def release(self, slot: str, sheet: str, line: int) -> None:
        self.db.rows("DELETE FROM terrabank.paper_copies WHERE game = %s AND slot = %s AND sheet = %s AND line = %s",
                     (self.game, slot, sheet, line))
