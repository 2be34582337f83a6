"""The engine's fast paths against a slow reference kept here (200 random games a second).

The board's geometry (land masses, surrounding water, interior seas, drift places) is now
worked out on demand, and a board made by one drift starts from what the board before knew.
`Reference` below is the geometry as it was before that work: a flood fill of the whole disc
per arrangement, nothing carried over. Random games at 2-5 players (and boards with interior
seas made on purpose) are checked state by state against it, and each journal must replay to
the live state; the interim scoring (T16) is checked against a split computed from scratch,
the phase-2 listings (T12, T13) against the listing code as it was.

Boards are bits on a fixed grid (trias/bitboard.py), place by place (board.FloodGeometry) past
its edge. Land masses are carried from board to board (only the drifted tile's mass and those round its
new place change), so every board is also checked against one made afresh, of either kind: the same masses,
and the same answers in the same order. Drift places are listed in the places' order (q, then
r), which no longer depends on how a land mass was put together.

Stored games keep their commands, never a listing: `old_listing_games.txt` holds the commands
of seeded random games played with the listing before (places in a land mass's set order);
decided again they must give exactly the journals pinned then (commit 074e507). The journals
of seeded random games are pinned for listing 1 (every game stored before listing 2, whose bots
must go on as they began) and for listing 2 (new games: drift tiles in the places' order, drawn
from the bits): an optimisation that changes any event, or any draw the random player makes, fails
here. Listing 2's draws from the bits are checked against its list.
"""

from __future__ import annotations

import hashlib
import json
import random
from itertools import combinations_with_replacement
from pathlib import Path

import pytest

import trias
from trias.bitboard import BitGeometry, geometry_of
from trias.board import FloodGeometry
from trias.bots.randombot import random_action
from trias.custom import position
from trias.hexes import POLE, distance, neighbours, ring
from trias.listing import moves, rescues, reproductions
from trias.scoring import interim_part
from trias.state import CAPACITY

# sha256 (first 16 hex digits) of the JSON journals of seeds 0-3, per player count, made by
# the engine at commit 074e507, before its fast paths (the random player's draws then listed
# drift places in a land mass's set order): old_listing_games.txt's commands must give them.
OLD_LISTING_JOURNALS = {2: "5d7150975f5e1fa9", 3: "3a7b8565b11abec2", 4: "118c116c52f08dd5", 5: "23bbdfcd68661115"}
# The same for listing 1 (drift places in the places' order, a seat's drift tiles in the tiles' order and
# shuffled): every game stored before listing 2, whose bots must go on deciding as they did.
PINNED_JOURNALS = {2: "5066fc71b45162f1", 3: "2834757e79ae1350", 4: "9e9791d67b87c940", 5: "fd99e0ab5ec1833c"}
# Listing 2, new games' (state.LISTING): drift tiles in the places' order, drawn one at a time.
PINNED_JOURNALS_2 = {2: "b97e68f0ffca9c60", 3: "bd5bd744c6731d85", 4: "528e954dfb4e7949", 5: "f5c841aa5ac6ef2e"}
OLD_GAMES = Path(__file__).with_name("old_listing_games.txt")


def _components(cells) -> list:
    left, groups = set(cells), []
    while left:
        start = left.pop()
        group, todo = {start}, [start]
        while todo:
            for n in neighbours(todo.pop()):
                if n in left:
                    left.remove(n)
                    group.add(n)
                    todo.append(n)
        groups.append(frozenset(group))
    return groups


