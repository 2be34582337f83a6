"""A name as people write it by hand: the words that are compared, and how a typed name is found.

A banker copies "Les Verts 🌱 qui Poussent Vite" or "Œufs — Équipe" from a printed sheet with a
pen, then types it: the case, the accents, œ written oe, the emoji, the kind of dash, the leading
article and the end of a name cut on the sheet all vary. Two written forms are the same name when
their words are: a word is a run of letters and digits (with the combining marks and invisible
joiners inside it: "Spın̈al" is one word, written "Spinal" by hand), lower case, accents dropped, ligatures
spelled out, a plural s dropped, a Roman numeral read as its number; everything else (spaces,
dashes, apostrophes, emoji, punctuation) only separates words.

Finding a name among others (`NameTable.find`) takes, in order: the whole name; the name without
its leading article ("Verts" for "Les Verts"); its first words or the start of a word, as a sheet
cuts it ("Mégalosaure-Anticons…"). When two different names fit equally well the answer is both,
so the caller refuses and names them: a typed name is never given silently to the wrong one.
The config refuses two teams that would be the same typed name (config_sections.py).
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass

# Ligatures and letters NFKD leaves whole: a pen writes them out.
SPELLED = str.maketrans({"œ": "oe", "Œ": "oe", "æ": "ae", "Æ": "ae", "ß": "ss", "ø": "o", "Ø": "o",
                         "ł": "l", "Ł": "l", "đ": "d", "Đ": "d", "ı": "i"})
# Roman numerals as the cards print them ("Centrale I"): a banker writes 1 as often as I. Only whole
# words of one to four letters are read so, so no ordinary word changes.
ROMAN = {"i": "1", "ii": "2", "iii": "3", "iv": "4", "v": "5", "vi": "6", "vii": "7", "viii": "8",
         "ix": "9", "x": "10"}
# Leading articles a name may be written with or without (French, English, Italian), compared plain.
ARTICLES = frozenset({"le", "la", "les", "l", "the", "il", "lo", "gli", "un", "une", "des"})
CUT = "…"  # a name cut on a sheet ends so; typed "..." is the same mark
_TOKEN = re.compile(r"\d{1,2}:\d{2}|(?:(?<=\s)|^)-\d+|…|\.\.\.+|(?P<word>[^\W_]+)")
# Invisible inside a word, never between two: a soft hyphen, the zero-width non-joiner and joiner, the
# word joiner (a zero-width space does part words). With the combining marks, what a pen never writes.
INSIDE = frozenset("\u00ad\u200c\u200d\u2060")


def plain(word: str) -> str:
    """Lower case, accents dropped, ligatures spelled out: 'Œufs' -> 'oeufs', 'Équipe' -> 'equipe'; the
    marks a pen leaves out (accents that compose with no letter, vowel points) and invisible joiners dropped."""
    spelled = word.translate(SPELLED)
    return "".join(ch for ch in unicodedata.normalize("NFKD", spelled)
                   if unicodedata.category(ch) not in ("Mn", "Me") and ch not in INSIDE).lower()


def fold(word: str) -> str:
    """A word as compared: plain, a Roman numeral as its number, no plural s ('Bleus' and 'bleu' match)."""
    word = plain(word)
    if word in ROMAN:
        return ROMAN[word]
    return word[:-1] if len(word) > 3 and word.endswith("s") else word


def tokens(text: str) -> list:
    """(word as written, start, end) for each word of a typed line: runs of letters and digits, a time
    (14:32), a negative number after a space, the cut mark (… or ...); the rest separates."""
    text = unicodedata.normalize("NFC", text)
    found, glued = [], False
    for m in _TOKEN.finditer(text):
        word = m.group(0) if not m.group(0).startswith("..") else CUT
        if glued and m.group("word") and _inside(text[found[-1][2]:m.start()]):
            found[-1] = (text[found[-1][1]:m.end()], found[-1][1], m.end())  # 'Spın̈al', 'Méga\xadlosaure': one word
        else:
            found.append((word, m.start(), m.end()))
        glued = bool(m.group("word"))
    return found


def _inside(gap: str) -> bool:
    """Whether what parts two runs of letters is only marks and joiners, so they are one word."""
    return bool(gap) and all(ch in INSIDE or unicodedata.category(ch).startswith("M") for ch in gap)


def words_of(text: str) -> list:
    """A name's (or a line's) folded words; emoji, dashes and punctuation are spaces."""
    return [fold(word) for word, _, _ in tokens(text) if word != CUT]


def typed_key(text: str) -> tuple:
    """What tells a name apart when typed: its folded words without a leading article."""
    words = tuple(words_of(text))
    return words[1:] if len(words) > 1 and words[0] in ARTICLES else words


@dataclass(frozen=True)
class Found:
    """`keys`: the one name found, or the names it could equally be (the caller refuses those);
    `end`: the position after the words it took."""

    keys: tuple
    end: int


def as_printed(label: str) -> list:
    """The label, and as a sheet prints it when it holds a flag: ReportLab sets no text, so a flag (two regional
    indicators) is drawn as its two letters, "Les 🇫🇷 Bleus" as "Les F R Bleus", which a banker copies as
    "F R" or "FR"; an emoji is a space, but those letters are words."""
    if not any(_regional(ch) for ch in label):
        return [label]
    apart = "".join(f" {chr(ord(ch) - 0x1F1E6 + ord('A'))} " if _regional(ch) else ch for ch in label)
    joined = re.sub(r"[\U0001F1E6-\U0001F1FF]{2}", lambda m: " " + "".join(
        chr(ord(ch) - 0x1F1E6 + ord("A")) for ch in m.group(0)) + " ", label)
    return [label, apart, joined]


def _regional(ch: str) -> bool:
    return "\U0001f1e6" <= ch <= "\U0001f1ff"


class NameTable:
    """The names of one kind (teams, resources...): id -> the labels it may be written as.

    `fallback`: id -> more ways to write it, read only where no label fits as well: the ids (never printed:
    "Green", the English name of team blue, is blue's, not team green's) and a team's name when the game
    began (a sheet printed before a reload renamed it)."""

    def __init__(self, items: dict, fallback: dict | None = None):
        self.exact = {}  # folded words -> {id: rank}: 0 the whole label, 1 without its article, 2 and 3 fallbacks
        self.forms, self.fallback_forms = [], []  # (plain words, id) for cut forms
        for rank, names, forms in ((0, items, self.forms), (2, fallback or {}, self.fallback_forms)):
            for key, labels in names.items():
                for label in [form for label in labels for form in as_printed(label)]:
                    words = [w for w, _, _ in tokens(label) if w != CUT]
                    if not words:
                        continue
                    self._add(tuple(fold(w) for w in words), key, rank)
                    forms.append((tuple(plain(w) for w in words), key))
                    if len(words) > 1 and fold(words[0]) in ARTICLES:
                        self._add(tuple(fold(w) for w in words[1:]), key, rank + 1)
                        forms.append((tuple(plain(w) for w in words[1:]), key))
        self.longest = max((len(seq) for seq in self.exact), default=0)

    def _add(self, seq: tuple, key: str, rank: int) -> None:
        ranks = self.exact.setdefault(seq, {})
        ranks[key] = min(rank, ranks.get(key, rank))

    def find(self, words: list, at: int, keywords=frozenset()) -> Found | None:
        """The name written at `at` in `words` (as `tokens` gives them: the words as written), or None.

        `keywords`: the words of the line's grammar (verbs, roles...), never taken as the cut end of a name."""
        found = self._whole(words, at)
        if found is None and at + 1 < len(words) and fold(words[at]) in ARTICLES:
            found = self._whole(words, at + 1)  # "bat les Rouges" for a team called "Rouges"
        cut = self._cut(words, at, keywords)
        if cut is None and at + 1 < len(words) and fold(words[at]) in ARTICLES:
            cut = self._cut(words, at + 1, keywords)
        if found is None or cut is not None and cut.end > found.end:
            return cut  # "Verts Fon" is the start of "Verts Foncés", not "Verts" and a word left over
        if found.end < len(words) and words[found.end] == CUT:
            return cut or found  # "Verts…" written from a cut sheet: every name that starts so
        return found

    def _whole(self, words: list, at: int) -> Found | None:
        folded = [fold(w) for w in words[at:at + self.longest]]
        for n in range(len(folded), 0, -1):
            ranks = self.exact.get(tuple(folded[:n]))
            if ranks:
                best = min(ranks.values())
                return Found(tuple(sorted(k for k, r in ranks.items() if r == best)), at + n)
        return None

    def _cut(self, words: list, at: int, keywords) -> Found | None:
        """A name's first words, the last of them perhaps cut ('Mégalosaure-Anticons', 'Verts qui'), and
        the cut mark if written: the longest start any name has; two names with it are both returned."""
        for forms in (self.forms, self.fallback_forms):
            best, keys = 0, set()
            for form, key in forms:
                n = _start_length(form, words, at, keywords)
                if n > best:
                    best, keys = n, {key}
                elif n == best and n:
                    keys.add(key)
            if best:
                break
        if not best:
            return None
        end = at + best
        return Found(tuple(sorted(keys)), end + (end < len(words) and words[end] == CUT))


