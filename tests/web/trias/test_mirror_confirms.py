"""The mirror tablet records the physical table's moves by tapping the board, with the phone's
confirm bar, in real Chromium on a 1280x800 tablet.

It recorded a placement on a single tap with no confirmation (a finger resting on the wrong hex
wrote a move into the journal), and offered a list of 35 buttons named by coordinates, with
coordinates on every hex. Now a tap chooses, the bar says the move in words with Confirm and
Cancel, and nothing is recorded before Confirm; the list stays closed for a keyboard or a screen
reader, and the hexes show no coordinates unless asked.

Needs Playwright's Python package and Debian's Chromium (skipped without them).
"""

from __future__ import annotations

import os
import re
import tempfile
from pathlib import Path

from needs import module, needs  # noqa: E402
sync_api = module("playwright.sync_api")  # a stand-in without Playwright: pytestmark skips the tests
from browserkit import CHROMIUM  # noqa: E402,F401
from test_browser_trias import TABLET, WAIT, pages, server, wait_seq  # noqa: E402,F401

import trias  # noqa: E402

pytestmark = needs("playwright", "chromium")

SHOTS = Path(os.environ.get("TRIAS_SHOTS") or tempfile.mkdtemp(prefix="trias-mirror-"))
SHOTS.mkdir(parents=True, exist_ok=True)
COORDS = re.compile(r"-?\d+,-?\d+")


def record(app, game, command: dict) -> None:
    """The table records a move from another of its screens, and every open screen is told (as the route does)."""
    from bank.web.trias.live import publish

    before = game.last_seq
    game.execute(command, f"t{before}", "table")
    publish(app, game, before)


def tap(page, key: str) -> None:
    """A finger on the middle of the hex at `key`, whatever is drawn on top of it."""
    box = page.locator(f'#board .base [data-place="{key}"] > polygon:first-child').bounding_box()
    page.mouse.click(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)


def key(place) -> str:
    return f"{place[0]},{place[1]}"


def test_t8_t9_the_mirror_tablet_asks_before_it_records_a_move_tapped_on_the_board(server, pages):
    app, url = server
    game = app.extensions["trias_games"].create(seats=[{"name": n, "kind": "human"} for n in ("Ana", "Bob", "Cyd")],
                                                seed=8, mode="mirror")
    tablet = pages(TABLET)
    tablet.goto(f"{url}/trias/g/{game.id}?t={game.table_secret}")
    wait_seq(tablet, game.last_seq)
    # Recorded by the board, not by a list of coordinates: the list closed, no coordinates on the hexes.
    assert not tablet.locator("#record-panel details").evaluate("d => d.open")
    labels = tablet.evaluate("() => [...document.querySelectorAll('#board .label')].filter(n => n.getClientRects().length).map(n => n.textContent)")
    assert [text for text in labels if COORDS.fullmatch(text)] == []
    bar = tablet.locator("#actionbar #bar-text")
    sync_api.expect(bar).to_contain_text("Ana a posé 2 troupeaux (T8)")
    # A placement (T8): one tap asks, Cancel takes nothing, the second time Confirm records it.
    vacant = key(next(c["at"] for c in trias.legal_actions(game.state) if c["type"] == "place"))
    before = game.last_seq
    tap(tablet, vacant)
    confirm = tablet.locator("#actionbar [data-act=confirm]")
    sync_api.expect(confirm).to_be_visible(timeout=WAIT)
    sync_api.expect(bar).to_contain_text("Poser 2 troupeaux sur la tuile marquée (T8).")
    assert tablet.evaluate("() => [...document.querySelectorAll('#board .mark-pending')].map(n => n.dataset.place)") == [vacant]
    tablet.screenshot(path=str(SHOTS / "mirror-placing-confirm-1280.png"))
    tablet.wait_for_timeout(300)
    assert game.last_seq == before  # a single tap records nothing
    tablet.click("#actionbar [data-act=cancel]")
    sync_api.expect(confirm).to_be_hidden()
    assert game.last_seq == before
    tap(tablet, vacant)
    tablet.click("#actionbar [data-act=confirm]")
    wait_seq(tablet, before + 1)
    assert game.state.herds[tuple(map(int, vacant.split(",")))][0] == 2
    # The other placements, made from another screen; then phase 1: the tile tapped names the card played (T9).
    while game.state.phase == "place":
        record(app, game, trias.legal_actions(game.state)[0])
    wait_seq(tablet, game.last_seq)
    drift = next(d for kind in ("mountain", "steppe", "woods") for d in trias.legal.drift_pairs(game.state, game.state.current, kind))
    tile, to = key(drift[0]), key(drift[1])
    before = game.last_seq
    tap(tablet, tile)
    tablet.wait_for_function(f"() => !!document.querySelector('#board .mark-selected[data-place=\"{tile}\"]')", timeout=WAIT)
    assert tablet.locator("#board .mark-target.mark-drift").count() >= 1  # its drifts, in the drifts' colour
    tap(tablet, to)
    sync_api.expect(confirm).to_be_visible(timeout=WAIT)
    landscape = game.state.tiles[drift[0]]
    sync_api.expect(bar).to_contain_text({"mountain": "Montagne", "steppe": "Steppe", "woods": "Forêt"}[landscape])
    tablet.screenshot(path=str(SHOTS / "mirror-drift-confirm-1280.png"))
    assert game.last_seq == before
    confirm.click()
    wait_seq(tablet, before + 1)
    assert game.state.tiles.get(drift[1]) == landscape and drift[0] not in game.state.tiles
