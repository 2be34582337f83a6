"""A seat's phone names places in words, as the TV does; points take their count's form; a drift
target stands out from the sea by more than its edge.

Before: a rescue confirmed "Salvataggio: 1,2→0,3", the confirm for a herd that may still reproduce
and the "which move?" buttons said "Déplacer un troupeau 0,-2 → 0,-1", and opening the list of moves
wrote each place's coordinates on the board; the scores said "1 pts" in French and English (Italian's "pt" was right); a drift
target was a tint of blue (#5aa9ff at 35%) on the light-blue sea, 1.3:1, told apart by its dashed
edge only. Here, in each language, games are played on the server up to a position offering each
kind of move (a rescue, a herd's step with the choice of a herd that may still reproduce, a drift
bought with action points); the seat's phone (and the mirror tablet, for a rescue and a herd's step)
taps it as a player does, and every text it shows (bar, buttons, list of moves, board) and every
confirm is read for a "q,r" pair.

Needs Playwright's Python package and Debian's Chromium (skipped without them).
"""

from __future__ import annotations

import os
import random
import re
import tempfile
from pathlib import Path

import pytest
from words_kit import js_t, template_strings

from needs import module, needs  # noqa: E402
sync_api = module("playwright.sync_api")  # a stand-in without Playwright: pytestmark skips the tests
from browserkit import CHROMIUM  # noqa: E402,F401
from test_browser_trias import PHONE, TABLET, WAIT, pages, server, wait_seq  # noqa: E402,F401 (fixtures)
from test_browser_trias_board import bar_button, marked, tap  # noqa: E402

import trias  # noqa: E402

COORDS = re.compile(r"\d+,\s?-?\d+")
TOUCH = {"is_mobile": True, "has_touch": True}
LANGS = ["fr", "en", "it"]
# Screenshots to look at (TRIAS_SHOTS=folder keeps them; by default a fresh temporary folder).
SHOTS = Path(os.environ.get("TRIAS_SHOTS") or tempfile.mkdtemp(prefix="trias-words-"))
SHOTS.mkdir(parents=True, exist_ok=True)
# Short, as a TV's score column has room for: the form follows the count where the language's does.
POINTS = {"fr": ["0 pt", "1 pt", "2 pts"], "en": ["0 pts", "1 pt", "2 pts"], "it": ["0 pt", "1 pt", "2 pt"]}

# Every text a person reads on the page: the body's (the board's SVG text included), each button's,
# and each place's tooltip.
SHOWN = """() => [document.body.innerText,
    ...[...document.querySelectorAll('button')].map(b => b.innerText),
    ...[...document.querySelectorAll('#board title')].map(n => n.textContent)].join('\\n')"""


def key(place) -> str:
    return f"{place[0]},{place[1]}"


def rescue(state, legal) -> list:
    return [c for c in legal if c["type"] == "rescue"]


def fresh_choice(state, legal) -> list:
    """Herd steps with the choice of a herd that may still reproduce or one that may not (T12)."""
    steps = [c for c in legal if c["type"] == "move"]
    plain = {(key(c["from"]), key(c["to"])) for c in steps if not c.get("fresh")}
    return [c for c in steps if c.get("fresh") and (key(c["from"]), key(c["to"])) in plain]


def action_drift(state, legal) -> list:
    return [c for c in legal if c["type"] == "drift" and state.phase == "actions"]


def reach(app, lang: str, want, seed: int, mode: str = "play"):
    """A 2-person game in `lang` played at random up to a position where `want` lists moves."""
    rng = random.Random(seed)
    for attempt in range(8):
        game = app.extensions["trias_games"].create(seats=[{"name": "Ana", "kind": "human"}, {"name": "Bob", "kind": "human"}],
                                                    seed=seed * 100 + attempt, lang=lang, mode=mode)
        while game.state.phase != "over":
            legal = trias.legal_actions(game.state)
            found = want(game.state, legal)
            if found:
                return game, found
            busy = [c for c in legal if c["type"] != "end_turn"]
            command = rng.choice(busy) if busy and rng.random() < 0.85 else next((c for c in legal if c["type"] == "end_turn"), legal[0])
            game.execute(command, f"w{game.last_seq}", "table" if mode == "mirror" else f"seat:{game.state.current}")
    raise AssertionError(f"no position for {want.__name__}")


def open_seat(pages, url, game):
    phone = pages(PHONE, **TOUCH)
    phone.goto(f"{url}/trias/s/{game.seats[game.state.current]['token']}")
    wait_seq(phone, game.last_seq)
    return phone


