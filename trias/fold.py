"""The one fold: `apply(state, event) -> state`, live and on replay alike.

Events carry everything they need (the shuffled board and deck are in the
setup event), so the fold never shuffles and never decides: it only records.
"""

from __future__ import annotations

from operator import add

from .hexes import PLACES, parse
from .state import State


def apply(state: State, event: dict) -> State:
    """A new state with `event` folded in; `state` itself is left as it was."""
    twin = state.copy()
    apply_in_place(twin, event)
    return twin


def replay(events) -> State:
    """The state a list of events folds to, from the empty table."""
    state = State()
    for event in events:
        apply_in_place(state, event)
    return state


def apply_in_place(s: State, event: dict) -> None:
    """Fold `event` into `s`, replacing (never mutating) the containers it changes."""
    FOLDS[event["type"]](s, event)


def _setup(s: State, e: dict) -> None:
    n = e["players"]
    s.players = n
    s.tiles = {PLACES[(q, r)]: kind for q, r, kind in e["tiles"]}
    s.herds = {}
    s.stock = (e["herds"],) * n
    s.score = (0,) * n
    s.hands = (None,) * n
    s.deck = tuple(e["deck"])
    s.seen = ()
    s.phase, s.current, s.placements = "place", 0, 0
    s.mirror, s.hand_draw = bool(e.get("mirror")), None
    s.listing = e.get("listing", 1)
    s.geo = None


def _card_dealt(s: State, e: dict) -> None:
    s.deck = s.deck[1:]
    s.hands = _set(s.hands, e["player"], e["card"])


def _placed(s: State, e: dict) -> None:
    placed(s, e["player"], parse(e["at"]), e["herds"])


def placed(s: State, seat: int, at: tuple, k: int) -> None:
    """`placed` with its place as the place's tuple (the engine folds what it emits so)."""
    _add_herds(s, at, seat, k)
    s.stock = _set(s.stock, seat, s.stock[seat] - k)
    s.placements += 1
    n = s.players
    order = [0] + list(range(n - 1, 0, -1))  # T8: anti-clockwise from the start player
    s.current = order[s.placements % n]


def _turn_started(s: State, e: dict) -> None:
    s.current, s.phase, s.ap = e["player"], e["phase"], e["ap"]
    s.card, s.played_hand, s.spent = None, False, {}
    s.turn += 1
    if s.last_round is not None:
        s.last_round -= 1


def _card_played(s: State, e: dict) -> None:
    s.hand_draw = None
    s.hands = _set(s.hands, e["player"], None)
    s.seen = s.seen + (e["card"],)
    s.card, s.played_hand = e["card"], True


def _card_drawn(s: State, e: dict) -> None:
    s.hand_draw = None
    s.deck = s.deck[1:]
    s.seen = s.seen + (e["card"],)
    s.card = e["card"]


def _hand_drawn(s: State, e: dict) -> None:
    if s.mirror:  # the table may still say it was the Meteorite Impact (T15)
        s.hand_draw = (e["player"], len(s.deck))
    s.deck = s.deck[1:]
    s.hands = _set(s.hands, e["player"], e["card"])
    if e["card"] == "meteorite":
        s.seen = s.seen + (e["card"],)  # T15: shown at once


def _hand_shown(s: State, e: dict) -> None:
    """Mirror: the card a seat drew in phase 4 was shown (the Meteorite Impact, T15)."""
    s.hand_draw = None
    s.hands = _set(s.hands, e["player"], e["card"])
    s.seen = s.seen + (e["card"],)


def _phase(s: State, e: dict) -> None:
    s.phase = e["phase"]
    if "ap" in e:
        s.ap = e["ap"]
    if "card" in e:
        s.card = e["card"]


def _drifted(s: State, e: dict) -> None:
    drifted(s, parse(e["tile"]), parse(e["to"]), e.get("cost", 0))


def drifted(s: State, tile: tuple, place: tuple, cost: int) -> None:
    """`drifted` with its places as the places' tuples."""
    tiles = dict(s.tiles)
    tiles[place] = tiles.pop(tile)
    s.tiles = tiles
    old = s.geo  # the board before: its water is worth keeping (board.Geometry._inherit)
    s.geo = (old, tile, place) if old is not None and type(old) is not tuple else None
    s.ap -= cost
    s.card = None


