"""Hex geometry in axial coordinates (q, r), after Red Blob Games' hexagon guide.

The South Pole sits at (0, 0). A place is a tuple (q, r); the third cube
coordinate is s = -q - r. The board is unbounded (T4 Decision), so nothing here
knows a board size.
"""

from __future__ import annotations

POLE = (0, 0)

# The six directions in cyclic order: consecutive entries are neighbours of each
# other, which the "one run of water around a place" test in board.py relies on.
DIRECTIONS = ((1, 0), (1, -1), (0, -1), (-1, 0), (-1, 1), (0, 1))

class _Table(dict):
    """A cache filled on first look-up: `TABLE[place]` costs one dict look-up once known."""

    __slots__ = ("make",)

    def __init__(self, make):
        super().__init__()
        self.make = make

    def __missing__(self, place):
        found = self[place] = self.make(place)
        return found


# One tuple object per place: a dict or set finds a key that is the very object it is asked
# for without comparing coordinates, so the tables and the fold hand out these. `parse` hands out
# a known place's object but adds none: the places in a command come from anyone holding a seat
# (a seat anyone can mint), and each new one would stay in this table for the process's life.
class _Places(_Table):
    """PLACES: a place's one tuple, each also under its q and r in AT (a look-up by two integers)."""

    __slots__ = ()

    def __missing__(self, place):
        found = self[place] = place
        q, r = place
        if type(q) is int and type(r) is int:
            AT.setdefault(q, {})[r] = place
        return found


AT: dict = {}  # q -> r -> the place's one tuple, for every place in PLACES: `parse` asks by two integers
PLACES = _Places(None)
PLACES[POLE]  # (the pole's one tuple is POLE itself)


def _neighbours_of(place: tuple) -> tuple:
    q, r = place
    return tuple(PLACES[(q + dq, r + dr)] for dq, dr in DIRECTIONS)


def _pole_distance(place: tuple) -> int:
    q, r = place
    return (abs(q) + abs(r) + abs(q + r)) // 2


def _outward_of(place: tuple) -> tuple:
    return tuple(sorted(NEIGHBOURS[place], key=FROM_POLE.__getitem__))


# The hot loops (board.py, listing.py) index these directly: NEIGHBOURS[p], FROM_POLE[p].
NEIGHBOURS = _Table(_neighbours_of)
FROM_POLE = _Table(_pole_distance)
# A place's rank in the places' order (q, then r) as one integer, for sorting by C comparisons:
# `places.sort(key=ORDER.__getitem__)` orders as `places.sort()` does (|r| stays far below 2**20).
ORDER = _Table(lambda place: (place[0] << 21) + place[1])
# The neighbours nearest the pole first, farthest last: a walk that takes the last one first
# heads for the open sea (board.py).
OUTWARD = _Table(_outward_of)


def neighbours(place: tuple) -> tuple:
    """The six places sharing an edge with `place`, in cyclic order (cached)."""
    return NEIGHBOURS[place]


def named_neighbours(place: tuple) -> tuple:
    """`neighbours` of a place a command named: the cached six if the place is known, else six
    computed and forgotten. A seat anyone can mint may name any place (T4: the board is unbounded);
    caching it would keep it, and its six neighbours in PLACES, for the process's life."""
    found = NEIGHBOURS.get(place)
    if found is None:
        q, r = place
        found = tuple((q + dq, r + dr) for dq, dr in DIRECTIONS)
    return found


def named_distance(place: tuple) -> int:
    """`distance(place)` from the pole for a place a command named, cached only if already known."""
    found = FROM_POLE.get(place)
    return _pole_distance(place) if found is None else found


def distance(place: tuple, other: tuple = POLE) -> int:
    """Hex distance: steps between hex centres; the pole's own distance is 0 (T4)."""
    if other is POLE:
        return FROM_POLE[place]
    dq = place[0] - other[0]
    dr = place[1] - other[1]
    return (abs(dq) + abs(dr) + abs(dq + dr)) // 2


_RINGS: dict = {}


def ring(radius: int) -> list:
    """The places at exactly `radius` steps from the pole, walking round the ring (T1)."""
    if radius not in _RINGS:
        _RINGS[radius] = tuple(_walk_ring(radius))
    return list(_RINGS[radius])


def _walk_ring(radius: int) -> list:
    if radius == 0:
        return [POLE]
    q, r = -radius, radius  # start at DIRECTIONS[4] * radius, then walk each side
    places = []
    for dq, dr in DIRECTIONS:
        for _ in range(radius):
            places.append(PLACES[(q, r)])
            q, r = q + dq, r + dr
    return places


def disc(radius: int) -> list:
    """Every place within `radius` steps of the pole, ring by ring."""
    return [p for k in range(radius + 1) for p in ring(k)]


def label(place) -> str:
    """A place as people read it in messages: '3,-1'."""
    return f"{place[0]},{place[1]}"


def parse(value) -> tuple:
    """A place from a command or an event: [q, r], (q, r) or '3,-1'; ValueError otherwise."""
    if type(value) in (list, tuple) and len(value) == 2:
        q, r = value
        if type(q) is int and type(r) is int:  # the usual case, without the conversions below
            row = AT.get(q)
            if row is not None:  # a known place: its tuple, with no tuple made and hashed to find it
                found = row.get(r)
                if found is not None:
                    return found
            return (q, r)
    if isinstance(value, str):
        parts = value.split(",")
    elif isinstance(value, (list, tuple)):
        parts = list(value)
    else:
        raise ValueError(value)
    if len(parts) != 2:
        raise ValueError(value)
    place = tuple(int(x) for x in parts)
    return PLACES.get(place, place)