def pick(phone, start: str, end: str, kind: str | None = None) -> None:
    """Tap the piece at `start` (its `kind` of move lit), then `end`: the bar then asks to confirm."""
    tap(phone, start)
    phone.wait_for_function(f"() => !!document.querySelector('#board .mark-selected[data-place=\"{start}\"]')", timeout=WAIT)
    other = bar_button(phone, f"[data-act=kind][data-kind={kind}]") if kind else None
    if other is not None and other.count():
        other.click()
    phone.wait_for_function(f"() => !!document.querySelector('#board .mark-target[data-place=\"{end}\"]')", timeout=WAIT)
    tap(phone, end)
    sync_api.expect(bar_button(phone, "[data-act=confirm]").first).to_be_visible(timeout=WAIT)


def read(phone) -> str:
    """Every text the page shows now, with the list of moves opened (and closed again)."""
    shown = phone.evaluate(SHOWN)
    phone.locator("#moves-toggle").click()
    sync_api.expect(phone.locator("#moves-panel")).to_be_visible(timeout=WAIT)
    shown += "\n" + phone.evaluate(SHOWN)
    phone.locator("#moves-toggle").click()
    return shown


def coordinates(text: str) -> list:
    return [line for line in text.splitlines() if COORDS.search(line)]


@needs("playwright", "chromium")
@pytest.mark.parametrize("lang", LANGS)
def test_t12_moves_of_each_kind_are_confirmed_in_words_on_a_seat_phone(server, pages, lang):
    app, url = server
    dialogs = []
    said = {}
    # A rescue: the swimmer's place, then the tile it swims onto.
    game, found = reach(app, lang, rescue, seed=11)
    phone = open_seat(pages, url, game)
    phone.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
    step = found[0]["herds"][0]
    pick(phone, key(step[0]), key(step[1]))
    said["rescue"] = phone.locator("#bar-text").inner_text()
    assert said["rescue"].strip(), "the rescue's confirm says something"
    said["rescue page"] = read(phone)
    # A herd's step where a herd that may still reproduce may go too: "which move?" and a button each.
    game, found = reach(app, lang, fresh_choice, seed=12)
    phone = open_seat(pages, url, game)
    pick(phone, key(found[0]["from"]), key(found[0]["to"]), "herd")
    choices = bar_button(phone, "[data-act=confirm]").all_inner_texts()
    assert len(choices) == 2 and len(set(choices)) == 2, choices  # two moves, told apart in words
    phone.screenshot(path=str(SHOTS / f"seat-which-move-{lang}.png"))
    said["which move"] = "\n".join(choices + [phone.locator("#bar-text").inner_text()])
    said["which move page"] = read(phone)
    # A drift bought with action points: the tile, then a place lit in blue.
    game, found = reach(app, lang, action_drift, seed=13)
    phone = open_seat(pages, url, game)
    pick(phone, key(found[0]["tile"]), key(found[0]["to"]), "drift")
    said["drift"] = phone.locator("#bar-text").inner_text()
    phone.screenshot(path=str(SHOTS / f"seat-drift-confirm-{lang}.png"))
    said["drift page"] = read(phone)
    spoken = {what: coordinates(text) for what, text in said.items() if coordinates(text)}
    assert spoken == {} and not [m for m in dialogs if COORDS.search(m)], (spoken, dialogs)
    assert phone.locator("#my-score").inner_text().strip() in POINTS[lang]


@needs("playwright", "chromium")
@pytest.mark.parametrize("lang", ["it", "en"])
def test_t12_the_mirror_tablet_confirms_a_rescue_and_a_herds_step_in_words(server, pages, lang):
    """The mirror tablet records with the phone's taps and confirm bar: its sentences and its list of
    every legal move name places in words too."""
    app, url = server
    said = {}
    for want, seed in ((rescue, 21), (fresh_choice, 22)):
        game, found = reach(app, lang, want, seed=seed, mode="mirror")
        tablet = pages(TABLET)
        tablet.goto(f"{url}/trias/g/{game.id}?t={game.table_secret}")
        wait_seq(tablet, game.last_seq)
        start, end = (found[0]["herds"][0]) if want is rescue else (found[0]["from"], found[0]["to"])
        click(tablet, key(start))
        tablet.wait_for_function(f"() => !!document.querySelector('#board .mark-selected[data-place=\"{key(start)}\"]')", timeout=WAIT)
        herd = bar_button(tablet, "[data-act=kind][data-kind=herd]")
        if herd.count():
            herd.click()
        tablet.wait_for_function(f"() => !!document.querySelector('#board .mark-target[data-place=\"{key(end)}\"]')", timeout=WAIT)
        click(tablet, key(end))
        sync_api.expect(bar_button(tablet, "[data-act=confirm]").first).to_be_visible(timeout=WAIT)
        tablet.locator("#record-panel summary").click()  # every legal move, as a keyboard opens them
        said[want.__name__] = tablet.evaluate(SHOWN)
        assert tablet.locator("#actionbar #bar-text").inner_text().strip()
    spoken = {what: coordinates(text) for what, text in said.items() if coordinates(text)}
    assert spoken == {}, spoken


