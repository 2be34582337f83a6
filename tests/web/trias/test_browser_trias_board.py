"""Board-first play on a seat's phone, in real Chromium on 360x740 and 412x915.

The phone was played like a developer's move panel: a scroll box of 30+ buttons such as "Play
the card: drift -3,3 to 4,-2" above the board, "End the turn" scrolled out of view after a phase
change, an interim scoring (T16) announced as coordinates. Now a player taps a herd or a tile, its
legal places light up, taps one, confirms on one line; the next action sits in a bar that no phase
change scrolls away; a scored land mass is lit on the board with each scorer's +2 / +1.

Needs Playwright's Python package and Debian's Chromium (skipped without them). Waits are on what
the page shows (its journal number, its phase, its marks), never on fixed times.
"""

from __future__ import annotations

import os
import random
import re
import tempfile
from pathlib import Path

import pytest

from needs import module, needs  # noqa: E402
sync_api = module("playwright.sync_api")  # a stand-in without Playwright: pytestmark skips the tests
from browserkit import CHROMIUM  # noqa: E402,F401
# The app on 127.0.0.1 with its computer player, and pages that fail the test on a script error.
from test_browser_trias import PHONE, WAIT, pages, seq_of, server, wait_seq  # noqa: E402,F401

import trias  # noqa: E402

pytestmark = needs("playwright", "chromium")

BIG_PHONE = {"width": 412, "height": 915}
TV = {"width": 1920, "height": 1080}
COORDS = re.compile(r"-?\d+,-?\d+")
TOUCH = {"is_mobile": True, "has_touch": True}
# Screenshots to look at (TRIAS_SHOTS=folder keeps them; by default a fresh temporary folder).
SHOTS = Path(os.environ.get("TRIAS_SHOTS") or tempfile.mkdtemp(prefix="trias-board-"))
SHOTS.mkdir(parents=True, exist_ok=True)


def tap(page, key: str) -> None:
    """A finger on the middle of the hex at `key` ("q,r"), scrolled into view as a person would."""
    hexagon = page.locator(f'#board .base [data-place="{key}"] > polygon:first-child')
    hexagon.evaluate("node => node.scrollIntoView({block: 'center', inline: 'center'})")
    box = hexagon.bounding_box()
    page.touchscreen.tap(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)


def marked(page, kind: str) -> list:
    """The places the board lights now: kind is target (where it may go), soft (what may start), pending, selected."""
    return page.evaluate(f"() => [...document.querySelectorAll('#board .mark-{kind}')].map(n => n.dataset.place)")


def bar_button(page, selector: str):
    return page.locator(f"#actionbar {selector}")


def in_view(page, locator) -> bool:
    """Whether a person sees it: inside the window and not covered by anything at its middle."""
    return locator.evaluate("""node => {
        const r = node.getBoundingClientRect();
        if (!r.width || r.top < 0 || r.left < 0 || r.bottom > innerHeight || r.right > innerWidth) return false;
        const hit = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
        return !!hit && (hit === node || node.contains(hit));
    }""")


def confirm(page) -> None:
    """The one-line confirm: the move's sentence and its button, then wait for the move to land."""
    before = seq_of(page)
    button = bar_button(page, "[data-act=confirm]").first
    sync_api.expect(button).to_be_visible(timeout=WAIT)
    assert in_view(page, button)
    button.click()
    wait_seq(page, before + 1)


def tap_a_move(page, land_only: bool = False) -> bool:
    """Tap a lit piece, then one of its lit places; False if nothing lit goes anywhere (land_only: onto a tile)."""
    tiles = set(page.evaluate("() => [...document.querySelectorAll('#board .base .tile')].map(n => n.dataset.place)"))
    for start in marked(page, "soft"):
        tap(page, start)
        page.wait_for_function(f"() => !!document.querySelector('#board .mark-selected[data-place=\"{start}\"]')", timeout=WAIT)
        targets = [t for t in marked(page, "target") if t != start and (t in tiles or not land_only)]
        if targets:
            tap(page, targets[0])
            sync_api.expect(bar_button(page, "[data-act=confirm]").first).to_be_visible(timeout=WAIT)
            assert marked(page, "pending") == [targets[0]]  # the board shows where it goes while the bar asks
            return True
        tap(page, start)  # tapped again: let go
    return False


