"""Board geometry for one arrangement of tiles, place by place: land masses, water, drift candidates.

Boards are bits now (bitboard.py); a FloodGeometry answers the same questions with sets of places,
for a board whose tiles drifted beyond the bit board's grid (T4: the board is unbounded). A
geometry is computed once per arrangement and cached on the state (tiles change only when a
tile drifts), so listing legal drifts after a move or a birth costs a filter, not a flood fill.
"""

from __future__ import annotations

from collections import deque

from .hexes import FROM_POLE, NEIGHBOURS, ORDER, OUTWARD, POLE, _Table, disc, distance, neighbours, ring


def components(cells) -> list:
    """Edge-connected groups of `cells` (T5 land masses, or parts of one), by flood fill."""
    left = set(cells)
    take, near = left.remove, NEIGHBOURS
    groups = []
    while left:
        start = left.pop()
        group = {start}
        todo = [start]
        add, push, pop = group.add, todo.append, todo.pop
        while todo:
            for n in near[pop()]:
                if n in left:
                    take(n)
                    add(n)
                    push(n)
        groups.append(frozenset(group))
    return groups


def _drifted_masses(parent: "FloodGeometry", tile: tuple, place: tuple) -> tuple:
    """The land masses once `tile` of `parent`'s board lies at `place` (T5), from `parent`'s:
    (masses, the parent's index of each mass carried over unchanged (they come first), whether
    the tile's land mass only lost the tile and gained the place). In that usual case every mass
    keeps its number (the carried indices are None); otherwise the new mass is the last one.

    Taking the tile leaves its land mass whole unless its land neighbours form separate runs
    round it (Geometry.may_split); only then is that one mass flood filled. The tile's new
    place joins every land mass it touches into one.
    """
    masses, home = parent.masses, parent.mass_of[tile]
    parts = parent.pieces_without(tile)
    mass_of = parent.mass_of
    into, touched = [], []  # other masses the place touches; the pieces of the tile's mass it touches
    for n in NEIGHBOURS[place]:
        i = mass_of.get(n)
        if i is None or n == tile:
            continue
        if i != home:
            if i not in into:
                into.append(i)
        elif len(parts) == 1:
            touched = [0]
        else:
            for k, part in enumerate(parts):
                if n in part:
                    if k not in touched:
                        touched.append(k)
                    break
    if not into and touched and len(parts) == 1:  # the usual drift: the mass lost the tile, gained the place
        found = list(masses)  # every mass keeps its number
        found[home] = parts[0] | {place}
        return found, None, True
    carried = [i for i in range(len(masses)) if i != home and i not in into]
    found = [masses[i] for i in carried]
    found += [part for k, part in enumerate(parts) if k not in touched]
    found.append(frozenset({place}).union(*(masses[i] for i in into), *(parts[k] for k in touched)))
    return found, carried, False


def _parts_without(rest: frozenset, tile: tuple):
    """The pieces `rest` (a land mass without `tile`) falls into, or None when it stays whole.

    Every piece holds one of the runs of land round the tile. With two runs, a walk from each,
    step for step, either meets the other (whole: usually a few steps round the tile) or runs
    out first, having found the smaller piece; the rest is the other one. More runs: flood fill.
    """
    near = NEIGHBOURS
    a, b, c, d, e, f = around = near[tile]
    starts = [n for n, before in zip(around, (f, a, b, c, d, e)) if n in rest and before not in rest]
    if len(starts) != 2:
        parts = components(rest)
        return parts if len(parts) > 1 else None
    one, two = starts
    mine, theirs = {one}, {two}
    todo, other = deque([one]), deque([two])
    while todo:
        for n in near[todo.popleft()]:
            if n in rest and n not in mine:
                if n in theirs:
                    return None
                mine.add(n)
                todo.append(n)
        todo, other, mine, theirs = other, todo, theirs, mine
    small = frozenset(mine)
    return [small, rest - small]


def _rim_of(mass: frozenset) -> dict:
    """The empty places next to land mass `mass`, each with how many tiles of the mass it touches.
    Any tile next to a mass belongs to it (T5), so these places are water whatever the rest of the board."""
    count: dict = {}
    near = NEIGHBOURS
    for cell in mass:
        for b in near[cell]:
            if b not in mass:
                count[b] = count.get(b, 0) + 1
    return count


