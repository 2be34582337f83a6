"""The characters a reader sees, one rule for the whole project: a name's length in the config
(config_sections: 30 characters), and where a printed box may cut a name (printables/name_lines.py).

Python counts code points: "é" typed as e + U+0301 (as a Mac's file names give it) is two, a family
emoji seven, a flag two. A reader counts one each. The browser's pages have their own cut
(static/js/board_labels.js), on the same rule.
"""

from __future__ import annotations

import unicodedata

ZERO_WIDTH_SPACE = "\u200b"  # a format character that parts words: never glued
JOINER = "\u200d"            # a zero-width joiner glues the next character to this one


def graphemes(text: str) -> list:
    """`text` cut into the characters a reader sees: a base with its combining marks and the invisible
    format characters after it (a soft hyphen, a subdivision flag's tags), variation selectors, skin tones,
    the pieces joined by a zero-width joiner, a pair of regional indicators (a flag)."""
    found: list = []
    for ch in text:
        glue = (unicodedata.category(ch)[0] == "M" or (unicodedata.category(ch) == "Cf" and ch != ZERO_WIDTH_SPACE)
                or "\ufe00" <= ch <= "\ufe0f" or "\U0001f3fb" <= ch <= "\U0001f3ff")
        after_joiner = found and found[-1][-1] == JOINER
        flag = found and _regional(ch) and len(found[-1]) == 1 and _regional(found[-1])
        if found and (glue or after_joiner or flag):
            found[-1] += ch
        else:
            found.append(ch)
    return found


def _regional(ch: str) -> bool:
    return "\U0001f1e6" <= ch <= "\U0001f1ff"


def columns(text: str) -> int:
    """How many columns of a terminal `text` takes: two for a wide character (an emoji, a flag, a family joined by
    zero-width joiners, Chinese), none for what only marks the character before it, one for the rest."""
    return sum(_columns(g) for g in graphemes(text))


def _columns(grapheme: str) -> int:
    if any(unicodedata.east_asian_width(ch) in ("W", "F") for ch in grapheme) or "\ufe0f" in grapheme or _regional(grapheme[0]):
        return 2
    return 0 if all(unicodedata.category(ch)[0] == "M" or unicodedata.category(ch) == "Cf" for ch in grapheme) else 1
