"""A JSON Schema of config.toml, drawn from the reader itself.

An editor that knows the schema (VS Code's TOML extensions, taplo: `.taplo.toml` at the top of the
code, or a first line `#:schema /srv/terrabank/docs/config.schema.json` in /etc/terrabank/config.toml)
underlines a misspelt key while the operator types, before `terrabank config check` or a start says so.

Not written by hand: `config_sections.read_all` reads the shipped config.toml through `Recorder`, a
Reader that notes each key it is asked for, its kind, bounds, choices and default, and which tables
take no other key (`done()`) or are keyed by the game's own ids (resources, buildings...: the
reader loops over them). A key added to the reader is in the schema at once; `docs/config.schema.json`
is this module's output (`terrabank config schema`), and tests/cli/test_config_check.py checks
they are equal. The schema checks shapes only: what spans keys (a team's resource is a harvestable
one, R6's one joker) is for `terrabank config check`.
"""

from __future__ import annotations

import json
import tomllib
from pathlib import Path

from bank.game.config_reader import _MISSING, Reader
from bank.game.config_sections import read_all

SHIPPED = Path(__file__).resolve().parents[2] / "config.toml"
DRAFT = "http://json-schema.org/draft-07/schema#"  # the draft editors' TOML extensions (taplo) read


class _Watched(dict):
    """A table that notes when the reader loops over its keys: then they are the game's own ids."""

    looped = False

    def __init__(self, table, ids: set):
        super().__init__(table)
        self.ids = ids

    def __iter__(self):
        self.looped = True
        self.ids.update(k for k in self.keys() if isinstance(k, str))
        return super().__iter__()


class Recorder(Reader):
    """A Reader that writes down, in `node`, the JSON Schema of what it is asked to read."""

    def __init__(self, table, path: str, source: str, node: dict, ids: set | None = None):
        self.known_ids = set() if ids is None else ids  # every id of the game's own tables read so far
        super().__init__(_Watched(table, self.known_ids) if isinstance(table, dict) else table, path, source)
        self.node = node
        node["type"] = "object"

    def _slot(self, name: str, default=_MISSING) -> dict:
        """The schema of key `name`: its own, or the one schema of every entry of an id-keyed table."""
        if self.table.looped:
            return self.node.setdefault("additionalProperties", {})
        if default is _MISSING and name not in self.node.setdefault("required", []):
            self.node["required"].append(name)
        return self.node.setdefault("properties", {}).setdefault(name, {})

    def _default(self, slot: dict, default) -> None:
        if default is not _MISSING and not isinstance(default, (dict, list, tuple)) and default is not None:
            slot["default"] = default

    def get(self, name: str, default=_MISSING):
        slot = self._slot(name, default)
        if not slot and isinstance(default, str):  # a text that may be left out or empty (the Wi-Fi's)
            slot.update({"type": "string", "default": default})
        return super().get(name, default)

    def int(self, name: str, default=_MISSING, minimum: int = 0, maximum: int | None = None) -> int:
        slot = self._slot(name, default)
        slot.update({"type": "integer", "minimum": minimum, **({"maximum": maximum} if maximum is not None else {})})
        self._default(slot, default)
        return super().int(name, default, minimum, maximum)

    def bool(self, name: str, default=_MISSING) -> bool:
        slot = self._slot(name, default)
        slot["type"] = "boolean"
        self._default(slot, default)
        return super().bool(name, default)

    def str(self, name: str, default=_MISSING, choices=None) -> str:
        slot = self._slot(name, default)
        slot.update({"type": "string", "minLength": 1})
        if choices is not None and not set(choices) <= self.known_ids:  # not the game's own ids (a resource): fixed words
            slot["enum"] = sorted(choices)
        self._default(slot, default)
        return super().str(name, default, choices)

    def colour(self, name: str) -> str:
        self._slot(name)["pattern"] = "^#[0-9a-fA-F]{6}$"
        return super().colour(name)

    def ids(self, name: str, allowed, default=_MISSING, what: str = "id") -> tuple:
        self._slot(name, default).update({"type": "array", "items": {"type": "string"}})
        return super().ids(name, allowed, default, what)

    def amounts(self, name: str, allowed, default=_MISSING, what: str = "resource") -> dict:
        self._slot(name, default).update({"type": "object", "additionalProperties": {"type": "integer", "minimum": 0}})
        return super().amounts(name, allowed, default, what)

    def sub(self, name: str, default=_MISSING) -> "Reader":
        slot = self._slot(name, default)
        return Recorder(super().get(name, default), self.key(name), self.source, slot, self.known_ids)

    def subs(self, name: str) -> list:
        slot = self._slot(name)
        slot["type"] = "array"
        items = slot.setdefault("items", {})
        return [Recorder(v, f"{self.key(name)}[{i}]", self.source, items, self.known_ids)
                for i, v in enumerate(super().get(name))]

    def done(self):
        if not self.table.looped:
            self.node["additionalProperties"] = False
        for k in dict.keys(self.table):  # as Reader.done, without counting its keys as the game's ids
            if k not in self.used:
                self.fail(k, "is not a known setting here; check its spelling")


def _tidy(node):
    """Keys in a stable order and no empty `required`, so the committed file's diff shows real changes."""
    if isinstance(node, dict):
        if node.get("required") == []:
            del node["required"]
        return {k: _tidy(node[k]) for k in sorted(node)}
    if isinstance(node, list):
        return [_tidy(v) for v in node]
    return node


def schema(shipped: Path = SHIPPED) -> dict:
    """The JSON Schema of config.toml, as the reader reads the shipped file."""
    text = shipped.read_text(encoding="utf-8")
    root: dict = {}
    read_all(Recorder(tomllib.loads(text), "", str(shipped), root), text)
    return {"$schema": DRAFT, "title": "Terrabank config.toml",
            "$comment": "Generated from bank/game/config_sections.py by `terrabank config schema`; do not edit.",
            **_tidy(root)}


def schema_text(shipped: Path = SHIPPED) -> str:
    """The schema as written to docs/config.schema.json."""
    return json.dumps(schema(shipped), indent=2, ensure_ascii=False) + "\n"
