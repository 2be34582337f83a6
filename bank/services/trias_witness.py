"""A Trias game as a witness of its own journal: what the server asks when another program may have rewritten it.

The game service keeps the newest chain head it wrote or read (bank/services/journal_service.py, its anchor) and
refuses to book on a store that no longer holds it. This mixin of TriasGame says whether the game was found so
(the pages show it, a computer seat stops playing) and looks off the booking path; `in_use` picks the games such a
look reads: the ones used last, and in a folder only those whose file is open (a look opens no file again: a
folder keeps only a few open, trias_games.OPEN_FILES; a closed one is checked at its next move).
"""

from __future__ import annotations


class TriasWitness:
    """Needs `_service` (TriasGame)."""

    @property
    def rewritten(self) -> dict | None:
        """{"why": a sentence}, with "seq" and "held" when the store lost the head at that entry; None while sound."""
        return self._service.rewritten

    def check_chain(self, if_open: bool = False, rows: bool = False) -> dict | None:
        """One indexed read (none for a closed file with `if_open`): None while the store holds the anchor's head;
        with `rows`, and every row still matches its chain (the rows read and hashed)."""
        return self._service.check_chain(if_open, rows)


def in_use(games, most: int) -> list:
    """The `most` games of `games` (TriasGames) used last, newest last: the ones a look off the booking path reads."""
    with games._lock:  # the games' own order of use (TriasGames._used), read as one picture
        return list(games._recent.values())[-most:]