@pytest.mark.serial("a whole game tapped through with each step's wait bounded: too slow beside four workers")
def test_issue26_a_whole_game_on_a_360_phone_only_by_tapping_the_board(server, pages):
    app, url = server
    game = app.extensions["trias_games"].create(seats=[{"name": "Ana", "kind": "human"},
                                                       {"name": "Ordi", "kind": "computer", "level": "random"}], seed=7)
    phone = pages(PHONE, **TOUCH)
    phone.goto(f"{url}/trias/s/{game.seats[0]['token']}")
    wait_seq(phone, game.last_seq)
    width = phone.evaluate("() => document.querySelector('#board').getBoundingClientRect().width")
    assert width >= PHONE["width"] - 1  # the board fills the phone's width
    board_top = phone.evaluate("() => document.querySelector('#board').getBoundingClientRect().top")
    for above in ("#hand", "#turn"):  # the card and the turn above the board
        assert phone.evaluate(f"() => document.querySelector('{above}').getBoundingClientRect().bottom") <= board_top
    seen = set()
    for _ in range(300):
        phone.wait_for_function("() => document.body.dataset.phase === 'over' || document.body.dataset.myturn === '1'", timeout=WAIT)
        wait_seq(phone, game.last_seq)
        phase = phone.evaluate("() => document.body.dataset.phase")
        if phase == "over":
            break
        assert phone.locator("#moves-panel").is_hidden()  # the list is never opened
        seen.add(phase)
        if phase == "place":
            targets = marked(phone, "target")
            if len(seen) == 1:
                phone.screenshot(path=str(SHOTS / "seat-placing-360.png"))
            assert len(targets) == sum(1 for p in game.state.tiles if not game.state.total(p))  # every vacant tile lit (T8)
            tap(phone, targets[len(seen) % len(targets)])
            confirm(phone)
        elif phase in ("start", "drift"):
            if tap_a_move(phone):
                confirm(phone)
                seen.add(phase + ":drift")
            else:  # no drift with this card (T11): the bar says what is left
                before = seq_of(phone)
                bar_button(phone, "[data-act=command]").first.click()
                wait_seq(phone, before + 1)
        else:
            end = bar_button(phone, "[data-act=command][data-type=end_turn]")
            assert in_view(phone, end)  # the next required action is on screen, whatever was scrolled
            if game.state.ap >= 1 and "moved" not in seen and tap_a_move(phone, land_only=True):
                confirm(phone)
                seen.add("moved")
                continue
            before = seq_of(phone)
            end.click()
            wait_seq(phone, before + 1)
    assert game.state.phase == "over"
    assert {"place", "start", "actions", "start:drift", "moved"} <= seen, seen
    assert phone.locator("#moves-panel").is_hidden()
    sync_api.expect(phone.locator("#end-panel")).to_be_visible(timeout=WAIT)
    winners = [game.seats[s]["name"] for s in game.state.result["winners"]]
    sync_api.expect(phone.locator(".trias-winner")).to_contain_text(winners[0])
    sync_api.expect(phone.locator("#actionbar")).to_be_hidden()
    assert phone.evaluate("() => document.documentElement.scrollWidth <= window.innerWidth")
    phone.screenshot(path=str(SHOTS / "seat-game-over-360.png"))


def play(app, game, command: dict, key: str) -> None:
    """The seat to play moves from another of its screens, and every open screen is told (as the route does)."""
    from bank.web.trias.live import publish

    before = game.last_seq
    game.execute(command, key, f"seat:{game.state.current}")
    publish(app, game, before)