def _rim_moved(before: dict, mass: frozenset, tile: tuple, place: tuple) -> dict:
    """_rim_of(mass - {tile} | {place}) from `before` = _rim_of(mass), when the place touches the
    rest of that mass and no other mass: only the places round the tile and round the place change."""
    count = dict(before)
    for n in NEIGHBOURS[tile]:
        if n not in mass:
            k = count[n] - 1
            if k:
                count[n] = k
            else:
                del count[n]
    for n in NEIGHBOURS[place]:
        if n not in mass and n != tile:
            count[n] = count.get(n, 0) + 1
    del count[place]
    k = sum(1 for n in NEIGHBOURS[tile] if (n in mass and n != tile) or n == place)
    if k:
        count[tile] = k
    return count


def outside_water(tiles, radius: int) -> set:
    """Water within `radius` of the pole connected to the open sea (T5 surrounding water).

    Every place at `radius` or beyond is water when no tile lies that far out, so
    a flood fill from that ring finds exactly the surrounding water; places
    beyond `radius` are surrounding too and are not listed.
    """
    seen = set(ring(radius))
    todo = list(seen)
    near = neighbours
    while todo:
        for n in near(todo.pop()):
            if n not in seen and n not in tiles and distance(n) <= radius:
                seen.add(n)
                todo.append(n)
    return seen


# The places within d steps of the pole, for each d: a tile drifts only farther out (T10).
WITHIN = _Table(lambda d: frozenset(disc(d)))


def _runs(mask: int) -> int:
    """Separate runs of set bits round a ring of six (bit i: the i-th neighbour, hexes.DIRECTIONS)."""
    return sum(1 for i in range(6) if mask >> i & 1 and not mask >> ((i - 1) % 6) & 1)


_RUNS = tuple(_runs(mask) for mask in range(64))


