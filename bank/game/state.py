"""The game state and the fold that builds it from events.

`GameState.apply(event)` is the only place where state changes, live or on
replay. Events carry every number they need (amounts, die faces, levels), so
the fold never reads config.toml and never rolls a die.

A committed state is never changed again: a command decides on a
`Draft`, which copies a top-level field only when the rules first touch it, and
its `commit()` is a new state sharing every untouched field with the old one.
For that to be safe the fold changes the top-level containers only, never what
they hold: an account, a team's building list or an event record is replaced
by a new one, not edited, because the old one may belong to a committed state.
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields

from bank.game.config_model import GameConfig

SUPPLY = "supply"    # where every token comes from (the box of tokens, refills)
RESERVE = "reserve"  # the bank's bowls (R8)

# Events that record what happened for screens and the report but move nothing.
INFORMATIONAL = frozenset({"dice_rolled", "low_stock", "shortfall", "fight", "trade", "exchange", "joker_redeemed", "award", "inventory"})


def team_account(team: str) -> str:
    return f"team:{team}"


def track_account(track: str) -> str:
    return f"track:{track}"


def event_account(event: str) -> str:
    return f"event:{event}"


@dataclass
class GameState:
    """Everything the rules need to decide the next command. Plain JSON data."""

    balances: dict = field(default_factory=dict)         # account -> {resource: n}
    reputation: dict = field(default_factory=dict)       # team -> points
    buildings: dict = field(default_factory=dict)        # team -> [building ids, in build order]
    animals: dict = field(default_factory=dict)          # team -> [animal ids, in purchase order]
    extra_cards: dict = field(default_factory=dict)      # team -> [card ids bought, e.g. "pirate-2"]
    tracks: dict = field(default_factory=dict)           # track -> level
    cooldowns: dict = field(default_factory=dict)        # "team/card" -> game second when free again
    last_harvest: dict = field(default_factory=dict)     # "team/card" -> game second of its last harvest
    options: dict = field(default_factory=dict)          # optional rule -> on/off
    second_pirate_cost: dict = field(default_factory=dict)
    rate: dict = field(default_factory=dict)             # {"tokens": 10, "points": 1} (R32)
    events: dict = field(default_factory=dict)           # event id -> its record (R33)
    event_counter: int = 0
    clock: dict = field(default_factory=dict)            # status, session, elapsed, since, session_over
    ended: dict | None = None                            # {"reason", "winners", "elapsed"} (R35)
    reversed: list = field(default_factory=list)         # journal seqs already reversed

    @classmethod
    def initial(cls, config: GameConfig) -> "GameState":
        """The empty game before its setup command: no tokens anywhere yet."""
        return cls(
            balances={},
            reputation={t: 0 for t in config.teams},
            buildings={t: [] for t in config.teams},
            animals={t: [] for t in config.teams},
            extra_cards={t: [] for t in config.teams},
            tracks={t: 0 for t in config.tracks},
            options=dict(config.options),
            second_pirate_cost=dict(config.second_pirate_cost),
            rate={"tokens": config.exchange_tokens, "points": config.exchange_points},
            clock={"status": "setup", "session": 0, "elapsed": 0.0, "since": None, "session_over": False},
        )

    # -- reading -------------------------------------------------------------

    def balance(self, account: str, resource: str) -> int:
        return self.balances.get(account, {}).get(resource, 0)

    def stock(self, team: str) -> dict:
        """A team's tokens, per resource (zeros left out)."""
        return dict(self.balances.get(team_account(team), {}))

    def elapsed(self, now: float) -> float:
        """Game seconds played at wall time `now`; a pause stops it (R34).

        Never goes backwards, even if the machine's clock does (a Raspberry Pi
        without network time may wake up in the past after a power cut).
        """
        clock = self.clock
        if clock["status"] != "running":
            return clock["elapsed"]
        return clock["elapsed"] + max(0.0, now - clock["since"])

    def open_event_ids(self) -> tuple:
        """Ids of the game events still open, in opening order (R33).

        Asked before every command (are deadlines due?) and for every page's board, so
        it must not read the whole history of a long game each time: a committed state
        keeps the answer, handed on by `Draft.commit` while commands leave the events alone.
        """
        known = self.__dict__.get("_open_ids")
        return _open_ids(self.events) if known is None else known

    def owns_animal(self, animal: str) -> str | None:
        """The team owning a unique animal, if any (R29)."""
        return next((t for t, owned in self.animals.items() if animal in owned), None)

    # -- the fold ------------------------------------------------------------

    def apply(self, event: dict) -> None:
        """Apply one event; unknown types mean a journal this code cannot read."""
        kind = event["type"]
        if kind in INFORMATIONAL:
            return
        handler = _APPLY.get(kind)
        if handler is None:
            raise ValueError(f"unknown event type {kind!r} in the journal")
        handler(self, event)

    def to_dict(self) -> dict:
        """The fields as plain JSON data, an independent copy (the caller may change it)."""
        return _clone(self.plain())

    def plain(self) -> dict:
        """The fields as a dict sharing this state's data: to encode (snapshots), never to change."""
        return {name: getattr(self, name) for name in FIELDS}

    @classmethod
    def from_dict(cls, data: dict) -> "GameState":
        state = cls(**_clone(data))
        # Snapshots are stored with sorted keys ("ev10" before "ev2"): the board lists events in
        # opening order (R33), so put them back in it.
        state.events = dict(sorted(state.events.items(), key=lambda item: _opening_number(item[0])))
        return state

    def copy(self) -> "GameState":
        """An independent deep copy (tests keep one to compare with after a command)."""
        twin = object.__new__(GameState)
        twin.__dict__ = _clone(self.plain())
        return twin

    def draft(self) -> "Draft":
        """A working state for one command: copies each field the first time it is read."""
        return Draft(self)


