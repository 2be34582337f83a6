"""The terminal game's choices, grouped: herd moves, births and rescues first, then each tile that may drift
(its destinations asked next), then the rest (placements, draw, end the turn). Every legal move is in it."""

from __future__ import annotations

from dataclasses import dataclass, field

import trias
from bank.cli.trias_text import command_text
from bank.cli.trias_words import count, kind_name, say
from trias.hexes import distance, label

GROUPS = ("move", "reproduce", "rescue")


@dataclass
class Choice:
    text: str
    cmd: dict | None = None  # a legal command, or else...
    sub: list = field(default_factory=list)  # ...the choices it opens
    title: str = ""  # the question asked about `sub`


def build_menu(state, lang="en") -> list:
    """The top-level choices for the seat to play."""
    grouped = {kind: [] for kind in GROUPS}
    tiles: dict = {}  # (type, card, tile) -> its drifts, in the engine's order
    rest = []
    for cmd in trias.legal_actions(state):
        kind = cmd["type"]
        if kind in grouped:
            grouped[kind].append(cmd)
        elif kind in ("drift", "play") and "tile" in cmd:
            tiles.setdefault((kind, cmd.get("card"), tuple(cmd["tile"])), []).append(cmd)
        else:
            rest.append(cmd)
    menu = []
    for kind in GROUPS:
        found = grouped[kind]
        if len(found) == 1:
            menu.append(Choice(command_text(found[0], state, lang), found[0]))
        elif found:
            menu.append(Choice(say(lang, f"group_{kind}", n=len(found)),
                               sub=[Choice(command_text(c, state, lang), c) for c in found], title=say(lang, f"pick_{kind}")))
    for (kind, card, tile), found in tiles.items():
        name, places = kind_name(lang, state.tiles[tile]), count(lang, len(found), "place")
        if kind == "play":
            card = kind_name(lang, card or state.hands[state.current])
            text = say(lang, "play_drift_tile", card=card, kind=name, tile=label(tile), n=places)
        else:
            cost = say(lang, "cost3") if state.phase == "actions" else ""
            text = say(lang, "drift_tile", kind=name, tile=label(tile), cost=cost, n=places)
        sub = [Choice(say(lang, "to", to=label(tuple(c["to"])), a=distance(tile), b=distance(tuple(c["to"]))), c)
               for c in found]
        menu.append(Choice(text, sub=sub, title=say(lang, "pick_to", kind=name, tile=label(tile))))
    return menu + [Choice(command_text(c, state, lang), c) for c in rest]


def commands(menu: list) -> list:
    """Every command reachable from `menu`, walking all its groups."""
    found = []
    for choice in menu:
        found += [choice.cmd] if choice.cmd is not None else commands(choice.sub)
    return found


def render(menu: list, width: int = 100) -> list:
    """The numbered choices; a long list in columns (numbered down each column) to keep the map in view."""
    cells = [f"{i:>3}. {c.text}" for i, c in enumerate(menu, 1)]
    wide = max(len(c) for c in cells) + 2
    columns = max(1, min(4, width // wide)) if len(cells) > 6 else 1
    rows = -(-len(cells) // columns)
    return ["".join(cells[k].ljust(wide) for k in range(r, len(cells), rows)).rstrip() for r in range(rows)]