def placed_pair(app, seed: int):
    """Two people, herds placed (T8): the first turn's phase 1 is next."""
    game = app.extensions["trias_games"].create(seats=[{"name": "Ana", "kind": "human"}, {"name": "Bob", "kind": "human"}], seed=seed)
    n = 0
    while game.state.phase == "place":
        n += 1
        game.execute(trias.legal_actions(game.state)[0], f"place-{n}", f"seat:{game.state.current}")
    return game


# Counts every scroll the page's own code asks for (scrollTo, scrollBy, scroll, scrollIntoView, focus without
# preventScroll), so a test can tell the page's scrolling from the browser's.
COUNT_SCRIPT_SCROLLS = """() => {
  window.scriptScrolls = 0;
  const count = (owner, name, scrolls = () => true) => {
    const original = owner[name];
    owner[name] = function (...args) { if (scrolls(args)) window.scriptScrolls += 1; return original.apply(this, args); };
  };
  for (const name of ["scrollTo", "scrollBy", "scroll"]) { count(window, name); count(Element.prototype, name); }
  count(Element.prototype, "scrollIntoView");
  count(HTMLElement.prototype, "focus", (args) => !(args[0] && args[0].preventScroll));
}"""


def scrolled_to_the_end(page) -> int:
    """The person scrolled down (to the scores, the board's foot): how far."""
    page.evaluate("() => window.scrollTo(0, document.documentElement.scrollHeight)")
    page.wait_for_function("() => window.scrollY > 0", timeout=WAIT)
    return page.evaluate("() => window.scrollY")


def test_issue26_after_a_phase_change_the_next_action_is_on_screen_without_scrolling(server, pages):
    app, url = server
    game = placed_pair(app, 3)
    first, second = game.state.current, 1 - game.state.current
    for viewport in (PHONE, BIG_PHONE):
        phone = pages(viewport, **TOUCH)
        phone.goto(f"{url}/trias/s/{game.seats[second]['token']}")
        wait_seq(phone, game.last_seq)
        scrolled = scrolled_to_the_end(phone)
        if viewport is BIG_PHONE:
            break
        phone.evaluate(COUNT_SCRIPT_SCROLLS)
        # The other seat plays its whole turn: this phone's turn begins (waiting -> phase 1).
        n = 0
        while game.state.current == first:
            legal = trias.legal_actions(game.state)
            n += 1
            play(app, game, next((c for c in legal if c["type"] in ("end_turn", "draw")), legal[0]), f"first-{n}")
        wait_seq(phone, game.last_seq)
        draw = phone.get_by_role("button", name="Piocher une carte", exact=True)
        sync_api.expect(draw).to_be_visible(timeout=WAIT)
        assert in_view(phone, draw)
        # Nothing moved under the finger: the page's code never scrolled it. The browser may still hold the
        # view a little higher or lower when the other seat's drift reshapes the board above (scroll anchoring),
        # never by more than a line of the board.
        assert phone.evaluate("() => window.scriptScrolls") == 0
        assert abs(phone.evaluate("() => window.scrollY") - scrolled) <= 64, (phone.evaluate("() => window.scrollY"), scrolled)
        before = seq_of(phone)
        draw.click()
        wait_seq(phone, before + 1)
        if game.state.phase == "drift":  # the drawn card's drift (T9), made here by the seat's other screen
            play(app, game, trias.legal_actions(game.state)[0], "second-drift")
        assert game.state.phase == "actions"
        scrolled = scrolled_to_the_end(phone)
        wait_seq(phone, game.last_seq)
        end = phone.get_by_role("button", name="Finir le tour", exact=True)
        sync_api.expect(end).to_be_visible(timeout=WAIT)
        assert in_view(phone, end)
        phone.screenshot(path=str(SHOTS / "seat-actions-scrolled-360.png"))
    assert in_view(phone, phone.locator("#actionbar #bar-text"))  # a 412x915 phone scrolled down still says what comes next
    phone.screenshot(path=str(SHOTS / "seat-waiting-scrolled-412.png"))