FIELDS = tuple(f.name for f in fields(GameState))


class Draft(GameState):
    """A command's working state over a committed `base`, copied field by field on first touch.

    Deciding a command then costs what the command touches, not what the game has
    accumulated (closed events, reversals...): a harvest never copies the events.
    Each field is copied one level deep (a new dict or list holding the same items),
    enough because the fold replaces the items it changes (module docstring). The base
    is never written to, so a refused command, whose draft is dropped, changed nothing.
    """

    def __init__(self, base: GameState):  # no dataclass __init__: fields come from the base
        self.__dict__["_base"] = base
        # A field with a plain default (event_counter, ended) is also a class attribute, which
        # Python finds before __getattr__: take those from the base now (a number, or a dict
        # the fold replaces whole).
        for name in _CLASS_DEFAULTS:
            self.__dict__[name] = base.__dict__[name]

    def __getattr__(self, name: str):
        # Python calls this only for a name not yet in the instance: the field's first touch.
        if name not in _FIELD_SET:
            raise AttributeError(name)
        value = getattr(self.__dict__["_base"], name)
        if type(value) is dict:
            value = dict(value)
        elif type(value) is list:
            value = list(value)
        self.__dict__[name] = value
        return value

    def commit(self) -> GameState:
        """The new state: the fields this command touched, the others shared with the base."""
        mine, base = self.__dict__, self.__dict__["_base"].__dict__
        state = object.__new__(GameState)
        state.__dict__ = {name: mine[name] if name in mine else base[name] for name in FIELDS}
        # Derived, kept only on states that never change again (open_event_ids).
        known = base.get("_open_ids")
        state.__dict__["_open_ids"] = known if known is not None and "events" not in mine else _open_ids(state.events)
        return state

    def touched(self) -> set:
        """The container fields copied so far (tests check a refused command shares none of them)."""
        return set(self.__dict__) - {"_base"} - set(_CLASS_DEFAULTS)


def _open_ids(events: dict) -> tuple:
    return tuple(e for e, record in events.items() if record["status"] == "open")


_FIELD_SET = frozenset(FIELDS)
_CLASS_DEFAULTS = tuple(name for name in FIELDS if hasattr(GameState, name))


def _clone(value):
    """Deep copy of plain JSON-like data (dicts, lists, tuples, scalars).

    The state holds nothing else, so this does what copy.deepcopy did without its
    memo and per-type dispatch: about ten times faster, and it runs on every command.
    """
    kind = type(value)
    if kind is dict:
        return {k: v if type(v) in _ATOMS else _clone(v) for k, v in value.items()}
    if kind is list:
        return [v if type(v) in _ATOMS else _clone(v) for v in value]
    if kind is tuple:
        return tuple(_clone(v) for v in value)
    return value


_ATOMS = frozenset({str, int, float, bool, type(None)})  # immutable: shared, not copied


def _transfer(s: GameState, e: dict) -> None:
    res, n, balances = e["resource"], e["amount"], s.balances
    for name, change in ((e["from"], -n), (e["to"], n)):
        account = dict(balances.get(name, ()))  # a new record: the old one may be a committed state's
        held = account.get(res, 0) + change
        if held:
            account[res] = held
        else:
            account.pop(res, None)
        if account:
            balances[name] = account
        else:
            balances.pop(name, None)  # an emptied account is no account: equal tokens, equal states


def _without(items: list, item) -> list:
    """A new list without the first `item` (ValueError if absent, as list.remove)."""
    rest = list(items)
    rest.remove(item)
    return rest


def _reputation(s: GameState, e: dict) -> None:
    s.reputation[e["team"]] += e["points"]


def _building_built(s: GameState, e: dict) -> None:
    s.buildings[e["team"]] = [*s.buildings[e["team"]], e["building"]]


def _building_removed(s: GameState, e: dict) -> None:
    s.buildings[e["team"]] = _without(s.buildings[e["team"]], e["building"])