class Reference:
    """The geometry as computed before the fast paths, slowly and from scratch (T5, T10)."""

    def __init__(self, tiles: dict):
        self.tiles = tiles
        self.masses = _components(tiles)
        self.mass_of = {p: i for i, mass in enumerate(self.masses) for p in mass}
        self.radius = max(distance(p) for p in tiles) + 1
        seen = set(ring(self.radius))
        todo = list(seen)
        while todo:
            for n in neighbours(todo.pop()):
                if n not in seen and n not in tiles and distance(n) <= self.radius:
                    seen.add(n)
                    todo.append(n)
        self.outside = seen
        inner = [p for k in range(1, self.radius) for p in ring(k) if p not in tiles and p not in seen]
        self.seas = _components(inner)
        self.sea_of = {p: i for i, sea in enumerate(self.seas) for p in sea}

    def surrounding(self, place) -> bool:
        return place not in self.tiles and (place in self.outside or distance(place) > self.radius)

    def can_take(self, tile) -> bool:
        if tile == POLE or tile not in self.tiles:
            return False
        return len(self.masses[self.mass_of[tile]]) > 1 and any(self.surrounding(n) for n in neighbours(tile))

    def places_for(self, tile) -> list:
        if not self.can_take(tile):
            return []
        freed = {tile}
        for n in neighbours(tile):
            if n in self.sea_of:
                freed |= self.seas[self.sea_of[n]]
        places, tried = [], set()
        for cell in self.masses[self.mass_of[tile]]:
            if cell == tile:
                continue
            for b in neighbours(cell):
                if b in tried or (b in self.tiles and b != tile) or distance(b) <= distance(tile):
                    continue
                tried.add(b)
                if b in freed or self.surrounding(b):
                    places.append(b)
        return sorted(places)


def same_masses(geo, other) -> None:
    """The same land masses (T5), each tile in the same one, the main one holding the pole."""
    assert sorted(map(sorted, geo.masses)) == sorted(map(sorted, other.masses))
    assert geo.mass_of.keys() == other.mass_of.keys()
    for p, i in geo.mass_of.items():
        assert p in geo.masses[i] and geo.masses[i] == other.masses[other.mass_of[p]], p
    assert geo.main == geo.mass_of.get(POLE)


def same_board(state) -> None:
    """Every answer the rules ask of the board equals the reference's and a fresh board's, in the same order.

    `state.geometry()` was carried over from the board before (its land masses and water); the
    fresh board is made from the tiles alone, as for a game met for the first time."""
    geo, ref = state.geometry(), Reference(state.tiles)
    for fresh in (geometry_of(state.tiles), FloodGeometry(state.tiles)):
        same_masses(geo, fresh)
        for tile in state.tiles:
            assert geo.places_for(tile) == fresh.places_for(tile), tile
            assert geo.pieces_without(tile) == fresh.pieces_without(tile) or \
                sorted(map(sorted, geo.pieces_without(tile))) == sorted(map(sorted, fresh.pieces_without(tile))), tile
        assert geo.takeable() == fresh.takeable()
        assert [geo.borders_surrounding(p) for p in state.tiles] == [fresh.borders_surrounding(p) for p in state.tiles]
    same_masses(geo, ref)
    for p in [p for k in range(ref.radius + 2) for p in ring(k)]:
        assert geo.surrounding(p) == ref.surrounding(p), p
    for tile in state.tiles:
        assert geo.can_take(tile) == ref.can_take(tile), tile
        assert geo.places_for(tile) == ref.places_for(tile), tile
    assert geo.outside == ref.outside and sorted(map(sorted, geo.seas)) == sorted(map(sorted, ref.seas))


def split_from_scratch(state, tile, place):
    """T16 from its words: the parts of the land mass without the tile, the one touched, scored or not."""
    ref = Reference(state.tiles)
    home = ref.masses[ref.mass_of[tile]]
    parts = _components(home - {tile})
    touched = {i for i, part in enumerate(parts) for n in neighbours(place) if n in part}
    others = [n for n in neighbours(place) if n in state.tiles and n != tile and n not in home]
    if len(parts) < 2 or others or len(touched) != 1:
        return None
    part = parts[touched.pop()]
    return None if POLE in part else part | {place}


