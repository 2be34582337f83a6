"""A paper ledger's sheet id and numbered lines: how a line written on paper is known again.

Each continuation ledger (printables/state_ledger.py) prints its sheet's id, made of the journal entry it
starts from, the team's letter and the sheet's check ("412C-K7": the third team's ledger from entry 412);
the bank-sheet ledgers of the print pack (printables/bank_sheets.py) print "0C", no check: they are blank
forms, printed once for the rehearsal and the game day alike. A team that fills its sheet goes on on a copy
and writes its number by hand beside the id ("412C-K7/2").

The check is two characters made from the game's mark (Bank.game_mark: when the game was created, from
which config) and the sheet: a ledger printed in another game (a rehearsal's, before `init --force` made
the game again for the day; another game of the same host) names no game, and typed back after this
game's journal passed its entry it booked its moves here. Its check is another game's: refused, nothing
booked. A typo in the entry, the letter or the check is refused too (the odds another id's check matches
are 1 in 414, the checks' count). Printed and read here only, so paper and the bank never disagree.

The lead types the sheet's id on a line of its own ("feuille 412C-K7", "sheet 412C K7/2"), then each move
with its printed number first ("3 14:02 Verts récolte eau 1"). The bank makes the move's command id from the
sheet (without its check: as before it had one), the number and the move, so the same line typed again from
any device, any number of times, books once, and another line is never taken for it
(bank/web/field/paper_routes.py).
"""

from __future__ import annotations

import hashlib
import re

SHEET_WORDS = ("feuille", "sheet", "foglio")
# The id, then its check (after a dash, a space, a dot or nothing), then the copy's number written by hand.
# "no 3" / "nr. 3" after the id is the copy's number, never a check: no check starts with N. "copie 2" too, as the
# sheet's top right reads ("Feuille 143A-K7  copie [2]"); "copie" with no number is refused, never copy 1.
_NOT_COPY = r"(?!n[or°]\.?\s*\d|cop(?:ie|y|ia)\b)"
_HEADER = re.compile(r"^(?:feuille|sheet|foglio)\b\s*(?:n°|no\.?|nr\.?|:)?\s*(?P<seq>\d{1,9})"
                     rf"(?:\s{_NOT_COPY})?(?P<team>[A-Za-z]{{1,2}})"
                     rf"(?:[\s.·-]*{_NOT_COPY}(?P<check>[A-Za-z][A-Za-z0-9]))?"
                     r"(?:\s*,?\s*(?:/|-|#|n°|no\.?|nr\.?|cop(?:ie|y|ia)\s*(?:n°|no\.?|nr\.?)?)\s*(?P<copy>\d{1,3})"
                     r"|\s+(?P<spaced>\d{1,3}))?\s*$", re.IGNORECASE)
# Dashes a phone's keyboard or a copied PDF may give for the printed "-" (en and em dash, the hyphen, minus).
_DASHES = re.compile("[\u2010-\u2015\u2212\ufe58\ufe63\uff0d]")
_ID = re.compile(r"^(?P<seq>\d{1,9})(?P<team>[A-Za-z]{1,2})$")
# The check's characters: none read as another once printed small or smudged (B 8, I L 1, O Q 0, S 5, Z 2),
# nor N (a check is never "no" or "nr", the copy's words); the first a letter, so "412C-2" is still a copy.
CHECK_FIRST = "ACDEFGHJKMPRTUVWXY"
CHECK_SECOND = CHECK_FIRST + "34679"
# A line that is a sheet's id but not a header: the word misspelled or left out ("feuile 412C-K7", "412C-K7",
# "412 C"). Its lines are not the sheet's above: read_header's refusal, and the lines below it refused too.
# "5 Bleu", a move's line cut short, is no id: after a space, the letter is not the start of a word.
_ID_ALONE = re.compile(r"^(?:[^\W\d_]+\.?\s*:?\s*)?(?:n°\s*)?\d{1,9}(?:\s(?![A-Za-z]{3}))?[A-Za-z]{1,2}"
                       r"(?:[\s.·-]*[A-Za-z][A-Za-z0-9])?"
                       r"(?:\s*(?:/|-|#)\s*\d{1,3})?$")
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


def sheet_check(game: str, seq: int, letters: str) -> str:
    """The two characters a sheet prints after its id: made from the game's mark and the sheet, so another
    game's sheet, or an id typed wrong, has another check (1 chance in 414 of the same)."""
    digest = int.from_bytes(hashlib.sha256(f"terrabank sheet|{game}|{seq}|{letters.upper()}".encode()).digest()[:8], "big")
    return CHECK_FIRST[digest % len(CHECK_FIRST)] + CHECK_SECOND[digest // len(CHECK_FIRST) % len(CHECK_SECOND)]


def sheet_id(seq: int, team_index: int, game: str | None = None) -> str:
    """The id a ledger prints: the entry it starts from and the team's letter ("412C"), then with the game's
    mark the sheet's check ("412C-K7"): a continuation ledger's; the print pack's blank ledgers print none."""
    letters = team_letters(team_index)
    return f"{seq}{letters}" + (f"-{sheet_check(game, seq, letters)}" if game else "")


def is_header(line: str) -> bool:
    """Whether the line names a sheet: feuille, sheet or foglio alone or before a word starting with a
    digit (a team called "Feuille d'Or" still starts a move)."""
    words = line.replace(":", " ").split()
    if not words or words[0].lower() not in SHEET_WORDS:
        return False
    rest = [w for w in words[1:] if w.lower() not in ("n°", "no", "no.", "nr", "nr.")]
    return not rest or rest[0][:1].isdigit()


def names_a_sheet(line: str) -> bool:
    """Whether a line that is no header is still a sheet's id alone, its word misspelled or left out."""
    return bool(_ID_ALONE.match(_DASHES.sub("-", line.strip())))


def read_header(line: str, game: str) -> str:
    """The sheet a header line names, written one way ('412C', '412C/2': without its check), once its check is
    this game's (`game`: Bank.game_mark); else SheetError saying what to type. A sheet from entry 0 may come
    without a check: the print pack's blank ledgers print none."""
    match = _HEADER.match(_DASHES.sub("-", line.strip()))
    if not match:
        raise SheetError("paper_sheet_id", "write the sheet's id as printed at its top, such as sheet 412C-K7 "
                         "(sheet 412C-K7/2 for its second copy)", word=line.strip()[:40])
    copy = int(match.group("copy") or match.group("spaced") or 1)
    if not 1 <= copy <= MAX_COPY:
        raise SheetError("paper_sheet_id", f"a sheet's copy number is 1 to {MAX_COPY}", word=line.strip()[:40])
    seq, letters = int(match.group("seq")), match.group("team").upper()
    name, check = f"{seq}{letters}", (match.group("check") or "").upper()
    if not check and seq:
        raise SheetError("paper_sheet_check_missing", f"sheet {name} lacks its check: type its id with the two "
                         f"characters printed after it at the sheet's top right (sheet {name}-K7 if K7 is printed "
                         "there). A sheet that shows none was printed by an older Terrabank, for another game: its "
                         "lines are not booked", sheet=name)
    if check and check != sheet_check(game, seq, letters):
        raise SheetError("paper_sheet_other_game", f"sheet {name}-{check} is not a sheet of this game: {check} is not "
                         f"its check here. Read the id at the sheet's top right again and type it as printed; if it is "
                         "printed so, the sheet comes from another game (a rehearsal before the game was made again, or "
                         "another game of this server): its lines are not booked", sheet=name, check=check)
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