class FloodGeometry:
    """Land masses, surrounding water and interior seas of one arrangement of tiles.

    Only the land masses are made at once. Whether a water place is surrounding water
    is looked up on demand (`_sea_at`): a walk from it through water stops as soon as it
    reaches the open sea, or, having found none, names an interior sea; every place it
    passed is remembered (`_open`, `_seas`), so a board's questions cost a look-up each.
    A board made by one drift from another (`parent`, the drifted tile and its new place)
    starts from what the other knew: only the water round the new place can change (T5).
    """

    __slots__ = ("tiles", "masses", "mass_of", "main", "_water", "_open", "_seas", "_places", "_take", "_coast",
                 "_kinds", "_freed", "_without", "_rims", "_grown", "_box", "_before")

    def __init__(self, tiles: dict, parent: "FloodGeometry | None" = None, tile=None, place=None):
        self.tiles = tiles
        # A board one drift away from a known one: only the tile's land mass and those round its
        # new place change (T5), so the others are carried over and nothing else is flood filled.
        moved = (parent is not None and tile in parent.mass_of and place not in parent.mass_of
                 and place in tiles and tile not in tiles)
        self._rims: dict = {}     # land mass index -> _rim_of that mass, made on first use
        self._grown = None        # (the grown mass's index, its rim before the drift, that mass, tile, place)
        if moved:
            self.masses, carried, grown = _drifted_masses(parent, tile, place)
            rims = parent._rims
            home = parent.mass_of[tile]
            self.mass_of = mass_of = dict(parent.mass_of)
            del mass_of[tile]
            if grown:  # the tile's mass kept its number: only the place is new in it
                mass_of[place] = home
                if rims:
                    self._rims = {i: rim for i, rim in rims.items() if i != home}
                    before = rims.get(home)
                    if before is not None:
                        self._grown = (home, before, parent.masses[home], tile, place)
            else:
                if rims:
                    self._rims = {j: rims[i] for j, i in enumerate(carried) if i in rims}
                # The masses before the first one that changed keep their index: only the rest
                # are numbered again.
                keep = 0
                while keep < len(carried) and carried[keep] == keep:
                    keep += 1
                for j in range(keep, len(self.masses)):
                    mass_of.update(dict.fromkeys(self.masses[j], j))
        else:
            self.masses = components(tiles)
            self.mass_of = mass_of = {}
            for i, mass in enumerate(self.masses):
                mass_of.update(dict.fromkeys(mass, i))
        self.main = mass_of.get(POLE)
        self._water = None
        self._open: set = set()   # water places known to be surrounding water (T5)
        self._seas: dict = {}     # water places known to be in an interior sea -> that sea
        self._places: dict = {}
        self._take: dict = {}
        self._coast: dict = {}    # tile -> whether it borders the surrounding water (T10)
        self._kinds: dict = {}    # landscape -> takeable tiles of that kind
        self._freed: dict = {}    # tile -> _freed_water(tile)
        self._without: dict = {}  # tile -> the pieces its land mass falls into without it ([] if none)
        # The water is worked out on first use (the heuristic's judgements need only the land
        # masses): from the board before one drift when that board's water was known, else afresh.
        self._box = None
        self._before = (parent, tile, place) if moved and parent._box is not None else None

    def _ready(self) -> None:
        """Make the water knowledge usable: inherited from the board before, or started afresh.

        Boards are shared between threads (a computer seat thinks while pages list moves), so
        the knowledge is built apart and published with `_box` last: a reader never sees half
        of it. Two threads may both build it; either result is true of this board.
        """
        before, self._before = self._before, None
        found = self._inherit(*before) if before is not None else None
        if found is None:
            found = (set(), {}, {}, self._extent())
        self._open, self._seas, self._coast = found[:3]
        self._box = found[3]

    def _extent(self) -> tuple:
        qs = [q for q, _ in self.tiles]
        rs = [r for _, r in self.tiles]
        ss = [q + r for q, r in self.tiles]
        # Beyond the tiles' extent along an axis, a straight line to the open sea meets no tile.
        return (min(qs), max(qs), min(rs), max(rs), min(ss), max(ss))

    def _inherit(self, parent: "FloodGeometry", tile: tuple, place: tuple):
        """`parent`'s knowledge of the water, carried over the drift of `tile` to `place` (T10):
        (surrounding water, seas, coast, box), or None when the drift was not one T10 allows.

        The tile's old place is surrounding water now, and so is any interior sea it
        touched; seas elsewhere stay enclosed. Only the new place can enclose water: with
        its water neighbours in one run round it nothing is cut off; otherwise each run is
        walked again.
        """
        if tile not in parent.tiles or place in parent.tiles or place not in self.tiles or tile in self.tiles:
            return None
        if not parent.can_take(tile) or not parent.borders_after(tile, place):
            return None
        q0, q1, r0, r1, s0, s1 = parent._box
        q, r = place
        work = object.__new__(FloodGeometry)  # the walks below work on this, not on the shared board
        work.tiles = self.tiles
        work._box = (min(q0, q), max(q1, q), min(r0, r), max(r1, r), min(s0, q + r), max(s1, q + r))
        opened = work._open = set(parent._open)
        work._seas = {}
        opened.add(tile)
        changed = [tile, place]  # water places whose kind of water (or land) changed
        if parent._seas:  # a known sea the tile touched is surrounding water now
            freed = parent._freed_water(tile)
            opened |= freed
            changed += freed
            work._seas = {p: sea for p, sea in parent._seas.items() if p not in freed}
        opened.discard(place)
        tiles, near = self.tiles, NEIGHBOURS
        a, b, c, d, e, f = near[place]
        if _RUNS[(a not in tiles) | (b not in tiles) << 1 | (c not in tiles) << 2 | (d not in tiles) << 3
                 | (e not in tiles) << 4 | (f not in tiles) << 5] > 1:
            for n in near[place]:
                if n not in tiles and n not in work._seas and not work._walk(n, trust=False):
                    changed += work._seas[n]
        # Whether a tile borders the surrounding water changes only next to those places.
        coast = dict(parent._coast)
        for p in changed:
            coast.pop(p, None)
            for n in near[p]:
                coast.pop(n, None)
        return work._open, work._seas, coast, work._box

    def _full_water(self):
        """Surrounding water and interior seas in full, for the properties below (the rules use _sea_at)."""
        if self._water is None:
            radius = self.radius
            outside = outside_water(self.tiles, radius)
            inner = [p for k in range(1, radius) for p in ring(k) if p not in self.tiles and p not in outside]
            seas = components(inner)
            self._water = (radius, outside, seas, {p: i for i, sea in enumerate(seas) for p in sea})
        return self._water

    @property
    def radius(self) -> int:
        """One more than the farthest tile's distance: everything from there out is open sea."""
        return max(map(FROM_POLE.__getitem__, self.tiles)) + 1

    @property
    def outside(self) -> set:
        """Surrounding water within `radius` (T5)."""
        return self._full_water()[1]

    @property
    def seas(self) -> list:
        """Interior seas: water enclosed by land (T5)."""
        return self._full_water()[2]

    @property
    def sea_of(self) -> dict:
        """Interior sea index of each enclosed water place."""
        return self._full_water()[3]

    def _sea_at(self, place: tuple):
        """None if water `place` is surrounding water (T5), else the interior sea holding it."""
        if self._box is None:
            self._ready()
        if place in self._open:
            return None
        found = self._seas.get(place)
        if found is None and self._walk(place):
            return None
        return found or self._seas[place]

    def _walk(self, start: tuple, trust: bool = True) -> bool:
        """Walk the water from `start` until the open sea is found: True, or False for an interior sea.

        A place beyond the tiles' extent along one of the three axes is open sea: a straight
        line from it away from the tiles meets none; so is a place already known to be
        (unless not `trust`ed: water a new tile may just have cut off). The walk goes depth
        first, outward first (OUTWARD lists the farthest neighbour last), so it usually meets
        open water within a step or two. Every place it passed is remembered either way.
        """
        if self._box is None:
            self._ready()
        tiles, opened, near = self.tiles, self._open if trust else (), OUTWARD
        q0, q1, r0, r1, s0, s1 = self._box
        seen = {start}
        q, r = start
        if q0 <= q <= q1 and r0 <= r <= r1 and s0 <= q + r <= s1:
            todo = [start]
            while todo:
                for n in near[todo.pop()]:
                    if n in seen or n in tiles:
                        continue
                    q, r = n
                    if not (q0 <= q <= q1 and r0 <= r <= r1 and s0 <= q + r <= s1) or n in opened:
                        todo = None
                        break
                    seen.add(n)
                    todo.append(n)
                if todo is None:
                    break
            else:
                sea = frozenset(seen)
                self._open -= sea
                self._seas.update(dict.fromkeys(sea, sea))
                return False
        self._open |= seen
        return True

    def surrounding(self, place: tuple) -> bool:
        """Whether `place` is surrounding water (T5), not land and not an interior sea."""
        if self._box is None:
            self._ready()
        return place not in self.tiles and self._sea_at(place) is None

    def borders_surrounding(self, place: tuple) -> bool:
        """Whether a tile at `place` has an edge on the surrounding water (T5, T10)."""
        if self._box is None:
            self._ready()
        found = self._coast.get(place)
        if found is None:
            found = self._borders(place)
            if place in self.tiles:
                self._coast[place] = found
        return found

    def _borders(self, place: tuple) -> bool:
        near = NEIGHBOURS[place]
        if not self._open.isdisjoint(near):
            return True
        tiles, seas = self.tiles, self._seas
        for n in near:
            if n not in tiles and n not in seas and self._walk(n):
                return True
        return False

    def may_split(self, tile: tuple) -> bool:
        """Whether taking `tile` away may split its land mass: its land neighbours form two or
        more separate runs round it. With one run (or none) the rest stays connected, since
        consecutive neighbours touch each other (hexes.DIRECTIONS is in cyclic order)."""
        tiles = self.tiles
        a, b, c, d, e, f = NEIGHBOURS[tile]
        return _RUNS[(a in tiles) | (b in tiles) << 1 | (c in tiles) << 2 | (d in tiles) << 3
                     | (e in tiles) << 4 | (f in tiles) << 5] > 1

    def pieces_without(self, tile: tuple) -> list:
        """The pieces the land mass of `tile` falls into without it (T10, T16; [] for a one-tile mass), worked
        out once per tile: the same for every place it may go to (a search tries many), for the
        interim scoring (T16) and the next board's masses."""
        parts = self._without.get(tile)
        if parts is None:
            rest = self.masses[self.mass_of[tile]] - {tile}
            parts = (_parts_without(rest, tile) if self.may_split(tile) else None) or [rest] if rest else []
            self._without[tile] = parts
        return parts

    def candidates(self) -> list:
        """Every (tile, place) drift the board allows, whoever drifts and whatever the card (T10)."""
        return [(a, b) for a in self.tiles for b in self.places_for(a)]

    def places_for(self, tile: tuple) -> list:
        """The places `tile` may drift to (T10), worked out once per arrangement."""
        found = self._places.get(tile)
        if found is None:
            found = self._places[tile] = self._places_for(tile)
        return found

    def can_take(self, tile: tuple) -> bool:
        """T10: not the pole, not a one-tile land mass, and on the surrounding water."""
        found = self._take.get(tile)
        if found is None:
            if tile == POLE or tile not in self.tiles or len(self.masses[self.mass_of[tile]]) == 1:
                found = False
            else:
                found = self.borders_surrounding(tile)
            self._take[tile] = found
        return found

    def has_place(self, tile: tuple) -> bool:
        """Whether `tile` may drift anywhere (T10): places_for, stopping at the first place found."""
        found = self._places.get(tile)
        if found is None:
            return bool(self._places_for(tile, True))
        return bool(found)

    def _places_for(self, tile: tuple, first: bool = False) -> list:
        """The places `tile` may drift to, sorted; with `first`, the first one met only (unsorted)."""
        if self._box is None:
            self._ready()
        if not self.can_take(tile):
            return []
        far, opened, seas = FROM_POLE[tile], self._open, self._seas
        freed = self._freed_water(tile)
        q0, q1, r0, r1, s0, s1 = self._box
        beside, steps = NEIGHBOURS[tile], FROM_POLE
        # The empty places next to the land mass: T10's "touches the land mass it came from"
        # needs a neighbour there other than the tile itself.
        rim = self._rim(self.mass_of[tile])
        if not first:  # by set operations: the rim's places farther out, less those touching only the tile
            found = rim.keys() - WITHIN[far]
            for b in beside:
                if rim.get(b) == 1:
                    found.discard(b)
            for b in found - opened - freed:
                q, r = b
                if not (q0 <= q <= q1 and r0 <= r <= r1 and s0 <= q + r <= s1):
                    opened.add(b)  # beyond the tiles' extent: open sea (_walk)
                elif b in seas or not self._walk(b):
                    found.discard(b)
            return sorted(found, key=ORDER.__getitem__)  # the places' order (q, then r), whatever the board's history
        for b, touching in rim.items():
            if steps[b] <= far or (touching == 1 and b in beside):
                continue
            if b not in opened and b not in freed:
                q, r = b
                if not (q0 <= q <= q1 and r0 <= r <= r1 and s0 <= q + r <= s1):
                    opened.add(b)  # beyond the tiles' extent: open sea (_walk)
                elif b in seas or not self._walk(b):
                    continue
            return [b]
        return []

    def _rim(self, i: int) -> dict:
        """_rim_of land mass `i`, carried over the drift that made this board where it can be."""
        found = self._rims.get(i)
        if found is None:
            grown = self._grown
            if grown is not None and i == grown[0]:
                self._grown = None
                found = _rim_moved(*grown[1:])
            else:
                found = _rim_of(self.masses[i])
            self._rims[i] = found
        return found

    def takeable(self, landscape: str | None = None) -> list:
        """Tiles that may drift (can_take) of `landscape` (any if None), in the tiles' order."""
        found = self._kinds.get(landscape)
        if found is None:
            every = self._kinds.get(None)
            if every is None:
                if landscape is not None:  # only this landscape's tiles are looked at
                    found = self._kinds[landscape] = self._all_takeable(landscape)
                    return found
                every = self._kinds[None] = self._all_takeable()
            if landscape is None:
                return every
            tiles = self.tiles
            found = self._kinds[landscape] = [a for a in every if tiles[a] == landscape]
        return found

    def _all_takeable(self, landscape: str | None = None) -> list:
        """can_take for every tile (of `landscape` if not None) at once, in the tiles' order (T10)."""
        if self._box is None:
            self._ready()
        mass_of, coast = self.mass_of, self._coast
        big = {i for i, mass in enumerate(self.masses) if len(mass) > 1}
        found = []
        for a, kind in self.tiles.items():  # a tile's coast is mostly known, carried over the drift that made this board
            if mass_of[a] in big and (landscape is None or kind == landscape):
                ok = coast.get(a)
                if ok is None:
                    ok = coast[a] = self._borders(a)
                if ok:
                    found.append(a)
        if POLE in found:  # the pole never drifts
            found.remove(POLE)
        return found

    def _freed_water(self, tile: tuple) -> set:
        """Surrounding water once `tile` is taken: its place, and any sea it touched (T5)."""
        if self._box is None:
            self._ready()
        found = self._freed.get(tile)
        if found is None:
            found = self._freed[tile] = self._free(tile)
        return found

    def _free(self, tile: tuple) -> set:
        freed = {tile}
        tiles, opened = self.tiles, self._open
        for n in NEIGHBOURS[tile]:
            if n not in tiles and n not in opened:
                sea = self._sea_at(n)
                if sea is not None:
                    freed |= sea
        return freed

    def borders_after(self, tile: tuple, place: tuple, freed: set | None = None) -> bool:
        """Whether `tile`, put down at `place`, has an edge on the surrounding water (T10).

        That holds exactly when `place` is surrounding water once `tile` is taken:
        a path from `place` to the open sea leaves by a neighbour that stays
        connected after the tile lands; an interior sea has no such path.
        """
        if freed is None:
            freed = self._freed_water(tile)
        return place in freed or self.surrounding(place)