def listed_as_before(state) -> None:
    """Phase 2's moves, births and rescues (T12, T13) as the listing code before the fast paths made them."""
    seat, tiles = state.current, state.tiles
    enterable = {p for p, kind in tiles.items() if state.total(p) < CAPACITY[kind]}
    want_moves = []
    for a, counts in state.herds.items():
        if not counts[seat] or a not in tiles:
            continue
        spent = state.spent.get(a, 0)
        for b in neighbours(a):
            if b in enterable:
                for fresh in ([False, True] if 0 < spent < counts[seat] else [False]):
                    move = {"type": "move", "from": list(a), "to": list(b)}
                    if fresh:
                        move["fresh"] = True
                    want_moves.append(move)
    assert moves(state) == want_moves
    births = [] if not state.stock[seat] else [
        {"type": "reproduce", "at": list(a)} for a, c in state.herds.items()
        if a in enterable and c[seat] - state.spent.get(a, 0) > 0]
    assert reproductions(state) == births
    options = [(a, c[seat], [(a, b) for b in neighbours(a) if b in tiles])
               for a, c in state.herds.items() if c[seat] and a not in tiles]
    options = [o for o in options if o[2]]
    pairs = [pair for _, _, steps in options for pair in steps]
    have = {a: k for a, k, _ in options}
    want = []
    for size in (1, 2, 3) if pairs else ():
        for combo in combinations_with_replacement(pairs, size):
            used, added, fits = {}, {}, True
            for a, b in combo:
                used[a] = used.get(a, 0) + 1
                added[b] = added.get(b, 0) + 1
                fits = fits and used[a] <= have[a] and state.total(b) + added[b] <= CAPACITY[tiles[b]]
            if fits:
                want.append({"type": "rescue", "herds": [[list(a), list(b)] for a, b in combo]})
    assert rescues(state) == want


@pytest.mark.parametrize("listing,pinned", [(1, PINNED_JOURNALS), (2, PINNED_JOURNALS_2)])
def test_seeded_random_games_give_the_pinned_journals(listing, pinned):
    """Seeded random games (engine and random player) give exactly the journals pinned for each listing:
    a game set up with listing 1 (every game stored before listing 2) plays as it did then.

    From an empty board cache, as a process starting: whatever boards another test made first, the
    listing depends on the state alone (drift places in the places' order)."""
    from trias.state import forget_boards

    forget_boards()
    for players, digest in pinned.items():
        h = hashlib.sha256()
        for seed in range(4):
            state, journal = trias.new_game(players, seed, listing=listing)
            rng = random.Random(seed)
            while state.phase != "over":
                events, state = trias.handle(state, random_action(state, rng))
                journal += events
            h.update(json.dumps(journal, sort_keys=True).encode())
        assert h.hexdigest()[:16] == digest, players


def _command(word: str) -> dict:
    """One command of old_listing_games.txt: a letter, then places as q,r numbers."""
    kind, rest = word[0], word[1:]
    if kind == "R":
        pairs = [[int(x) for x in pair.split(",")] for pair in rest.split(";")]
        return {"type": "rescue", "herds": [[p[:2], p[2:]] for p in pairs]}
    n = [int(x) for x in rest.split(",")] if rest else []
    if kind in "dep" and not n:
        return {"type": {"d": "draw", "e": "end_turn", "p": "play"}[kind]}
    if kind == "P":
        return {"type": "place", "at": n}
    if kind == "r":
        return {"type": "reproduce", "at": n}
    if kind in "pD":
        return {"type": "play" if kind == "p" else "drift", "tile": n[:2], "to": n[2:]}
    move = {"type": "move", "from": n[:2], "to": n[2:]}
    return {**move, "fresh": True} if kind == "M" else move