def click(page, place: str) -> None:
    """A pointer on the middle of the hex at `place` (a tablet's finger), whatever is drawn on top of it."""
    box = page.locator(f'#board .base [data-place="{place}"] > polygon:first-child').bounding_box()
    page.mouse.click(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)


# The drift target's look on the board: its fill (a colour or a pattern's layers) and edge, and the sea under it.
LOOK = """key => {
    const mark = document.querySelector(`#board .mark-target.mark-drift[data-place="${key}"]`);
    const sea = document.querySelector(`#board .base [data-place="${key}"] > polygon`);
    const style = getComputedStyle(mark), found = /url\\("?#([\\w-]+)"?\\)/.exec(style.fill);
    const layers = found ? [...document.getElementById(found[1]).querySelectorAll('rect')].map(r => ({
        fill: getComputedStyle(r).fill, opacity: +getComputedStyle(r).fillOpacity,
        share: r.width.baseVal.value / r.parentNode.width.baseVal.value})) : [];
    return {fill: style.fill, opacity: +style.fillOpacity, stroke: style.stroke, sea: getComputedStyle(sea).fill, layers};
}"""


def rgba(css: str) -> tuple:
    got = [float(x) for x in re.findall(r"[\d.]+", css)]
    return (got + [1.0])[:4]


def over(top: tuple, alpha: float, under: tuple) -> tuple:
    return tuple(alpha * top[i] + (1 - alpha) * under[i] for i in range(3))


def luminance(rgb) -> float:
    lin = [(c / 255 / 12.92) if c / 255 <= 0.04045 else ((c / 255 + 0.055) / 1.055) ** 2.4 for c in rgb]
    return 0.2126 * lin[0] + 0.7152 * lin[1] + 0.0722 * lin[2]


def contrast(a, b) -> float:
    hi, lo = sorted((luminance(a), luminance(b)), reverse=True)
    return (hi + 0.05) / (lo + 0.05)


def fill_contrast(look: dict) -> float:
    """The drift target's fill against the sea: a colour laid on it, or a pattern's stripes on its background."""
    sea = tuple(rgba(look["sea"])[:3])
    if not look["layers"]:
        colour = rgba(look["fill"])
        return contrast(over(colour[:3], colour[3] * look["opacity"], sea), sea)
    ground = sea
    for layer in [x for x in look["layers"] if x["share"] >= 0.999]:  # the pattern's background layers
        colour = rgba(layer["fill"])
        ground = over(colour[:3], colour[3] * layer["opacity"], ground)
    stripes = [x for x in look["layers"] if x["share"] < 0.999]
    assert stripes and all(x["share"] >= 0.25 for x in stripes), look  # stripes wide enough to see
    return min(contrast(over(rgba(x["fill"])[:3], rgba(x["fill"])[3] * x["opacity"], ground), sea) for x in stripes)


@needs("playwright", "chromium")
def test_a_drift_target_stands_out_from_the_sea_by_its_fill_and_its_edge(server, pages):
    app, url = server
    game, found = reach(app, "fr", action_drift, seed=13)
    phone = open_seat(pages, url, game)
    tile, to = key(found[0]["tile"]), key(found[0]["to"])
    tap(phone, tile)
    phone.wait_for_function(f"() => !!document.querySelector('#board .mark-selected[data-place=\"{tile}\"]')", timeout=WAIT)
    drift = bar_button(phone, "[data-act=kind][data-kind=drift]")
    if drift.count():
        drift.click()
    phone.wait_for_function(f"() => !!document.querySelector('#board .mark-drift[data-place=\"{to}\"]')", timeout=WAIT)
    look = phone.evaluate(LOOK, to)
    phone.screenshot(path=str(SHOTS / "seat-drift-targets.png"))
    sea = tuple(rgba(look["sea"])[:3])
    print(f"drift target {look}: fill {fill_contrast(look):.2f}:1, edge {contrast(rgba(look['stroke'])[:3], sea):.2f}:1")
    assert fill_contrast(look) >= 3, look  # WCAG 1.4.11: 3:1 for what tells a thing apart
    assert contrast(rgba(look["stroke"])[:3], sea) >= 3, look


@pytest.mark.parametrize("lang", LANGS)
def test_points_take_their_counts_form(app, lang):
    said = template_strings(app, "trias/_head.html", lang, path="/trias/")
    assert [js_t(said, lang, "points", n=n) for n in (0, 1, 2)] == POINTS[lang]
