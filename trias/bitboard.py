"""Board geometry as bits: a board's tiles, land masses and water as integers on a fixed grid.

A place (q, r) with both coordinates in -16..15 is bit `(q + 16) * 32 + (r + 16)` of a 1,024-bit
integer, so the six neighbours of every place of a set are six shifts of that integer (by 1, 31
and 32 either way) and a flood fill is a few shifts a step: land masses, surrounding water, coasts
and drift places (T5, T10) cost a handful of integer operations instead of a walk place by place.
Ascending bits are the places' order (q, then r), the order drift places are listed in.

`geometry_of` makes a board: this one when every tile lies within -14..13 on both axes (a margin
of two to the grid's edge, whose ring is always open sea), else `board.FloodGeometry`, the same
answers place by place, for the rare board that drifted that far (T4: the board is unbounded).
Both answer in places (q, r); the bits stay inside.
"""

from __future__ import annotations

from .board import _RUNS, FloodGeometry
from .hexes import FROM_POLE, NEIGHBOURS, PLACES, POLE, ring

WIDTH = 32   # places a row (one q); the grid is WIDTH x WIDTH
SHIFT = 16   # (q, r) = (0, 0), the pole, is row 16, column 16
LOW, HIGH = -14, 13  # a bit board holds tiles within this range on q and r only
GRID = (1 << WIDTH * WIDTH) - 1

PLACE: list = []          # bit index -> the place's one tuple (hexes.PLACES)
BIT: dict = {}            # place -> its bit, for every place of the grid
INSIDE: dict = {}         # place -> its bit, for the places a bit board's tiles may lie on
NEAR: dict = {}           # place -> the bits of its neighbours within the grid
BORDER = 0                # the grid's outer ring: open sea whatever the board
for _q in range(-SHIFT, WIDTH - SHIFT):
    for _r in range(-SHIFT, WIDTH - SHIFT):
        _p = PLACES[(_q, _r)]
        PLACE.append(_p)
        _b = BIT[_p] = 1 << len(PLACE) - 1
        if LOW <= _q <= HIGH and LOW <= _r <= HIGH:
            INSIDE[_p] = _b
        if _q in (-SHIFT, WIDTH - SHIFT - 1) or _r in (-SHIFT, WIDTH - SHIFT - 1):
            BORDER |= _b
for _p in PLACE:
    NEAR[_p] = sum(BIT.get(n, 0) for n in NEIGHBOURS[_p])
POLE_BIT = BIT[POLE]
NOT_POLE = GRID ^ POLE_BIT


def _below(value) -> list:
    """For k in -3 * WIDTH .. 3 * WIDTH - 1 (at k + 3 * WIDTH): the grid's places whose value(q, r) is below k."""
    each: dict = {}
    for p, b in BIT.items():
        v = value(*p)
        each[v] = each.get(v, 0) | b
    found, below = [], 0
    for k in range(-3 * WIDTH, 3 * WIDTH):
        found.append(below)
        below |= each.get(k, 0)
    return found


# FARTHER[d]: the grid's places more than d steps from the pole (T10: a tile drifts farther out).
FARTHER = [GRID & ~b for b in _below(lambda q, r: FROM_POLE[(q, r)])[3 * WIDTH + 1:]]
# Beyond the tiles' extent along an axis a straight line outward meets no tile: open sea. The
# places below (above) k on q, r and s = q + r, indexed by k + 3 * WIDTH.
_Q_BELOW, _R_BELOW, _S_BELOW = _below(lambda q, r: q), _below(lambda q, r: r), _below(lambda q, r: q + r)
_Q_ABOVE, _R_ABOVE, _S_ABOVE = _below(lambda q, r: -q), _below(lambda q, r: -r), _below(lambda q, r: -q - r)
_OUTSIDE_BOX: dict = {}   # (q0, q1, r0, r1, s0, s1) -> the grid's places outside that box