def scoring_position(players: int = 3, seed: int = 6):
    """Moves from a new game (seed `seed`) to a position whose next drift is an interim scoring
    that gives points (T16), with that drift and its event; the moves are drawn at random (seed 0)."""
    state, _ = trias.new_game(players=players, seed=seed)
    rng, moves = random.Random(0), []
    while state.phase != "over":
        legal = trias.legal_actions(state)
        for command in legal:
            if command["type"] in ("play", "drift"):
                events, _ = trias.handle(state, command)
                scored = [e for e in events if e["type"] == "scored" and e.get("reason") == "interim" and sum(e["points"])]
                if scored:
                    return moves, command, scored[0]
        command = next(c for c in legal if c["type"] == "end_turn") if state.phase == "actions" else rng.choice(legal)
        moves.append(command)
        _, state = trias.handle(state, command)
    raise AssertionError("no interim scoring in this game")


def test_t16_an_interim_scoring_lights_its_land_mass_with_the_points_on_it(server, pages):
    app, url = server
    moves, drift, scored = scoring_position()
    game = app.extensions["trias_games"].create(seats=[{"name": n, "kind": "human"} for n in ("Ana", "Bob", "Cyd")], seed=6)
    for n, command in enumerate(moves):
        game.execute(command, f"m{n}", f"seat:{game.state.current}")
    scorer = game.state.current
    watcher = (scorer + 1) % 3
    phone = pages(PHONE, **TOUCH)
    phone.goto(f"{url}/trias/s/{game.seats[watcher]['token']}")
    tv = pages(TV)
    tv.goto(f"{url}/trias/g/{game.id}")
    for page in (phone, tv):
        wait_seq(page, game.last_seq)
        assert page.locator("#board .mass-lit").count() == 0
    play(app, game, drift, "the-scoring-drift")
    winners = {seat: pts for seat, pts in enumerate(scored["points"]) if pts}
    for page in (phone, tv):
        wait_seq(page, game.last_seq)
        sync_api.expect(page.locator("#board .mass-lit").first).to_be_attached(timeout=WAIT)
        lit = page.evaluate("() => [...document.querySelectorAll('#board .mass-lit')].map(n => n.dataset.lit)")
        assert sorted(lit) == sorted(scored["tiles"])  # the whole land mass, nothing else
        shown = page.evaluate("""() => [...document.querySelectorAll('#board .mass-point')].map(n => (
            {seat: +n.dataset.seat, text: n.querySelector('text').textContent}))""")
        assert {s["seat"]: s["text"] for s in shown} == {seat: f"+{pts}" for seat, pts in winners.items()}
        announce = page.locator("#announce")
        sync_api.expect(announce).to_contain_text("(T16)", timeout=WAIT)
        for seat, pts in winners.items():
            sync_api.expect(announce).to_contain_text(f"{game.seats[seat]['name']} +{pts}")
        assert not COORDS.search(announce.inner_text())  # no list of coordinates
    box = phone.locator("#board").bounding_box()
    for point in phone.locator("#board .mass-point").all():  # the points are drawn on the board, inside it
        mark = point.bounding_box()
        assert box["x"] <= mark["x"] and mark["x"] + mark["width"] <= box["x"] + box["width"]
    phone.screenshot(path=str(SHOTS / "seat-interim-scoring-360.png"))
    tv.screenshot(path=str(SHOTS / "board-interim-scoring-1080.png"))