def test_games_stored_with_the_old_listing_decide_to_their_journals():
    """A game stored before the listing changed is its commands: decided again (replay, `trias verify`)
    they give exactly the events they gave then, whatever order the drifts are listed in now."""
    games: dict = {}
    for line in OLD_GAMES.read_text().splitlines():
        players, seed, *words = line.split()
        games.setdefault(int(players), []).append((int(seed), [_command(w) for w in words]))
    assert sorted(games) == sorted(OLD_LISTING_JOURNALS)
    for players, digest in OLD_LISTING_JOURNALS.items():
        h = hashlib.sha256()
        for seed, commands in games[players]:
            state, journal = trias.new_game(players, seed, listing=1)  # set up as then: no "listing"
            for command in commands:
                assert trias.is_legal(state, command), (players, seed, command)
                events, state = trias.handle(state, command)
                journal += events
            assert state.phase == "over" and trias.replay(journal) == state
            h.update(json.dumps(journal, sort_keys=True).encode())
        assert h.hexdigest()[:16] == digest, players


def play_checked(players: int, seed: int) -> None:
    state, journal = trias.new_game(players, seed)
    rng = random.Random(seed)
    same_board(state)
    while state.phase != "over":
        if state.phase == "actions":
            listed_as_before(state)
        command = random_action(state, rng)
        if command.get("tile") and state.rules.interim_scoring:
            tile, place = tuple(command["tile"]), tuple(command["to"])
            assert interim_part(state, tile, place) == split_from_scratch(state, tile, place)
        events, after = trias.handle(state, command)
        if any(e["type"] == "drifted" for e in events):
            same_board(after)
        journal += events
        state = after
    assert trias.replay(journal) == state


@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_random_games_match_the_reference_board(players):
    for seed in range(3):
        play_checked(players, 900 + seed)


def _sea_board(thick: bool):
    """Land round a ring-1 sea (T5): the pole stands alone in an interior sea. Ring 2 alone
    (a drift opens the sea), or rings 2 and 3 (the sea outlasts drifts from ring 3)."""
    tiles = {p: "steppe" for p in ring(2)}
    tiles.update({p: "woods" for p in (ring(3) if thick else ring(3)[::3])})
    herds = {ring(3)[0]: (1, 1, 0), ring(3)[9]: (0, 1, 1)} if thick else {ring(2)[0]: (1, 1, 0), ring(3)[0]: (0, 0, 1)}
    return position(3, tiles, herds, ap=4)


def test_interior_sea_opened_and_closed_by_drifts_matches_the_reference():
    """Drifts that open an interior sea to the open water, or close a bay into one, chain the
    board's knowledge from one arrangement to the next; every step equals the reference."""
    rng = random.Random(5)
    for start in range(12):
        state = _sea_board(thick=start >= 6)
        state.current = start % 3
        same_board(state)
        for _ in range(8):
            drifts = trias.legal_drifts(state)
            if not drifts or state.phase != "actions":
                break
            pick = rng.choice(drifts)
            _, state = trias.handle(state, dict(pick, type="drift"))
            same_board(state)
            state.ap = 4  # keep drifting: the board is what is checked here
            state.phase = "actions"


def test_a_board_shared_between_threads_answers_the_same():
    """Boards are shared (one cache for every game): threads asking a new board's first
    questions at once, with the interpreter switching threads as often as it can, all get
    the reference's answers (the water is published whole, never half built)."""
    import sys
    import threading
    from trias.state import forget_boards

    boards = []  # (state before a drift, state after): the after board inherits on first use
    state, _ = trias.new_game(4, 31)
    rng = random.Random(31)
    while state.phase != "over" and len(boards) < 12:
        events, after = trias.handle(state, random_action(state, rng))
        if any(e["type"] == "drifted" for e in events):
            boards.append(after)
        state = after
    expected = [{t: Reference(b.tiles).places_for(t) for t in b.tiles} for b in boards]
    failures = []

    def ask(order):
        for i in order:
            geo = boards[i].geometry()
            for tile in boards[i].tiles:
                if geo.places_for(tile) != expected[i][tile]:
                    failures.append((i, tile))

    old = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)
    try:
        for make in (geometry_of, FloodGeometry, geometry_of, FloodGeometry):
            forget_boards()
            # Each board's geometry made anew (bits, or place by place with its water not yet
            # worked out), then children of those, their answers (and places) made on first use.
            parents = [make(b.tiles) for b in boards]
            for p in parents:
                if type(p) is FloodGeometry:
                    p._ready()
            for b, p in zip(boards[1:], parents):
                b.geo = make(b.tiles, p, *_moved(p.tiles, b.tiles))
            boards[0].geo = parents[0]
            threads = [threading.Thread(target=ask, args=(list(range(len(boards)))[::step],)) for step in (1, -1, 1, -1)]
            for t in threads:
                t.start()
            for t in threads:
                t.join()
    finally:
        sys.setswitchinterval(old)
    assert not failures