def _outside_box(box: tuple) -> int:
    found = _OUTSIDE_BOX.get(box)
    if found is None:
        q0, q1, r0, r1, s0, s1 = box
        k = 3 * WIDTH
        found = (_Q_BELOW[q0 + k] | _Q_ABOVE[k - q1] | _R_BELOW[r0 + k] | _R_ABOVE[k - r1]
                 | _S_BELOW[s0 + k] | _S_ABOVE[k - s1] | BORDER)
        if len(_OUTSIDE_BOX) < 4096:
            _OUTSIDE_BOX[box] = found
    return found


def dilate(x: int) -> int:
    """The places of `x` and their neighbours (within the grid)."""
    a, b = x | x << 1, x | x >> 1  # (each place and its neighbour at -1, at +1 along r)
    return (a | b | a >> 32 | b << 32) & GRID  # and those one row along q: +32 and +31, -32 and -31


def fill(x: int, region: int) -> int:
    """The places of `region` connected to `x` (a subset of it) through `region` (T5)."""
    while True:
        a, b = x | x << 1, x | x >> 1  # (dilate's nine operations, not twelve)
        y = (a | b | a >> 32 | b << 32) & region
        if y == x:
            return x
        x = y


_PLACE_LISTS: dict = {}  # the bits of some drift places -> places(those bits)


def nth_place(x: int, k: int) -> tuple:
    """The k-th place of `x` (from 0) in the places' order: places(x)[k]."""
    low = (x & -x).bit_length() - 1
    x >>= low
    for _ in range(k):
        x &= x - 1
    return PLACE[low + (x & -x).bit_length() - 1]


def places(x: int) -> list:
    """The places of `x` as tuples, in the places' order."""
    found = []
    if x:
        low = (x & -x).bit_length() - 1
        x >>= low
        append, place = found.append, PLACE
        while x:
            top = x.bit_length() - 1
            append(place[low + top])
            x ^= 1 << top
        found.reverse()
    return found


def components(x: int) -> list:
    """The edge-connected groups of the places of `x` (T5), by lowest place."""
    groups = []
    while x:
        group = fill(x & -x, x)
        groups.append(group)
        x ^= group  # (positive operands: `& ~` would make a negative integer first)
    return groups


def geometry_of(tiles: dict, parent=None, tile=None, place=None):
    """The geometry of `tiles`, from `parent` (the board before `tile` drifted to `place`) when given."""
    if type(parent) is BitGeometry:
        if place in INSIDE and tile in parent.tiles and place not in parent.tiles and tile not in tiles \
                and place in tiles:
            return BitGeometry(tiles, parent, tile, place)
        parent = None
    if parent is None:
        bits = 0
        for p in tiles:
            b = INSIDE.get(p)
            if b is None:
                return FloodGeometry(tiles)
            bits |= b
        return BitGeometry(tiles, bits=bits)
    return FloodGeometry(tiles, parent, tile, place)