def _animal_bought(s: GameState, e: dict) -> None:
    s.animals[e["team"]] = [*s.animals[e["team"]], e["animal"]]


def _animal_returned(s: GameState, e: dict) -> None:
    s.animals[e["team"]] = _without(s.animals[e["team"]], e["animal"])


def _track_raised(s: GameState, e: dict) -> None:
    s.tracks[e["track"]] = e["level"]


def _track_lowered(s: GameState, e: dict) -> None:
    s.tracks[e["track"]] = e["level"] - 1


def _harvested(s: GameState, e: dict) -> None:
    s.last_harvest[f"{e['team']}/{e['card']}"] = e["clock"]


def _cooldown(s: GameState, e: dict) -> None:
    s.cooldowns[f"{e['team']}/{e['card']}"] = e["until"]


def _harvest_undone(s: GameState, e: dict) -> None:
    s.last_harvest.pop(f"{e['team']}/{e['card']}", None)


def _cooldown_ended(s: GameState, e: dict) -> None:
    s.cooldowns.pop(f"{e['team']}/{e['card']}", None)


def _card_added(s: GameState, e: dict) -> None:
    s.extra_cards[e["team"]] = [*s.extra_cards[e["team"]], e["card"]]


def _card_removed(s: GameState, e: dict) -> None:
    s.extra_cards[e["team"]] = _without(s.extra_cards[e["team"]], e["card"])


def _option_set(s: GameState, e: dict) -> None:
    s.options[e["option"]] = e["value"]
    if "cost" in e:
        s.second_pirate_cost = dict(e["cost"])


def _rate_set(s: GameState, e: dict) -> None:
    s.rate = {"tokens": e["tokens"], "points": e["points"]}


def _opening_number(event_id: str) -> tuple:
    """Sort key of an event id "ev<n>" (bank/game/rules/game_events.py) by n; any other id after them."""
    number = event_id[2:]
    return (0, int(number), "") if event_id.startswith("ev") and number.isdigit() else (1, 0, event_id)


def _event_opened(s: GameState, e: dict) -> None:
    s.event_counter += 1
    s.events[e["event"]] = {
        "title": e["title"], "accepts": list(e["accepts"]), "target": e.get("target"),
        "deadline": e.get("deadline"), "rewards": list(e["rewards"]), "given": {}, "status": "open",
        "ranking": None,
    }


def _contributed(s: GameState, e: dict) -> None:
    record = s.events[e["event"]]
    given = dict(record["given"])
    given[e["team"]] = given.get(e["team"], 0) + e["amount"]
    if given[e["team"]] == 0:
        del given[e["team"]]
    s.events[e["event"]] = {**record, "given": given}


def _event_closed(s: GameState, e: dict) -> None:
    s.events[e["event"]] = {**s.events[e["event"]], "status": "closed", "ranking": e["ranking"]}


def _clock_started(s: GameState, e: dict) -> None:
    s.clock.update(status="running", session=1, since=e["at"], session_over=False)


def _clock_paused(s: GameState, e: dict) -> None:
    s.clock.update(status="paused", elapsed=e["elapsed"], since=None)
    if "cause" in e:  # held by the bank after a jump of the machine's clock: what it saw (R34)
        s.clock["held"] = e["cause"]


def _clock_resumed(s: GameState, e: dict) -> None:
    if s.clock["session_over"]:
        s.clock["session"] += 1
    s.clock.update(status="running", since=e["at"], session_over=False)
    s.clock.pop("held", None)


def _session_ended(s: GameState, e: dict) -> None:
    s.clock.update(status="paused", elapsed=e["elapsed"], since=None, session_over=True)


def _game_ended(s: GameState, e: dict) -> None:
    s.clock.update(status="ended", elapsed=e["elapsed"], since=None)
    s.clock.pop("held", None)
    s.ended = {"reason": e["reason"], "winners": list(e["winners"]), "elapsed": e["elapsed"]}


def _reversed(s: GameState, e: dict) -> None:
    s.reversed.append(e["seq"])


_APPLY = {
    "transfer": _transfer,
    "reputation": _reputation,
    "building_built": _building_built,
    "building_removed": _building_removed,
    "animal_bought": _animal_bought,
    "animal_returned": _animal_returned,
    "track_raised": _track_raised,
    "track_lowered": _track_lowered,
    "harvested": _harvested,
    "cooldown": _cooldown,
    "harvest_undone": _harvest_undone,
    "cooldown_ended": _cooldown_ended,
    "card_added": _card_added,
    "card_removed": _card_removed,
    "option_set": _option_set,
    "rate_set": _rate_set,
    "event_opened": _event_opened,
    "contributed": _contributed,
    "event_closed": _event_closed,
    "clock_started": _clock_started,
    "clock_paused": _clock_paused,
    "clock_resumed": _clock_resumed,
    "session_ended": _session_ended,
    "game_ended": _game_ended,
    "reversed": _reversed,
}
