#!/usr/bin/env python3
"""Screenshots of Trias at the table, for docs/screenshots/.

Serves the app on a scratch folder, plays a four-seat game (two people, two computer
opponents; the people's moves chosen by the greedy player) until a person is in the
middle of a turn, then saves trias-board-tv.png (1920x1080), trias-board-phone.png (360 px
wide, whole page), trias-seat-phone.png (360x740: the seat's bar of actions is fixed at the
bottom, so the phone's screen as seen) and trias-seat-phone-it.png (the same in Italian).
Then plays a second game to its end and saves what every screen opens on:
trias-result-tv.png (the board at 1280x720) and trias-result-phone.png (a seat at 360x740).
Last, the score calculator (/trias/score) at 360x740 with the rules' Example 3 counted: trias-score-phone.png.

    .venv/bin/python bench/web/trias/screenshots_trias.py [--out docs/screenshots] [--seed 12]
"""

from __future__ import annotations

import argparse
import random
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))

import trias  # noqa: E402


def play_until(game, stop, seed: int, prefix: str) -> None:
    """Play `game` until `stop(state)` or its end: computer seats by themselves, the people as the easy player."""
    rng, n = random.Random(seed), 0
    while game.state.phase != "over" and not stop(game.state):
        if game.computer_to_play() is not None:
            game.play_computer({"iterations": 50})
            continue
        s = game.state
        n += 1
        game.execute(trias.bots.choose(trias.view(s, s.current), "easy", None, rng), f"{prefix}-{n}", f"seat:{s.current}")


def seed_game(games, seed: int):
    """A game a few turns in, stopped with seat 0 (a person) in its action phase."""
    game = games.create(seats=[{"name": "Ana", "kind": "human"}, {"name": "Bruno", "kind": "human"},
                               {"name": "Chloé", "kind": "computer", "level": "easy"},
                               {"name": "Dev", "kind": "computer", "level": "random"}], seed=seed, lang="fr")
    play_until(game, lambda s: s.turn >= 9 and s.current == 0 and s.phase == "actions" and s.ap < s.rules.action_points,
               seed, "shot")
    if game.state.phase == "over":
        raise SystemExit("the game ended before the moment to photograph; try another --seed")
    return game


def finished_game(games, seed: int):
    """Two people and two computer seats named by their level, played to the end."""
    game = games.create(seats=[{"name": "Ana", "kind": "human"}, {"name": "Bruno", "kind": "human"},
                               {"name": "Ordinateur · moyen", "kind": "computer", "level": "medium"},
                               {"name": "Ordinateur · facile", "kind": "computer", "level": "easy"}], seed=seed, lang="fr")
    play_until(game, lambda s: False, seed, "end")
    return game


def shoot(browser, url: str, out: Path, name: str, viewport: dict, path: str, seq: int, whole: bool,
          lang: str | None = None) -> None:
    """One page once it shows entry `seq`, in its own context (a phone's: touch); `lang` picked on its switch."""
    phone = viewport["width"] < 800
    context = browser.new_context(viewport=viewport, is_mobile=phone, has_touch=phone)
    page = context.new_page()
    page.set_default_timeout(120_000)  # a loaded machine: Chromium is slow
    page.goto(url + path)
    page.wait_for_function(f"() => +document.body.dataset.seq >= {seq}")
    if lang:
        with page.expect_navigation():
            page.click(f'.lang-switch [data-lang="{lang}"]')
        page.wait_for_function(f"() => +document.body.dataset.seq >= {seq}")
    page.wait_for_timeout(600)  # the live badge turns green, fonts settle
    page.screenshot(path=str(out / name), full_page=whole)
    context.close()
    print(out / name)


def shoot_calculator(browser, url: str, out: Path) -> None:
    """The calculator with T20's Example 3 typed in as its browser test does, on its result."""
    from test_browser_trias_score import type_example_3

    context = browser.new_context(viewport={"width": 360, "height": 740}, is_mobile=True, has_touch=True)
    page = context.new_page()
    page.set_default_timeout(120_000)
    page.goto(url + "/trias/score")
    type_example_3(page)
    page.click("#compute")
    page.wait_for_selector("#result:not(.hidden)")
    # The page scrolls its result into view, smoothly: wait until the scrolling has stopped.
    page.wait_for_function("() => new Promise(done => { const y = scrollY; setTimeout(() => done(scrollY === y && y > 0), 400); })")
    page.screenshot(path=str(out / "trias-score-phone.png"))
    context.close()
    print(out / "trias-score-phone.png")


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default=str(ROOT / "docs" / "screenshots"))
    parser.add_argument("--seed", type=int, default=12)
    args = parser.parse_args(argv)
    from playwright.sync_api import sync_playwright

    from bank.web import create_app
    from browserkit import ARGS, CHROMIUM, serve_in_thread

    folder = Path(tempfile.mkdtemp(prefix="trias-shots-"))
    app = create_app({"DB": str(folder / "game.db"), "CONFIG": str(ROOT / "config.toml")})
    url, _ = serve_in_thread(app)
    game = seed_game(app.extensions["trias_games"], args.seed)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    seat = f"/trias/s/{game.seats[0]['token']}"
    phone = {"width": 360, "height": 740}
    shots = [("trias-board-tv.png", {"width": 1920, "height": 1080}, f"/trias/g/{game.id}", False, None),
             ("trias-board-phone.png", phone, f"/trias/g/{game.id}", True, None),
             ("trias-seat-phone.png", phone, seat, False, None),
             ("trias-seat-phone-it.png", phone, seat, False, "it")]
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        for name, viewport, path, whole, lang in shots:
            shoot(browser, url, out, name, viewport, path, game.last_seq, whole, lang)
        over = finished_game(app.extensions["trias_games"], args.seed + 1)
        for name, viewport, path in (("trias-result-tv.png", {"width": 1280, "height": 720}, f"/trias/g/{over.id}"),
                                     ("trias-result-phone.png", phone, f"/trias/s/{over.seats[0]['token']}")):
            shoot(browser, url, out, name, viewport, path, over.last_seq, False)
        shoot_calculator(browser, url, out)
        browser.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