class BitGeometry:
    """Land masses, surrounding water and interior seas of one arrangement of tiles, as bits.

    Made at once: the tiles (`T`), each land mass (`mass_bits`, in the masses' numbering),
    the surrounding water within the grid (`O`) and the interior seas (`S`). A board one drift
    from a known one (`parent`, the tile and its new place) carries the land masses that did
    not change, and its surrounding water when the new place cuts no water off (its water
    neighbours in one run round it, T5). `masses` and `mass_of` (places) are made on first use,
    or from the board before's when it has them.
    """

    __slots__ = ("tiles", "T", "_S", "_box", "_wet_from", "mass_bits", "main", "_masses", "_mass_of", "_link",
                 "_places", "_bits", "_pieces", "_piece_sets", "_kinds", "_take", "_herds", "_kind_bits")

    def __init__(self, tiles: dict, parent: "BitGeometry | None" = None, tile=None, place=None, bits: int = 0):
        self.tiles = tiles
        self._masses = self._mass_of = None
        self._bits: dict = {}
        self._pieces: dict = {}
        self._places = self._piece_sets = self._kinds = None  # (dicts made on first use: most boards need none)
        self._take = self._herds = None
        self._kind_bits = None
        # The water is worked out on first use (a search's judgements need only the land masses).
        self._S = self._box = self._wet_from = None
        if parent is None:
            self.T = bits
            self.mass_bits = components(bits)
            self._link = None
        else:
            tb, pb = BIT[tile], BIT[place]
            self.T = parent.T ^ tb | pb
            if parent._S is not None or parent._wet_from is None:  # (no chain of boards waiting for water)
                self._wet_from = (parent, tb, pb, place)
            self._drift_masses(parent, tile, place, tb, pb)
            kinds = parent._kind_bits
            if kinds is not None:  # the board before's, with the tile moved
                kinds = dict(kinds)
                kind = tiles[place]
                kinds[kind] = kinds.get(kind, 0) ^ tb | pb
                self._kind_bits = kinds
        main = parent.main if parent is not None else None
        if main is not None and main < len(self.mass_bits) and self.mass_bits[main] & POLE_BIT:
            self.main = main  # the pole never drifts: its mass mostly keeps its number
        else:
            main = None
            for i, m in enumerate(self.mass_bits):
                if m & POLE_BIT:
                    main = i
                    break
            self.main = main

    def _wet(self) -> int:
        """The interior seas (T5), as bits, worked out now: none when the board before had none and
        the new place cuts no water off, else by a flood fill of the surrounding water. Everything
        else on the grid that is not land is surrounding water, so the board keeps the seas only:
        `closed` (land and seas) spans the tiles' rows, where the surrounding water spans the grid."""
        source, tiles = self._wet_from, self.tiles
        if source is not None:
            parent, tb, pb, place = source
            seas = parent._S
            if seas is None:
                seas = parent._wet()
            a, b, c, d, e, f = NEIGHBOURS[place]
            if _RUNS[(a not in tiles) | (b not in tiles) << 1 | (c not in tiles) << 2
                     | (d not in tiles) << 3 | (e not in tiles) << 4 | (f not in tiles) << 5] <= 1:
                # The new place's water in one run round it: a way through the place goes round it, so
                # nothing is cut off. No interior sea before: none now.
                if seas:
                    # The tile's old place bordered the surrounding water (T10) and opens every sea it
                    # touched; the others stay seas. (Anything else, not a drift the rules allow: afresh.)
                    closed = parent.T | seas
                    freed = tb | fill(dilate(tb) & seas, seas) if dilate(tb) & seas else tb
                    if NEAR[PLACE[tb.bit_length() - 1]] & ~closed and (pb & ~closed or pb & freed):
                        seas ^= seas & freed
                        self._S = seas
                        self._wet_from = None
                        return seas
                else:
                    self._S = 0
                    self._wet_from = None
                    return 0
        box = self._box
        if box is None and source is not None and source[0]._box is not None:  # the box before, and the place
            q0, q1, r0, r1, s0, s1 = source[0]._box
            q, r = source[3]
            self._box = box = (min(q0, q), max(q1, q), min(r0, r), max(r1, r), min(s0, q + r), max(s1, q + r))
        if box is None:
            qs = [q for q, _ in tiles]
            rs = [r for _, r in tiles]
            ss = [q + r for q, r in tiles]
            self._box = box = (min(qs), max(qs), min(rs), max(rs), min(ss), max(ss))
        water = GRID ^ self.T
        seas = self._S = water ^ fill(_outside_box(box) & water, water)
        self._wet_from = None
        return seas

    @property
    def S(self) -> int:  # noqa: N802 (a board's bits are capitals: T, S)
        """The interior seas, as bits (T5)."""
        found = self._S
        return self._wet() if found is None else found

    @property
    def closed(self) -> int:
        """Land and interior seas, as bits: every other place of the grid is surrounding water (T5)."""
        found = self._S
        if found is None:
            found = self._wet()
        return self.T | found if found else self.T

    @property
    def O(self) -> int:  # noqa: N802
        """The surrounding water within the grid, as bits (T5)."""
        return GRID ^ self.closed

    def _drift_masses(self, parent, tile, place, tb, pb) -> None:
        """The land masses once `tile` lies at `place` (T5), numbered as board._drifted_masses numbers them."""
        masses = parent.mass_bits
        home = parent._home(tb)
        parts = parent._pieces_bits(tile, home)
        near = NEAR[place]
        # The other land masses the place touches: mostly none (no tile next to it off the home mass).
        into = [i for i, m in enumerate(masses) if i != home and m & near] if (parent.T ^ masses[home]) & near else []
        touched = [k for k, part in enumerate(parts) if part & near]
        # The masses as places come from the board before's when asked for (a search judging its
        # boards): a few set operations rather than every tile again. Only from a board that needs
        # no board before it itself, so that no chain of boards is kept.
        if not into and touched and len(parts) == 1:  # the usual drift: the mass lost the tile, gained the place
            found = list(masses)
            found[home] = parts[0] | pb
            self.mass_bits = found
            self._link = None if parent._link is not None else (parent, tile, place, home, None, None, None)
            return
        carried = [i for i in range(len(masses)) if i != home and i not in into]
        found = [masses[i] for i in carried]
        found += [part for k, part in enumerate(parts) if k not in touched]
        joined = pb
        for i in into:
            joined |= masses[i]
        for k in touched:
            joined |= parts[k]
        found.append(joined)
        self.mass_bits = found
        self._link = None if parent._link is not None else (parent, tile, place, home, carried, into, touched)

    def _home(self, b: int) -> int:
        """The index of the land mass holding bit `b`."""
        masses = self.mass_bits
        i = len(masses) - 1
        while i >= 0:  # from the last: a drift that changes the masses puts the drifted tile's last
            if masses[i] & b:
                return i
            i -= 1
        raise KeyError(b)

    # -- the land masses as places (T5), for whoever reads them --------------------------------

    @property
    def masses(self) -> list:
        """The land masses as frozensets of places, in their numbering."""
        found = self._masses
        if found is None:
            link = self._link
            if link is None:
                found = [frozenset(places(m)) for m in self.mass_bits]
            else:
                parent, tile, place, home, carried, into, touched = link
                before = parent.masses
                if carried is None:  # the rest of the mass (shared by every drift of the tile) and the place
                    found = list(before)
                    found[home] = parent.pieces_without(tile)[0].union((place,))
                else:  # as board._drifted_masses
                    parts = parent.pieces_without(tile)
                    found = [before[i] for i in carried]
                    found += [part for k, part in enumerate(parts) if k not in touched]
                    found.append(frozenset((place,)).union(*(before[i] for i in into), *(parts[k] for k in touched)))
            self._masses = found
            if self._mass_of is not None:
                self._link = None
        return found

    @property
    def mass_of(self) -> dict:
        """Place -> the index of its land mass, for every tile."""
        found = self._mass_of
        if found is None:
            link = self._link
            if link is not None:
                parent, tile, place, home, carried = link[:5]
                found = dict(parent.mass_of)
                del found[tile]
                if carried is None:
                    found[place] = home
                else:  # the masses before the first one that changed keep their index
                    keep = 0
                    while keep < len(carried) and carried[keep] == keep:
                        keep += 1
                    masses = self.masses
                    for j in range(keep, len(masses)):
                        found.update(dict.fromkeys(masses[j], j))
            else:
                found = {}
                for i, m in enumerate(self.masses):
                    found.update(dict.fromkeys(m, i))
            self._mass_of = found
            if self._masses is not None:
                self._link = None
        return found

    def herd_masses(self, herds: dict, seat: int) -> int:
        """The bits of the land masses where `seat` has a herd on a tile (T10); swimmers do not count.
        The last answer is kept: a state's herds are a new dict whenever they change (state.py)."""
        last = self._herds
        if last is not None and last[0] is herds and last[1] == seat:
            return last[2]
        found = self._herd_masses(herds, seat)
        self._herds = (herds, seat, found)
        return found

    def _herd_masses(self, herds: dict, seat: int) -> int:
        mine = 0
        for p, c in herds.items():
            if c[seat]:
                b = INSIDE.get(p)
                if b is not None:
                    mine |= b
        mine &= self.T
        if not mine:
            return 0
        found = 0
        for m in self.mass_bits:
            if m & mine:
                found |= m
        return found

    # -- water (T5) ----------------------------------------------------------------------------

    @property
    def radius(self) -> int:
        """One more than the farthest tile's distance: everything from there out is open sea."""
        return max(map(FROM_POLE.__getitem__, self.tiles)) + 1

    @property
    def outside(self) -> set:
        """Surrounding water within `radius` (T5)."""
        radius = self.radius
        return {p for k in range(radius + 1) for p in ring(k) if self.surrounding(p)}

    @property
    def seas(self) -> list:
        """Interior seas: water enclosed by land (T5)."""
        return [set(places(sea)) for sea in components(self.S)]

    @property
    def sea_of(self) -> dict:
        """Interior sea index of each enclosed water place."""
        return {p: i for i, sea in enumerate(self.seas) for p in sea}

    def surrounding(self, place: tuple) -> bool:
        """Whether `place` is surrounding water (T5), not land and not an interior sea."""
        b = BIT.get(place)
        return b is None or not self.closed & b

    def borders_surrounding(self, place: tuple) -> bool:
        """Whether a tile at `place` has an edge on the surrounding water (T5, T10)."""
        near = NEAR.get(place)
        return near is None or self.closed & near != near

    def _freed_bits(self, tb: int) -> int:
        """Surrounding water once the tile at bit `tb` is taken: its place, and any sea it touched (T5)."""
        if not self.S:
            return tb
        return tb | fill(dilate(tb) & self.S, self.S)

    def _freed_water(self, tile: tuple) -> set:
        return set(places(self._freed_bits(BIT[tile])))

    def borders_after(self, tile: tuple, place: tuple, freed=None) -> bool:
        """Whether `tile`, put down at `place`, has an edge on the surrounding water (T10): exactly when
        `place` is surrounding water once `tile` is taken (README, Decision 8)."""
        b = BIT.get(place)
        if b is None:
            return True
        if not self.closed & b:
            return True
        tb = BIT.get(tile)
        return tb is not None and tile in self.tiles and bool(self._freed_bits(tb) & b)

    # -- drifts (T10) --------------------------------------------------------------------------

    def may_split(self, tile: tuple) -> bool:
        """Whether taking `tile` away may split its land mass: its land neighbours form two or
        more separate runs round it (hexes.DIRECTIONS is in cyclic order)."""
        tiles = self.tiles
        a, b, c, d, e, f = NEIGHBOURS[tile]
        return _RUNS[(a in tiles) | (b in tiles) << 1 | (c in tiles) << 2 | (d in tiles) << 3
                     | (e in tiles) << 4 | (f in tiles) << 5] > 1

    def _pieces_bits(self, tile: tuple, home: int | None = None) -> list:
        """The pieces (bits) the land mass of `tile` falls into without it; [] for a one-tile mass."""
        found = self._pieces.get(tile)
        if found is None:
            tb = BIT[tile]
            if home is None:
                home = self._home(tb)
            rest = self.mass_bits[home] ^ tb
            if not rest:
                found = []
            elif self.may_split(tile):
                found = components(rest)
            else:
                found = [rest]
            self._pieces[tile] = found
        return found

    def pieces_without(self, tile: tuple) -> list:
        """The pieces the land mass of `tile` falls into without it (T10, T16; [] for a one-tile mass), as places."""
        sets = self._piece_sets
        if sets is None:
            sets = self._piece_sets = {}
        found = sets.get(tile)
        if found is None:
            parts = self._pieces_bits(tile)
            if len(parts) == 1 and self._masses is not None:
                found = [self._masses[self._home(BIT[tile])].difference((tile,))]
            else:
                found = [frozenset(places(part)) for part in parts]
            sets[tile] = found
        return found

    def can_take(self, tile: tuple) -> bool:
        """T10: not the pole, not a one-tile land mass, and on the surrounding water."""
        b = BIT.get(tile)
        if b is None or not self.T & b or b == POLE_BIT:
            return False
        near = NEAR[tile]
        if self.closed & near == near:
            return False
        m = self.mass_bits[self._home(b)]
        return m != b

    def _places_bits(self, tile: tuple) -> int:
        b = BIT.get(tile)
        if b is None or not self.T & b or b == POLE_BIT:
            return 0
        seas = self._S
        if seas is None:
            seas = self._wet()
        closed, near = self.T | seas, NEAR[tile]
        if closed & near == near:
            return 0
        rest = self.mass_bits[self._home(b)] ^ b
        if not rest:
            return 0
        # Next to the rest of the mass, farther out, and surrounding water once the tile is taken:
        # not closed, or freed (its place and any sea it touched, which are closed now: _freed_bits).
        freed = b | fill(dilate(b) & seas, seas) if seas else b
        low, high = rest | rest << 1, rest | rest >> 1  # (dilate)
        return (low | high | low >> 32 | high << 32) & FARTHER[FROM_POLE[tile]] & (GRID ^ closed ^ freed)

    def places_bits(self, tile: tuple) -> int:
        """The places `tile` may drift to (T10), as bits (worked out once per arrangement)."""
        found = self._bits.get(tile)
        if found is None:
            found = self._bits[tile] = self._places_bits(tile)
        return found

    def places_for(self, tile: tuple) -> list:
        """The places `tile` may drift to (T10), in the places' order (q, then r)."""
        known = self._places
        if known is None:
            known = self._places = {}
        found = known.get(tile)
        if found is None:
            # The same places come back from board to board (a search's boards differ by a drift or
            # two; a tile's mass and coast mostly stay): one list for them, never changed by anyone.
            bits = self.places_bits(tile)
            found = _PLACE_LISTS.get(bits)
            if found is None:
                if len(_PLACE_LISTS) >= 8192:  # bounded: lists not met lately are made again
                    _PLACE_LISTS.clear()
                found = _PLACE_LISTS[bits] = places(bits)
            known[tile] = found
        return found

    def has_place(self, tile: tuple) -> bool:
        """Whether `tile` may drift anywhere (T10)."""
        return bool(self.places_bits(tile))

    def candidates(self) -> list:
        """Every (tile, place) drift the board allows, whoever drifts and whatever the card (T10)."""
        return [(a, b) for a in self.tiles for b in self.places_for(a)]

    def takeable_bits(self) -> int:
        """The tiles that may drift (can_take), as bits."""
        found = self._take
        if found is None:
            big = 0
            for m in self.mass_bits:
                if m & (m - 1):
                    big |= m
            # A tile with every neighbour land or sea does not border the surrounding water.
            c = self.closed
            up, down = c << 1, c >> 1  # (every neighbour: -1 and +1, then -32 and -31, +32 and +31)
            inner = up & down & (c & up) >> 32 & (c & down) << 32
            t = self.T & big
            found = self._take = (t ^ (t & inner)) & NOT_POLE
        return found

    def kind_bits(self, landscape: str) -> int:
        """The tiles of `landscape` (or the pole), as bits."""
        kinds = self._kind_bits
        if kinds is None:
            kinds = dict.fromkeys(("mountain", "steppe", "woods", "pole"), 0)
            bit = BIT
            for a, kind in self.tiles.items():
                kinds[kind] = kinds.get(kind, 0) | bit[a]
            self._kind_bits = kinds
        return kinds.get(landscape, 0)

    def drift_tile_bits(self, landscape: str | None, within: int) -> int:
        """The tiles that may drift (can_take) of `landscape` (any if None) among the bits `within`."""
        ok = self.takeable_bits() & within
        if landscape is not None and ok:
            ok &= self.kind_bits(landscape)
        return ok

    def any_place(self, tiles: int) -> bool:
        """Whether any tile of the bits `tiles` may drift somewhere (T10)."""
        bits, place = self._bits, PLACE
        while tiles:
            low = tiles & -tiles
            a = place[low.bit_length() - 1]
            found = bits.get(a)
            if found is None:
                found = bits[a] = self._places_bits(a)
            if found:
                return True
            tiles ^= low
        return False

    def takeable(self, landscape: str | None = None, within: int | None = None) -> list:
        """Tiles that may drift (can_take) of `landscape` (any if None), in the tiles' order;
        with `within`, only those among these bits (a seat's land masses)."""
        if within is None:
            kinds = self._kinds
            if kinds is None:
                kinds = self._kinds = {}
            found = kinds.get(landscape)
            if found is None:
                found = kinds[landscape] = self.takeable(landscape, GRID)
            return found
        ok = self.takeable_bits() & within
        if not ok:
            return []
        bit = BIT
        if landscape is None:
            return [a for a in self.tiles if bit[a] & ok]
        return [a for a, kind in self.tiles.items() if kind == landscape and bit[a] & ok]