def test_t12_two_swimmers_rescued_for_one_point_by_tapping_each_then_its_tile(server, pages):
    app, url = server
    game = app.extensions["trias_games"].create(seats=[{"name": n, "kind": "human"} for n in ("Ana", "Bob", "Cyd")], seed=3)
    rng = random.Random(0)
    while not any(c["type"] == "rescue" and len({tuple(h[0]) for h in c["herds"]}) >= 2 for c in trias.legal_actions(game.state)):
        assert game.state.phase != "over", "no position with two places of swimmers"
        play(app, game, rng.choice(trias.legal_actions(game.state)), f"r{game.last_seq}")
    seat, points = game.state.current, game.state.ap
    swimmers = sorted({f"{p[0]},{p[1]}" for p, counts in game.state.herds.items() if counts[seat] and p not in game.state.tiles})
    phone = pages(PHONE, **TOUCH)
    phone.goto(f"{url}/trias/s/{game.seats[seat]['token']}")
    wait_seq(phone, game.last_seq)
    assert set(swimmers) <= set(marked(phone, "soft"))  # every swimmer is lit as something to tap
    steps = []
    for swimmer in swimmers[:2]:
        tap(phone, swimmer)
        phone.wait_for_function(f"() => !!document.querySelector('#board .mark-selected[data-place=\"{swimmer}\"]')", timeout=WAIT)
        onto = marked(phone, "target")
        assert onto and all(tuple(map(int, k.split(","))) in game.state.tiles for k in onto)  # onto tiles next to it (T12)
        tap(phone, onto[0])
        sync_api.expect(bar_button(phone, "[data-act=confirm]")).to_be_visible(timeout=WAIT)
        steps.append((swimmer, onto[0]))
    sync_api.expect(phone.locator("#bar-text")).to_contain_text("Sauvetage")
    confirm(phone)
    assert game.state.ap == points - 1  # one point for both (T12)
    for swimmer, onto in steps:
        q, r = map(int, onto.split(","))
        assert game.state.herds[(q, r)][seat] >= 1


def hex_width(page) -> float:
    return page.evaluate("() => document.querySelector('#board .base .tile polygon').getBoundingClientRect().width")


def pinch(page, start: float, end: float) -> None:
    """Two fingers on the board moving from `start` to `end` px apart (Chromium builds the touches)."""
    page.evaluate("""([start, end]) => {
        const pan = document.querySelector('.trias-pan'), r = pan.getBoundingClientRect(), y = r.top + r.height / 2, x = r.left + r.width / 2;
        const touches = d => [0, 1].map(i => new Touch({identifier: i, target: pan, clientX: x + (i ? d : -d) / 2, clientY: y}));
        pan.dispatchEvent(new TouchEvent('touchstart', {touches: touches(start), bubbles: true}));
        pan.dispatchEvent(new TouchEvent('touchmove', {touches: touches(end), bubbles: true}));
        pan.dispatchEvent(new TouchEvent('touchend', {touches: [], bubbles: true}));
    }""", [start, end])


def test_issue26_the_five_player_map_fits_the_phone_and_zooms_with_buttons_and_two_fingers(server, pages):
    app, url = server
    game = app.extensions["trias_games"].create(seats=[{"name": n, "kind": "human"} for n in "ABCDE"], seed=4)
    phone = pages(PHONE, **TOUCH)
    phone.goto(f"{url}/trias/s/{game.seats[0]['token']}")
    wait_seq(phone, game.last_seq)
    thumb = hex_width(phone)
    assert thumb >= 44  # zoomed at first to a thumb's width, the board panning in its box
    sync_api.expect(phone.locator("#pan-hint")).to_be_visible()
    assert phone.evaluate("() => document.documentElement.scrollWidth <= window.innerWidth")  # the board pans in its box
    phone.screenshot(path=str(SHOTS / "seat-five-players-360.png"))
    phone.click("#zoom-out")  # the whole map in the phone's width
    fitted = hex_width(phone)
    assert 30 <= fitted < thumb
    sync_api.expect(phone.locator("#zoom-out")).to_be_disabled()
    phone.screenshot(path=str(SHOTS / "seat-five-players-whole-360.png"))
    phone.click("#zoom-in")
    assert abs(hex_width(phone) - thumb) < 1
    pinch(phone, 100, 300)  # spread to three times: the biggest step
    assert hex_width(phone) >= 87
    sync_api.expect(phone.locator("#zoom-in")).to_be_disabled()
    pinch(phone, 300, 100)
    assert abs(hex_width(phone) - fitted) < 1
    tap(phone, marked(phone, "target")[0])  # a tap still reaches the board after pinching
    sync_api.expect(bar_button(phone, "[data-act=confirm]")).to_be_visible(timeout=WAIT)
