"""Board geometry for one arrangement of tiles: land masses, water, drift candidates.

A Geometry is computed once per arrangement and cached on the state (tiles
change only when a tile drifts), so listing legal drifts after a move or a
birth costs a filter, not a flood fill.
"""

from __future__ import annotations

from .hexes import FROM_POLE, NEIGHBOURS, POLE, distance, neighbours, ring


def components(cells) -> list:
    """Edge-connected groups of `cells` (T5 land masses, or parts of one), by flood fill."""
    left = set(cells)
    groups = []
    while left:
        start = left.pop()
        group = {start}
        todo = [start]
        while todo:
            for n in neighbours(todo.pop()):
                if n in left:
                    left.remove(n)
                    group.add(n)
                    todo.append(n)
        groups.append(frozenset(group))
    return groups


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


_OPEN = object()  # marks a water place found to be surrounding water in Geometry._sea


class Geometry:
    """Land masses, surrounding water and interior seas of one arrangement of tiles.

    Only the land masses are made at once. Whether a water place is surrounding water
    is looked up on demand (`_sea_at`): a walk from it through water stops as soon as it
    reaches the open sea, or, having found none, names an interior sea; every place it
    passed is remembered, so a board's questions cost a few dict look-ups each.
    """

    def __init__(self, tiles: dict):
        self.tiles = tiles
        self.masses = components(tiles)
        self.mass_of = {p: i for i, mass in enumerate(self.masses) for p in mass}
        self.main = self.mass_of.get(POLE)
        self.far = max(map(FROM_POLE.__getitem__, tiles)) + 1  # from here out, every place is open sea
        self._water = None
        self._sea: dict = {}      # water place -> _OPEN, or the interior sea (a frozenset) holding it
        self._places: dict = {}
        self._take: dict = {}

    def _open(self):
        """Surrounding water and interior seas in full, for the properties below (the rules use _sea_at)."""
        if self._water is None:
            radius = self.far
            outside = outside_water(self.tiles, radius)
            inner = [p for k in range(1, radius) for p in ring(k) if p not in self.tiles and p not in outside]
            seas = components(inner)
            self._water = (radius, outside, seas, {p: i for i, sea in enumerate(seas) for p in sea})
        return self._water

    @property
    def radius(self) -> int:
        """One more than the farthest tile's distance: everything from there out is open sea."""
        return self.far

    @property
    def outside(self) -> set:
        """Surrounding water within `radius` (T5)."""
        return self._open()[1]

    @property
    def seas(self) -> list:
        """Interior seas: water enclosed by land (T5)."""
        return self._open()[2]

    @property
    def sea_of(self) -> dict:
        """Interior sea index of each enclosed water place."""
        return self._open()[3]

    def _sea_at(self, place: tuple):
        """None if water `place` is surrounding water (T5), else the interior sea holding it."""
        found = self._sea.get(place)
        if found is None:
            found = self._walk(place)
        return None if found is _OPEN else found

    def _walk(self, start: tuple):
        """Walk the water from `start` until the open sea (or a place known to reach it) is found.

        The walk goes depth first, so it heads off in one direction and usually meets open
        water within a few steps; if the water runs out first, it was an interior sea.
        """
        tiles, known, far, near, steps = self.tiles, self._sea, self.far, NEIGHBOURS, FROM_POLE
        seen = {start}
        if steps[start] < far:
            todo = [start]
            while todo:
                for n in near[todo.pop()]:
                    if n in seen or n in tiles:
                        continue
                    if steps[n] >= far or known.get(n) is _OPEN:
                        todo = None
                        break
                    seen.add(n)
                    todo.append(n)
                if todo is None:
                    break
            else:
                sea = frozenset(seen)
                for p in seen:
                    known[p] = sea
                return sea
        for p in seen:
            known[p] = _OPEN
        return _OPEN

    def surrounding(self, place: tuple) -> bool:
        """Whether `place` is surrounding water (T5), not land and not an interior sea."""
        return place not in self.tiles and self._sea_at(place) is None

    def borders_surrounding(self, place: tuple) -> bool:
        """Whether a tile at `place` has an edge on the surrounding water (T5, T10)."""
        tiles = self.tiles
        for n in NEIGHBOURS[place]:
            if n not in tiles and self._sea_at(n) is None:
                return True
        return False

    def parts_without(self, tile: tuple) -> list:
        """The pieces the land mass of `tile` falls into when `tile` is taken away (T10, T16)."""
        return components(self.masses[self.mass_of[tile]] - {tile})

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
            if tile == POLE or tile not in self.tiles:
                found = False
            else:
                found = len(self.masses[self.mass_of[tile]]) > 1 and self.borders_surrounding(tile)
            self._take[tile] = found
        return found

    def _places_for(self, tile: tuple) -> list:
        if not self.can_take(tile):
            return []
        steps, near, tiles = FROM_POLE, NEIGHBOURS, self.tiles
        far = steps[tile]
        freed = self._freed_water(tile)
        places, tried = [], set()
        for cell in self.masses[self.mass_of[tile]]:
            if cell == tile:
                continue
            for b in near[cell]:
                if b in tried or (b in tiles and b != tile) or steps[b] <= far:
                    continue
                tried.add(b)
                if b in freed or (b not in tiles and self._sea_at(b) is None):
                    places.append(b)
        return places

    def _freed_water(self, tile: tuple) -> set:
        """Surrounding water once `tile` is taken: its place, and any sea it touched (T5)."""
        freed = {tile}
        tiles = self.tiles
        for n in NEIGHBOURS[tile]:
            if n not in tiles:
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