def _start_length(form: tuple, words: list, at: int, keywords) -> int:
    """How many written words from `at` are the start of `form` (the last one may be cut short). A move's
    word ("récolte", "de") may be inside such a start but never end it, unless the cut mark follows."""
    n, short, end = 0, False, 0
    while n < len(form) and at + n < len(words):
        written = words[at + n]
        typed = plain(written)
        if written == CUT or not typed:
            break
        if typed == form[n] or fold(written) == fold(form[n]):
            n += 1
            end = n if fold(written) not in keywords else end
            continue
        marked_here = at + n + 1 < len(words) and words[at + n + 1] == CUT
        if form[n].startswith(typed) and (marked_here or len(typed) >= 3 and not typed.isdigit()
                                          and fold(written) not in keywords):
            # a word cut short ends the name; with the cut mark after it, even one letter ("Ma-M…")
            n, short, end = n + 1, True, n + 1
        break
    marked = at + n < len(words) and words[at + n] == CUT
    if marked:
        end = n
    elif end < n:
        short = False
    return end if end and (end < len(form) or short or marked) else 0


def named(items: dict, written: str) -> tuple:
    """The ids (of `items`: id -> the labels it may be written as) whose name `written` is, as people
    write it (case, accents, emoji, the article, a name cut short do not matter): one id, several when it
    fits them equally (the caller refuses, naming them), or none."""
    words = [word for word, _, _ in tokens(written)]
    found = NameTable(items).find(words, 0) if words else None
    return found.keys if found is not None and found.end == len(words) else ()

