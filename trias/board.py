"""Board geometry for one arrangement of tiles: land masses, water, drift candidates.

A Geometry is computed once per arrangement and cached on the state (tiles
change only when a tile drifts), so listing legal drifts after a move or a
birth costs a filter, not a flood fill.
"""

from __future__ import annotations

from .hexes import POLE, distance, neighbours, ring


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


class Geometry:
    """Land masses, surrounding water and interior seas of one arrangement of tiles."""

    def __init__(self, tiles: dict):
        self.tiles = tiles
        self.masses = components(tiles)
        self.mass_of = {p: i for i, mass in enumerate(self.masses) for p in mass}
        self.main = self.mass_of.get(POLE)
        self._water = None
        self._places: dict = {}

    def _open(self):
        """Surrounding water and interior seas, worked out on first use (scoring needs neither)."""
        if self._water is None:
            radius = max(distance(p) for p in self.tiles) + 1
            outside = outside_water(self.tiles, radius)
            inner = [p for k in range(1, radius) for p in ring(k) if p not in self.tiles and p not in outside]
            seas = components(inner)
            self._water = (radius, outside, seas, {p: i for i, sea in enumerate(seas) for p in sea})
        return self._water

    @property
    def radius(self) -> int:
        """One more than the farthest tile's distance: everything from there out is open sea."""
        return self._open()[0]

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

    def surrounding(self, place: tuple) -> bool:
        """Whether `place` is surrounding water (T5), not land and not an interior sea."""
        radius, outside = self._open()[:2]
        return place not in self.tiles and (place in outside or distance(place) > radius)

    def borders_surrounding(self, place: tuple) -> bool:
        """Whether a tile at `place` has an edge on the surrounding water (T5, T10)."""
        return any(self.surrounding(n) for n in neighbours(place))

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
        if tile == POLE or tile not in self.tiles:
            return False
        return len(self.masses[self.mass_of[tile]]) > 1 and self.borders_surrounding(tile)

    def _places_for(self, tile: tuple) -> list:
        if not self.can_take(tile):
            return []
        far = distance(tile)
        freed = self._freed_water(tile)
        places, tried = [], set()
        for cell in self.masses[self.mass_of[tile]]:
            if cell == tile:
                continue
            for b in neighbours(cell):
                if b in tried or (b in self.tiles and b != tile) or distance(b) <= far:
                    continue
                tried.add(b)
                if self.borders_after(tile, b, freed):
                    places.append(b)
        return places

    def _freed_water(self, tile: tuple) -> set:
        """Surrounding water once `tile` is taken: its place, and any sea it touched (T5)."""
        freed = {tile}
        for n in neighbours(tile):
            if n in self.sea_of:
                freed |= self.seas[self.sea_of[n]]
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