def _moved(before: dict, after: dict) -> tuple:
    """The (tile, place) of the one drift that turns `before` into `after`."""
    return next(p for p in before if p not in after), next(p for p in after if p not in before)


def _same_as_fresh(state) -> None:
    """A board carried over from the one before answers as one made from its tiles alone."""
    from trias.board import _rim_of

    geo = state.geometry()
    for fresh in (geometry_of(state.tiles), FloodGeometry(state.tiles)):
        same_masses(geo, fresh)
        if type(geo) is FloodGeometry:
            for i, mass in enumerate(geo.masses):
                assert geo._rim(i) == _rim_of(mass), mass
        for tile in state.tiles:
            assert geo.places_for(tile) == fresh.places_for(tile), tile
        assert geo.takeable() == fresh.takeable()
        assert [geo.borders_surrounding(p) for p in state.tiles] == [fresh.borders_surrounding(p) for p in state.tiles]


@pytest.mark.parametrize("players", [2, 4, 5])
def test_every_drift_from_a_board_gives_the_board_made_afresh(players):
    """Seeded random games; at every fourth drift decision, up to 12 of the drifts listed are made from
    the same board (as a search tries them: the board before and its answers are shared by all of
    them), and each board they give equals one made from scratch: land masses, rims, drift places,
    takeable tiles."""
    from trias.state import forget_boards

    forget_boards()
    checked = 0
    for seed in range(2):
        state, _ = trias.new_game(players, 700 + seed)
        rng = random.Random(seed)
        decisions = 0
        while state.phase != "over":
            drifts = trias.legal_drifts(state) if state.phase in ("start", "drift") else []
            decisions += bool(drifts)
            if drifts and decisions % 4 == 1:
                kind = "play" if state.phase == "start" else "drift"
                for drift in rng.sample(drifts, min(12, len(drifts))):
                    _, after = trias.handle(state, dict(drift, type=kind))
                    _same_as_fresh(after)
                    checked += 1
            _, state = trias.handle(state, random_action(state, rng))
    assert checked > 60, checked


def test_boards_beyond_the_bit_grid_answer_as_the_reference():
    """A land mass reaching past the bit board's grid (T4: the board is unbounded) is answered place
    by place (board.FloodGeometry), and a drift from a bit board onto the grid's margin, or back
    from a far board, gives the same answers as the reference: land masses, water, drift places."""
    from trias.bitboard import HIGH, LOW

    for reach in (HIGH - 1, HIGH, HIGH + 1, HIGH + 6):
        # A line of steppe from the pole out along q, herds on it, plus a knob to drift.
        tiles = {(q, 0): "steppe" for q in range(1, reach + 1)}
        tiles.update({(q, -1): "woods" for q in range(2, reach + 1, 3)})
        herds = {(1, 0): (1, 1, 1), (reach, 0): (1, 1, 1)}
        state = position(3, tiles, herds, ap=4)
        far = reach > HIGH
        assert isinstance(state.geometry(), FloodGeometry if far else BitGeometry)
        same_board(state)
        drifts = trias.legal_drifts(state)
        for drift in drifts[:2] + sorted(drifts, key=lambda d: -d["to"][0])[:4]:  # the farthest out, and two others
            _, after = trias.handle(state, dict(drift, type="drift"))
            same_board(after)
            beyond = any(not (LOW <= q <= HIGH and LOW <= r <= HIGH) for q, r in after.tiles)
            assert isinstance(after.geometry(), FloodGeometry if beyond else BitGeometry), drift


