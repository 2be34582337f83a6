"""A paper ledger's sheet id and numbered lines: how a line written on paper is known again.

Each continuation ledger (printables/state_ledger.py) and bank-sheet ledger (printables/bank_sheets.py)
prints its sheet's id, made of the journal entry it starts from and the team's letter ("412C": the
third team's ledger from entry 412; "0C" in the print pack, before any entry), and numbers its rows.
A team that fills its sheet goes on on a copy and writes its number by hand beside the id ("412C/2").

The lead types the sheet's id on a line of its own ("feuille 412C", "sheet 412C/2"), then each move
with its printed number first ("3 14:02 Verts récolte eau 1"). The bank makes the move's command id
from the sheet, the number and the move, so the same line typed again from any device, any number of
times, books once, and another line is never taken for it (bank/web/field/paper_routes.py).
"""

from __future__ import annotations

import re

SHEET_WORDS = ("feuille", "sheet", "foglio")
_HEADER = re.compile(r"^(?:feuille|sheet|foglio)\b\s*(?:n°|no\.?|nr\.?|:)?\s*(?P<id>[^\s/]*)\s*"
                     r"(?:(?:/|-|n°|no\.?|#)\s*)?(?P<copy>\d{1,3})?\s*$", re.IGNORECASE)
_ID = re.compile(r"^(?P<seq>\d{1,9})(?P<team>[A-Za-z]{1,2})$")
_NUMBERED = re.compile(r"^(?:n°\s*)?(?P<n>\d{1,3})\s*(?:[.)]\s*|\s+)(?P<rest>\S.*)$")
MAX_COPY = 999


class SheetError(ValueError):
    """A sheet line the bank cannot read: `code` and `params` for the page's sentence."""

    def __init__(self, code: str, message: str, **params):
        super().__init__(message)
        self.code, self.message, self.params = code, message, params


def team_letters(index: int) -> str:
    """The team's letter in config order: A, B, ... Z, then AA, AB..."""
    letters = ""
    index += 1
    while index:
        index, rest = divmod(index - 1, 26)
        letters = chr(ord("A") + rest) + letters
    return letters


def sheet_id(seq: int, team_index: int) -> str:
    """The id a ledger prints: the entry it starts from and the team's letter."""
    return f"{seq}{team_letters(team_index)}"


def is_header(line: str) -> bool:
    """Whether the line names a sheet: feuille, sheet or foglio alone or before a word starting with a
    digit (a team called "Feuille d'Or" still starts a move)."""
    words = line.replace(":", " ").split()
    if not words or words[0].lower() not in SHEET_WORDS:
        return False
    rest = [w for w in words[1:] if w.lower() not in ("n°", "no", "no.", "nr", "nr.")]
    return not rest or rest[0][:1].isdigit()


def read_header(line: str) -> str:
    """The sheet a header line names, written one way ('412C', '412C/2'), or SheetError."""
    match = _HEADER.match(line.strip())
    found = _ID.match(match.group("id")) if match else None
    if not found:
        raise SheetError("paper_sheet_id", "write the sheet's id as printed at its top, such as sheet 412C "
                         "(sheet 412C/2 for its second copy)", word=line.strip()[:40])
    copy = int(match.group("copy") or 1)
    if not 1 <= copy <= MAX_COPY:
        raise SheetError("paper_sheet_id", f"a sheet's copy number is 1 to {MAX_COPY}", word=line.strip()[:40])
    name = f"{int(found.group('seq'))}{found.group('team').upper()}"
    return name if copy == 1 else f"{name}/{copy}"


def numbered(line: str):
    """(the printed line number, the move) of '3 14:02 Verts récolte eau 1' or '3. ...', else None."""
    match = _NUMBERED.match(line.strip())
    if not match or not 1 <= int(match.group("n")) <= 999:
        return None
    return int(match.group("n")), match.group("rest").strip()


def sheet_parts(sheet: str) -> tuple:
    """(the entry a sheet starts from, its team's letters) of an id read_header gave ('412C/2' -> (412, 'C'))."""
    found = _ID.match(sheet.split("/")[0])
    return int(found.group("seq")), found.group("team").upper()
