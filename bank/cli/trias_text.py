"""Trias in words for the terminal: moves, what a row did, the board summary and a text map."""

from __future__ import annotations

import json

from trias.hexes import distance, label


def _pl(place) -> str:
    return label(tuple(place))


def command_text(cmd: dict, state) -> str:
    """A legal command in words, for the numbered list."""
    kind = cmd["type"]
    if kind == "place":
        return f"place 2 herds on {_pl(cmd['at'])} ({state.tiles[tuple(cmd['at'])]})"
    if kind == "play":
        card = cmd.get("card") or state.hands[state.current]
        if "tile" not in cmd:
            return f"play your {card} card (no drift is possible, T11)"
        return f"play your {card} card: drift {_drift_text(cmd, state)}"
    if kind == "draw":
        return "draw the top card and drift it"
    if kind == "drift":
        cost = " (3 points)" if state.phase == "actions" else ""
        return f"drift {_drift_text(cmd, state)}{cost}"
    if kind == "move":
        fresh = " (a herd that may still reproduce)" if cmd.get("fresh") else ""
        return f"move a herd {_pl(cmd['from'])} -> {_pl(cmd['to'])}{fresh}"
    if kind == "rescue":
        return "rescue " + ", ".join(f"{_pl(a)} -> {_pl(b)}" for a, b in cmd["herds"])
    if kind == "reproduce":
        return f"reproduce on {_pl(cmd['at'])}"
    if kind == "end_turn":
        return "end the turn"
    return json.dumps(cmd)


def _drift_text(cmd: dict, state) -> str:
    tile, to = tuple(cmd["tile"]), tuple(cmd["to"])
    return f"{state.tiles[tile]} {_pl(tile)} -> {_pl(to)} (distance {distance(tile)} -> {distance(to)})"


def narrate(game, events: list) -> str:
    """What a row's events did, in words."""
    names = [s["name"] for s in game.seats]
    said = []
    for e in events:
        kind = e["type"]
        if kind == "placed":
            said.append(f"placed {e['herds']} herds on {_pl(e['at'])}")
        elif kind == "card_played":
            said.append(f"played {e['card']}")
        elif kind == "card_drawn":
            said.append(f"drew {e['card']}")
        elif kind == "drifted":
            said.append(f"drifted {e['kind']} {_pl(e['tile'])} -> {_pl(e['to'])}")
        elif kind == "drift_skipped":
            said.append("no drift possible (T11)")
        elif kind == "moved":
            said.append(f"moved {_pl(e['from'])} -> {_pl(e['to'])}")
        elif kind == "rescued":
            said.append("rescued " + ", ".join(f"{_pl(a)} -> {_pl(b)}" for a, b in e["herds"]))
        elif kind == "born":
            said.append(f"a herd was born on {_pl(e['at'])}")
        elif kind == "returned":
            said.append(f"{e['count']} herd(s) of {names[e['player']]} back to stock from {_pl(e['at'])} ({e['reason']})")
        elif kind == "scored":
            got = ", ".join(f"{names[s]} +{p}" for s, p in enumerate(e["points"]) if p) or "nobody scores"
            said.append(f"{e['reason']} scoring ({e['rule']}): {got}")
        elif kind == "last_round":
            said.append("the Meteorite Impact: last round (T17)")
        elif kind == "turn_started":
            said.append(f"now {names[e['player']]}'s turn")
        elif kind == "game_over":
            said.append("game over: " + " and ".join(names[s] for s in e["winners"]) + " win(s)")
        elif kind == "undone":
            said.append(f"took back {len(e['seqs'])} move(s)")
    return "; ".join(said) or "(nothing to show)"


def describe(game, seat: int | None) -> list:
    """The board summary: turn and phase, each seat's score, stock and hand, the map, the result."""
    s = game.state
    names = [x["name"] for x in game.seats]
    lines = [f"Trias game {game.id} ({game.mode}), journal entry {game.last_seq}"]
    if s.phase == "over":
        lines.append("The game is over.")
    elif s.phase == "place":
        lines.append(f"Set-up (T8): {names[s.current]} places 2 herds on a vacant tile.")
    else:
        round_ = " (last round, T17)" if s.last_round is not None else ""
        lines.append(f"Turn {s.turn}{round_}: {names[s.current]} to play, phase {s.phase}, {s.ap} action points.")
    deck2 = min(len(s.deck), s.rules.deck2_size)
    lines.append(f"Deck: {len(s.deck)} cards ({deck2} of deck 2). Cards seen: {len(s.seen)}.")
    for i, x in enumerate(game.seats):
        hand = s.hands[i]
        shown = hand if (hand and (i == seat or hand == "meteorite")) else ("1 card" if hand else "no card")
        on_board = sum(c[i] for c in s.herds.values())
        kind = "computer " + x["level"] if x["kind"] == "computer" else "person"
        lines.append(f"  {i}. {x['name']} ({kind}): {s.score[i]} points, {s.stock[i]} herds in stock, "
                     f"{on_board} on the board, hand: {shown}")
    lines += board_map(s, names)
    if s.result:
        lines.append("Final scoring (T18), land masses other than the main one:")
        for row in s.result["table"]:
            got = ", ".join(f"{names[i]} {p}" for i, p in enumerate(row["points"]) if p) or "nobody"
            herds = ", ".join(f"{names[i]} {k}" for i, k in enumerate(row["herds"]) if k) or "no herds"
            lines.append(f"  {row['size']} tiles ({herds}): {got}")
        lines.append("Scores: " + ", ".join(f"{n} {p}" for n, p in zip(names, s.result["scores"])))
        lines.append("Winner(s) (T19): " + " and ".join(names[i] for i in s.result["winners"]))
    return lines


LETTER = {"mountain": "M", "steppe": "S", "woods": "W", "pole": "P"}


def board_map(state, names: list) -> list:
    """The board as text (a letter per tile, its herds' total, ~ for swimmers), then each place's herds per seat."""
    places = set(state.tiles) | set(state.herds)
    if not places:
        return []
    lines = ["Map (M mountain holds 2, S steppe 3, W woods 4, P pole 3; the digit: herds there; ~: swimmers):"]
    rs = [r for _, r in places]
    xs = [2 * q + r for q, r in places]  # doubled columns: a hex row is shifted half a cell from the next
    for r in range(min(rs), max(rs) + 1):
        cells = []
        for x in range(min(xs), max(xs) + 1):
            if (x - r) % 2:
                cells.append("  ")
                continue
            place = ((x - r) // 2, r)
            total = state.total(place)
            if place in state.tiles:
                cell = LETTER[state.tiles[place]] + (str(total) if total else "")
            else:
                cell = f"~{total}" if total else "."
            cells.append(cell.ljust(2))
        lines.append(f"{r:>4} " + "".join(cells).rstrip())
    herds = []
    for place in sorted(state.herds, key=lambda p: (p[1], p[0])):
        who = ", ".join(f"{names[i]} {k}" for i, k in enumerate(state.herds[place]) if k)
        where = state.tiles.get(place, "swimming")
        herds.append(f"{label(place)} {where}: {who}")
    if herds:
        lines.append("Herds: " + "; ".join(herds))
    return lines