def test_a_board_with_an_interior_sea_carries_it_through_a_drift_that_cuts_nothing_off(monkeypatch):
    """A drift elsewhere on a board with an interior sea (T5) keeps the sea without a flood fill of the
    water (the fill starts from the water outside the tiles' box: refused here), and the board it gives
    equals the reference's, as does one whose drift opens the sea."""
    import trias.bitboard as bitboard

    rng = random.Random(3)
    carried = 0
    for start in range(6):
        state = _sea_board(thick=True)
        state.current = start % 3
        for _ in range(8):
            drifts = trias.legal_drifts(state)
            if not drifts:
                break
            before = state.geometry().S
            pick = rng.choice(drifts)
            _, after = trias.handle(state, dict(pick, type="drift"))
            to = tuple(pick["to"])
            water = sum(1 << k for k, n in enumerate(neighbours(to)) if n not in after.tiles)
            if before and bitboard._RUNS[water] <= 1:  # a sea before, and the new place cuts nothing off
                with monkeypatch.context() as m:
                    m.setattr(bitboard, "_outside_box", lambda box: pytest.fail("flood fill of the water"))
                    seas = after.geometry().S
                carried += 1
                assert seas & ~before == 0  # no new sea
            same_board(after)  # the seas as the reference finds them
            state = after
            state.ap, state.phase = 4, "actions"
    assert carried >= 5, carried


def test_the_random_players_draws_are_those_of_random_random():
    """trias.draws shuffles and chooses with the very bits Random.shuffle and Random.choice use (a seeded
    game draws alike either way), and leaves any other generator to its own methods."""
    from trias.draws import below, shuffle

    for seed in range(40):
        ours, theirs = random.Random(seed), random.Random(seed)
        for n in (1, 2, 3, 5, 8, 17, 33, 64, 100):
            a, b = list(range(n)), list(range(n))
            shuffle(ours, a)
            theirs.shuffle(b)
            assert a == b
            assert below(ours, n) == theirs.choice(range(n))
        assert ours.getstate() == theirs.getstate()

    class Counting(random.Random):
        calls = 0

        def shuffle(self, x):
            Counting.calls += 1
            super().shuffle(x)

    shuffle(Counting(1), [1, 2, 3])
    assert Counting.calls == 1
    with pytest.raises(IndexError):
        below(random.Random(1), 0)


def _drawn_from_the_list(state, landscape, rng):
    """Listing 2's random drift as its list gives it: the seat's drift tiles in the places' order, the k-th
    drawn (k from `rng`) and dropped while it has no drift place, then the k-th of its places."""
    from trias.draws import below

    geo = state.geometry()
    for wanted in ([landscape, None] if landscape is not None else [None]):
        tiles = sorted(drift_tiles_as_listing_1(state, wanted))
        while tiles:
            a = tiles.pop(below(rng, len(tiles)))
            found = geo.places_for(a)
            if found:
                return a, found[below(rng, len(found))]
    return None


def drift_tiles_as_listing_1(state, landscape):
    from trias.legal import drift_tiles

    old = state.copy()
    old.listing = 1
    return drift_tiles(old, old.current, landscape)