def _scored(s: State, e: dict) -> None:
    s.score = tuple(map(add, s.score, e["points"]))


def _moved(s: State, e: dict) -> None:
    moved(s, e["player"], parse(e["from"]), parse(e["to"]), e.get("fresh"), e["cost"])


def moved(s: State, p: int, a: tuple, b: tuple, fresh, cost: int) -> None:
    """`moved` with its places as the places' tuples."""
    _move_herd(s, a, b, p)
    spent = s.spent.get(a, 0)
    if not fresh and spent:
        _add_spent(s, a, -1)
        _add_spent(s, b, 1)
    s.ap -= cost


def _rescued(s: State, e: dict) -> None:
    p = e["player"]
    for a, b in e["herds"]:
        a, b = parse(a), parse(b)
        _move_herd(s, a, b, p)
        if s.spent.get(a, 0):
            _add_spent(s, a, -1)
            _add_spent(s, b, 1)
    s.ap -= e["cost"]


def _born(s: State, e: dict) -> None:
    born(s, e["player"], parse(e["at"]), e["cost"])


def born(s: State, p: int, at: tuple, cost: int) -> None:
    """`born` with its place as the place's tuple."""
    _add_herds(s, at, p, 1)
    _add_spent(s, at, 2)  # T12: the parent has reproduced and the newborn may not yet
    s.stock = _set(s.stock, p, s.stock[p] - 1)
    s.ap -= cost


def _returned(s: State, e: dict) -> None:
    returned(s, e["player"], parse(e["at"]), e["count"])


def returned(s: State, p: int, at: tuple, k: int) -> None:
    """`returned` with its place as the place's tuple."""
    _add_herds(s, at, p, -k)
    s.stock = _set(s.stock, p, s.stock[p] + k)
    if at in s.spent:
        spent = dict(s.spent)
        spent[at] = min(spent[at], s.own(at, p))
        s.spent = spent


def _last_round(s: State, e: dict) -> None:
    s.last_round = e["turns"]


def _turn_ended(s: State, e: dict) -> None:
    s.ap, s.spent, s.card = 0, {}, None


def _game_over(s: State, e: dict) -> None:
    s.phase = "over"
    s.result = {"winners": list(e["winners"]), "table": e["table"], "scores": list(e["scores"])}


def _nothing(s: State, e: dict) -> None:
    """Events that only tell the table what happened (a drift that could not be made)."""


def _set(values: tuple, index: int, value) -> tuple:
    return values[:index] + (value,) + values[index + 1:]


def _add_herds(s: State, place: tuple, seat: int, k: int) -> None:
    herds = dict(s.herds)
    counts = herds.get(place) or (0,) * s.players
    counts = _set(counts, seat, counts[seat] + k)
    if any(counts):
        herds[place] = counts
    else:
        herds.pop(place, None)
    s.herds = herds


def _move_herd(s: State, a: tuple, b: tuple, seat: int) -> None:
    """One herd of `seat` from `a` to `b`: _add_herds twice, with one copy of the herds."""
    herds = dict(s.herds)
    for place, k in ((a, -1), (b, 1)):
        counts = herds.get(place) or (0,) * s.players
        counts = counts[:seat] + (counts[seat] + k,) + counts[seat + 1:]
        if any(counts):
            herds[place] = counts
        else:
            herds.pop(place, None)
    s.herds = herds


def _add_spent(s: State, place: tuple, k: int) -> None:
    spent = dict(s.spent)
    spent[place] = spent.get(place, 0) + k
    if spent[place] <= 0:
        del spent[place]
    s.spent = spent


FOLDS = {
    "setup": _setup,
    "card_dealt": _card_dealt,
    "placed": _placed,
    "turn_started": _turn_started,
    "card_played": _card_played,
    "card_drawn": _card_drawn,
    "hand_drawn": _hand_drawn,
    "hand_shown": _hand_shown,
    "phase": _phase,
    "drifted": _drifted,
    "drift_skipped": _nothing,
    "scored": _scored,
    "moved": _moved,
    "rescued": _rescued,
    "born": _born,
    "returned": _returned,
    "last_round": _last_round,
    "turn_ended": _turn_ended,
    "game_over": _game_over,
}

__all__ = ["apply", "apply_in_place", "replay"]
