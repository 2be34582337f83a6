#!/usr/bin/env python3
"""Screenshots of Trias at the table, for docs/screenshots/.

Serves the app on a scratch folder, plays a four-seat game (two people, two computer
opponents; the people's moves chosen by the greedy player) until a person is in the
middle of a turn, then saves trias-board-tv.png (1920x1080), trias-board-phone.png and
trias-seat-phone.png (360 px wide, whole page).

    .venv/bin/python bench/screenshots_trias.py [--out docs/screenshots] [--seed 12]
"""

from __future__ import annotations

import argparse
import random
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))

import trias  # noqa: E402


def seed_game(games, seed: int):
    """A game a few turns in, stopped with seat 0 (a person) in its action phase."""
    game = games.create(seats=[{"name": "Ana", "kind": "human"}, {"name": "Bruno", "kind": "human"},
                               {"name": "Chloé", "kind": "computer", "level": "easy"},
                               {"name": "Dev", "kind": "computer", "level": "random"}], seed=seed, lang="fr")
    rng, n = random.Random(seed), 0
    while game.state.phase != "over":
        s = game.state
        if s.turn >= 9 and s.current == 0 and s.phase == "actions" and s.ap < s.rules.action_points:
            return game
        if game.computer_to_play() is not None:
            game.play_computer({"iterations": 50})
            continue
        command = trias.bots.choose(trias.view(s, s.current), "easy", None, rng)
        n += 1
        game.execute(command, f"shot-{n}", f"seat:{s.current}")
    raise SystemExit("the game ended before the moment to photograph; try another --seed")


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
    shots = [("trias-board-tv.png", {"width": 1920, "height": 1080}, f"/trias/g/{game.id}", False),
             ("trias-board-phone.png", {"width": 360, "height": 740}, f"/trias/g/{game.id}", True),
             ("trias-seat-phone.png", {"width": 360, "height": 740}, f"/trias/s/{game.seats[0]['token']}", True)]
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        for name, viewport, path, whole in shots:
            page = browser.new_page(viewport=viewport)
            page.goto(url + path)
            page.wait_for_function(f"() => +document.body.dataset.seq >= {game.last_seq}")
            page.wait_for_timeout(300)  # the live badge turns green
            page.screenshot(path=str(out / name), full_page=whole)
            print(out / name)
        browser.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