def _listing_2_draws_as_its_list(state) -> int:
    """Listing 2's drift tiles are listing 1's in the places' order, and its random drift (from the bits
    on a bit board) draws what the list gives, leaving the generator where the list leaves it."""
    from trias.legal import drift_landscape, drift_tiles, random_drift

    assert state.listing == 2
    checked = 0
    for landscape in {drift_landscape(state), None}:
        assert drift_tiles(state, state.current, landscape) == sorted(drift_tiles_as_listing_1(state, landscape))
        for k in range(3):
            ours, theirs = random.Random(k), random.Random(k)
            assert random_drift(state, state.current, landscape, ours) == _drawn_from_the_list(state, landscape, theirs)
            assert ours.getstate() == theirs.getstate()
            checked += 1
    return checked


@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_listing_2_draws_a_drift_from_the_bits_as_from_its_list(players):
    """New games (listing 2) list a seat's drift tiles in the places' order and draw a random drift
    straight from the bits: the same tile and place as drawing from the list, draw for draw."""
    checked = 0
    for seed in range(2):
        state, _ = trias.new_game(players, 950 + seed)
        rng = random.Random(seed)
        while state.phase != "over":
            if state.phase in ("start", "drift") or (state.phase == "actions" and state.ap >= 3):
                assert isinstance(state.geometry(), BitGeometry)
                checked += _listing_2_draws_as_its_list(state)
            _, state = trias.handle(state, random_action(state, rng))
    assert checked > 100


def test_listing_2_on_a_board_beyond_the_bit_grid_draws_as_its_list():
    """A board past the bit grid (board.FloodGeometry) lists and draws listing 2's way too."""
    from trias.bitboard import HIGH

    tiles = {(q, 0): "steppe" for q in range(1, HIGH + 7)}
    tiles.update({(q, -1): "woods" for q in range(2, HIGH + 7, 3)})
    state = position(3, tiles, {(1, 0): (1, 1, 1), (HIGH + 6, 0): (1, 1, 1)}, ap=4, listing=2)
    assert isinstance(state.geometry(), FloodGeometry)
    assert _listing_2_draws_as_its_list(state)
    state.phase, state.card = "drift", "woods"
    assert _listing_2_draws_as_its_list(state)


def test_a_game_keeps_its_listing_through_its_journal_and_its_view():
    """The listing is the set-up event's (none in it: 1, as every game stored before listing 2): replay and
    a bot's view of the game carry it, so a game's bots list and draw as when it began."""
    from trias.bots.determinise import determinise
    from trias.setup import setup_events

    old = setup_events(4, 7, listing=1)
    assert "listing" not in old[0] and trias.replay(old).listing == 1
    assert setup_events(4, 7)[0]["listing"] == 2
    for listing in (1, 2):
        state, journal = trias.new_game(4, 7, listing=listing)
        rng = random.Random(7)
        for _ in range(40):
            _, state = trias.handle(state, random_action(state, rng))
        view = trias.view(state, state.current)
        assert view["listing"] == listing == determinise(view, random.Random(1)).listing
        assert trias.replay(journal).listing == listing


def test_a_board_made_by_a_drift_is_cached_when_met_again():
    """A game meets each board once: a board one drift from a known one is cached only when the same drift
    from the same board comes again (a search's), so a game's boards go with its states. Either way
    the board is the same as one made afresh."""
    from trias import state as states

    states.forget_boards()
    state, _ = trias.new_game(4, 5)
    rng = random.Random(5)
    while not (state.phase == "start" and trias.legal_drifts(state)):
        _, state = trias.handle(state, random_action(state, rng))
    state.geo = None
    state.geometry()  # a board met afresh (its tiles the key): cached at once
    drift = trias.legal_drifts(state)[0]
    known = len(states._GEOMETRIES)
    boards = []
    for _ in range(3):
        _, after = trias.handle(state, dict(drift, type="play"))
        boards.append(after.geometry())
        same_board(after)
    assert len(states._GEOMETRIES) == known + 1  # cached when met the second time, and found the third
    assert boards[0] is not boards[1] and boards[1] is boards[2]
