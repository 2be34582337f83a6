"""The game state: plain data that copies cheaply and compares with ==.

Containers inside a State are never changed in place: the fold (fold.py)
replaces a dict or tuple whenever it changes one, so `copy()` is a shallow copy
of a dozen fields and two states share everything they have in common.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from .bitboard import geometry_of

POLE_KIND = "pole"
MOUNTAIN, STEPPE, WOODS, METEORITE = "mountain", "steppe", "woods", "meteorite"
UNKNOWN = "unknown"  # mirror games: a card the table holds face down, unknown to the engine
LANDSCAPES = (MOUNTAIN, STEPPE, WOODS)

# How a seat's drift tiles are listed and drawn (legal.py): 1, the tiles' order and a shuffle of them
# (every game set up before listing 2; a set-up event without "listing" is 1); 2, the places' order,
# straight from the bits, and one draw a tile tried. Stored games keep theirs: the bots of a game decide
# with its own listing, so a game goes on as it began.
LISTING = 2

# T2: herds a tile can hold; the pole holds 3 like the steppe.
CAPACITY = {MOUNTAIN: 2, STEPPE: 3, WOODS: 4, POLE_KIND: 3}


@dataclass(frozen=True)
class Rules:
    """The numbers that differ with the player count (T2, T6, T7, T12, T16, T21)."""

    herds: int            # T7: 15 each; T21: 10 with two players
    action_points: int    # T12: 4; T21: 3 with two players
    last_round_points: int  # T17: 2
    interim_scoring: bool   # T16; none with two players (T21)
    deck2_size: int         # T6 / T21: cards of deck 2, the Meteorite Impact among them


def rules_for(players: int) -> Rules:
    """The numbers for a table of `players` (2-5)."""
    found = _RULES.get(players)
    if found is None:
        found = _RULES[players] = _rules_for(players)
    return found


def _rules_for(players: int) -> Rules:
    if players == 2:
        return Rules(herds=10, action_points=3, last_round_points=2, interim_scoring=False, deck2_size=5)
    return Rules(herds=15, action_points=4, last_round_points=2, interim_scoring=True, deck2_size=9)


_RULES: dict = {}  # players -> Rules (frozen, so one instance serves every state)


@dataclass
class State:
    """Everything the rules need. Places are (q, r) tuples; seats are 0..players-1, clockwise."""

    players: int = 0
    tiles: dict = field(default_factory=dict)   # place -> landscape or "pole"
    herds: dict = field(default_factory=dict)   # place -> tuple of herd counts per seat (land or water)
    stock: tuple = ()                           # herds per seat not on the board
    score: tuple = ()                           # victory points per seat
    hands: tuple = ()                           # each seat's one card (hidden from the others)
    deck: tuple = ()                            # top card first (hidden from everyone)
    seen: tuple = ()                            # cards shown face up so far, in order (public)
    phase: str = "setup"                        # setup, place, start, drift, actions, over
    current: int = 0                            # seat whose decision it is
    placements: int = 0                         # herd pairs placed so far (T8)
    ap: int = 0                                 # action points left this turn (T12)
    card: str | None = None                     # landscape the pending drift must use (T9)
    played_hand: bool = False                   # phase 4 draws only if the hand card was played (T15)
    spent: dict = field(default_factory=dict)   # place -> current seat's herds that may not reproduce (T12)
    last_round: int | None = None               # turns of the last round still to start (T17)
    turn: int = 0                               # turns started, for screens and logs
    result: dict | None = None                  # final table and winners (T18, T19)
    mirror: bool = False                        # a physical table's game: its cards are named in commands
    hand_draw: tuple | None = None              # mirror: (seat, cards left before) of the phase-4 draw just made (T15)
    listing: int = 1                            # how drift tiles are listed and drawn (LISTING)
    geo: object = field(default=None, compare=False, repr=False)  # cached board geometry, or (geometry, tile, place) of the drift just folded

    @property
    def rules(self) -> Rules:
        """The player-count numbers for this table."""
        return _RULES.get(self.players) or rules_for(self.players)

    def copy(self) -> "State":
        """A copy sharing every (never mutated) container with this state."""
        twin = object.__new__(State)
        twin.__dict__ = self.__dict__.copy()
        return twin

    def own(self, place: tuple, seat: int) -> int:
        """How many herds of `seat` are at `place` (on a tile or swimming)."""
        counts = self.herds.get(place)
        return counts[seat] if counts else 0

    def total(self, place: tuple) -> int:
        """How many herds of all seats are at `place`."""
        counts = self.herds.get(place)
        return sum(counts) if counts else 0

    def geometry(self):
        """Land masses, surrounding water and drift candidates for these tiles (cached)."""
        geo = self.geo
        if geo is None or type(geo) is tuple:
            # After a drift `geo` is (the board before, the tile, its place) (fold.py): the board
            # before and the drift name the new board exactly, so that is its key, with no need
            # to read every tile; the new board starts from what the board before knew.
            key = geo if geo else frozenset(self.tiles.items())
            found = _GEOMETRIES.get(key)
            if found is None:
                found = _OLDER.get(key)
                if found is None:
                    found = geometry_of(self.tiles, *geo) if geo else geometry_of(self.tiles)
                    if geo and _first_sight(key):
                        self.geo = found
                        return found
                _remember(key, found)
            self.geo = geo = found
        return geo


# Geometry depends on the tiles alone and never changes once made, so states that
# share an arrangement (a search's many copies, replays) share one. Keys: the tiles (a board
# met afresh), or (board before, tile, place) for a board one drift from a known one.
_GEOMETRIES: dict = {}
_OLDER: dict = {}  # the boards known before _GEOMETRIES last filled up: kept while met again
CACHED = 512       # boards per generation: bots look at many boards; keep the cache (and memory) bounded


_MET: set = set()  # hashes of the drifts met once (board before, tile, place): remembered when met again
MET = 4096        # hashes kept at most


def forget_boards() -> None:
    """Empty the cache, as in a process just started (benches, tests)."""
    _GEOMETRIES.clear()
    _OLDER.clear()
    _MET.clear()


def _first_sight(key) -> bool:
    """Whether a board made by a drift is met for the first time (then not cached: a game's boards
    are met once; a search's come back, and are cached the second time). A hash, not the key, is
    noted: the key would keep the board before alive; two keys of one hash only cache a board early."""
    h = hash(key)
    if h in _MET:
        return False
    if len(_MET) >= MET:
        _MET.clear()
    _MET.add(h)
    return True


def _remember(key, geometry) -> None:
    """Cache a board. When the cache is full it becomes the older generation and a new one starts:
    the boards a search keeps coming back to (the tree's own) move on, the ones it met once go."""
    global _GEOMETRIES, _OLDER
    if len(_GEOMETRIES) >= CACHED:
        _OLDER, _GEOMETRIES = _GEOMETRIES, {}  # (the dicts change hands: nothing copied)
    _GEOMETRIES[key] = geometry
