"""Default names of computer seats: their level in the game's language ("Ordinateur · difficile").

A computer seat left without a name (the start page's API, `terrabank trias play`) is named by its
level, numbered when two share one, so a result never reads "Winner: Seat 4" with no sign it was
a computer. Only a default: a name given is kept, and games already stored keep theirs.
"""

from __future__ import annotations

from bank.web.i18n import translate


def computer_name(level: str, lang: str) -> str:
    """'Computer · hard' / 'Ordinateur · difficile'."""
    return translate(lang, "Computer · %(level)s", level=translate(lang, str(level)))


def with_default_names(seats, lang: str):
    """`seats` with a name for each computer seat that has none; anything else is left for the service to check."""
    if not isinstance(seats, list):
        return seats
    used = {s.get("name").strip() for s in seats if isinstance(s, dict) and isinstance(s.get("name"), str)}
    named = []
    for seat in seats:
        if isinstance(seat, dict) and seat.get("kind") == "computer" and not str(seat.get("name") or "").strip():
            base = name = computer_name(seat.get("level", "easy"), lang)
            number = 2
            while name in used:
                name, number = f"{base} {number}", number + 1
            used.add(name)
            seat = dict(seat, name=name)
        named.append(seat)
    return named
