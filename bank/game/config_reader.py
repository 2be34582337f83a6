"""A strict reader over a parsed TOML table: every error names the dotted key.

Unknown keys are errors too, because a misspelt key (`reputaton = 5`) that is
silently ignored is the worst kind of mistake on game day.

An entry of an array of tables is counted from 0, as the JSON Schema's paths count it
(docs/config.schema.json: `teams/0/resource` is `teams[0].resource` here), and said in words
too, since a person counts the `[[teams]]` tables from 1: "'teams[0].resource' (the first
[[teams]] table)", so the key and the schema's path never disagree.
"""

from __future__ import annotations

import difflib
import re
import unicodedata

from bank.errors import ConfigError

_MISSING = object()


class Reader:
    """Reads one TOML table, tracking which keys were used."""

    def __init__(self, table, path: str, source: str):
        if not isinstance(table, dict):
            raise ConfigError(f"{source}: '{path}'{which(path)} must be a table, got {_kind(table)}")
        self.table = table
        self.path = path
        self.source = source
        self.used: set[str] = set()

    def key(self, name: str) -> str:
        """The dotted path of a key, for messages."""
        return f"{self.path}.{name}" if self.path else name

    def fail(self, name: str, problem: str):
        """Raise a ConfigError naming this key."""
        key = self.key(name)
        raise ConfigError(f"{self.source}: '{key}'{which(key)} {problem}")

    def get(self, name: str, default=_MISSING):
        self.used.add(name)
        if name in self.table:
            return self.table[name]
        if default is _MISSING:
            near = difflib.get_close_matches(name, [k for k in self.table if isinstance(k, str)], n=1)
            hint = f" (found '{near[0]}': a misspelling?)" if near else ""
            self.fail(name, f"is missing{hint}; add it (see the comments in the default config.toml)")
        return default

    def int(self, name: str, default=_MISSING, minimum: int = 0, maximum: int | None = None) -> int:
        """A whole number within bounds."""
        value = self.get(name, default)
        if isinstance(value, bool) or not isinstance(value, int):
            self.fail(name, f"must be a whole number, got {_show(value)}")
        if value < minimum:
            self.fail(name, f"must be at least {minimum}, got {value}")
        if maximum is not None and value > maximum:
            self.fail(name, f"must be at most {maximum}, got {value}")
        return value

    def bool(self, name: str, default=_MISSING) -> bool:
        value = self.get(name, default)
        if not isinstance(value, bool):
            self.fail(name, f"must be true or false, got {_show(value)}")
        return value

    def str(self, name: str, default=_MISSING, choices=None) -> str:
        value = self.get(name, default)
        if not isinstance(value, str) or not value.strip():
            self.fail(name, f"must be a non-empty text in quotes, got {_show(value)}")
        if choices is not None and value not in choices:
            self.fail(name, f"must be one of {', '.join(sorted(choices))}; got {_show(value)}")
        return value

    def colour(self, name: str) -> str:
        value = self.str(name)
        if not (len(value) == 7 and value[0] == "#" and all(c in "0123456789abcdefABCDEF" for c in value[1:])):
            self.fail(name, f"must be a colour like \"#1f6fd1\", got {_show(value)}")
        return value.lower()

    def label(self, name: str = "label") -> dict[str, str]:
        """A text in French and English: { fr = "...", en = "..." }, composed (NFC): an accent typed apart
        (e + U+0301, as a Mac's file names give it) is one letter on every page, sheet and count."""
        sub = self.sub(name)
        labels = {lang: unicodedata.normalize("NFC", sub.str(lang)) for lang in ("fr", "en")}
        sub.done()
        return labels

    def ids(self, name: str, allowed, default=_MISSING, what: str = "id") -> tuple[str, ...]:
        """A list of ids, each one of `allowed`."""
        value = self.get(name, default)
        if not isinstance(value, (list, tuple)) or not all(isinstance(v, str) for v in value):
            self.fail(name, f"must be a list of {what}s in quotes, got {_show(value)}")
        for v in value:
            if v not in allowed:
                self.fail(name, f"names an unknown {what} {v!r}; known: {', '.join(allowed)}")
        return tuple(value)

    def amounts(self, name: str, allowed, default=_MISSING, what: str = "resource") -> dict[str, int]:
        """A table of {id = whole number >= 0}, e.g. a cost."""
        value = self.get(name, default)
        sub = Reader(value, self.key(name), self.source)
        result = {}
        for k in value:
            if k not in allowed:
                sub.fail(k, f"is not a known {what}; known: {', '.join(allowed)}")
            amount = sub.int(k)
            if amount:
                result[k] = amount
        return result

    def sub(self, name: str, default=_MISSING) -> "Reader":
        return Reader(self.get(name, default), self.key(name), self.source)

    def subs(self, name: str) -> list["Reader"]:
        """An array of tables ([[name]])."""
        value = self.get(name)
        if not isinstance(value, list):
            self.fail(name, f"must be written as [[{self.key(name)}]] tables, got {_kind(value)}")
        return [Reader(v, f"{self.key(name)}[{i}]", self.source) for i, v in enumerate(value)]

    def done(self):
        """Refuse keys nobody read: they are typos or leftovers."""
        for k in self.table:
            if k not in self.used:
                self.fail(k, "is not a known setting here; check its spelling")


ORDINALS = ("first", "second", "third", "fourth", "fifth", "sixth", "seventh", "eighth", "ninth", "tenth")
_LAST_ENTRY = re.compile(r"^(.*)\[(\d+)\]")  # greedy: the innermost entry of a key


def which(key: str) -> str:
    """' (the first [[teams]] table)' for a key inside an entry of an array of tables; '' otherwise."""
    found = _LAST_ENTRY.match(key)
    if not found:
        return ""
    n, tables = int(found.group(2)), found.group(1)
    if n < len(ORDINALS):
        return f" (the {ORDINALS[n]} [[{tables}]] table)"
    return f" (table number {n + 1} of [[{tables}]])"


def _kind(value) -> str:
    return {dict: "a table", list: "a list", str: "a text", bool: "true/false"}.get(type(value), type(value).__name__)


def _show(value) -> str:
    if value is _MISSING:
        return "nothing"
    return repr(value) if not isinstance(value, (dict, list)) else _kind(value)
