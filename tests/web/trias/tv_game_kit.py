"""A Trias game that makes every kind of move, and the TV's off-screen check, for the board page's tests."""

from __future__ import annotations

import itertools
import random

import trias

# A TV's check: everything a viewer would find off the screen, or cut by the side column's edge (it scrolls),
# among the elements `sel` picks: [what, text, [left, top, right, bottom]]. Hidden elements, the join panel
# (reached by scrolling) and the log's rows it hides to fit do not count.
OFF = """(sel) => {
  const shown = e => e.getClientRects().length > 0 && !e.closest('[hidden], .hidden') &&
    getComputedStyle(e).visibility !== 'hidden';
  const side = document.querySelector('.trias-side').getBoundingClientRect();
  const screen = {top: 0, left: 0, bottom: innerHeight, right: innerWidth};
  const within = (r, b) => r.top >= b.top - 0.5 && r.bottom <= b.bottom + 0.5 && r.left >= b.left - 0.5 && r.right <= b.right + 0.5;
  const out = [];
  for (const e of document.querySelectorAll(sel)) {
    if (!shown(e) || e.closest('.trias-join, #log li[hidden]')) continue;
    const leaf = e.children.length === 0 && e.textContent.trim();
    if (!leaf && !e.matches('button, .btn, a, input, select, summary')) continue;
    const r = e.getBoundingClientRect();
    const box = e.closest('.trias-side') ? side : screen;
    if (!within(r, screen) || !within(r, box))
      out.push([e.id || e.getAttribute('class') || e.tagName, e.textContent.trim().slice(0, 40),
                [r.left, r.top, r.right, r.bottom].map(Math.round)]);
  }
  return out;
}"""

NAMES = ["Ana", "Bénédicte", "Cyd", "Dominique", "Eli"]
# Every kind of row the last moves name: placing, a card played with its drift, a card drawn and
# its drift, a drift bought with action points, a herd's step, a rescue, a birth, a turn's end.
KINDS = {"place", "play", "draw", "drift", "action_drift", "move", "rescue", "reproduce", "end_turn"}


def people(app, n: int, seed: int, mode: str = "play"):
    """A game of `n` people on `app`."""
    return app.extensions["trias_games"].create(seats=[{"name": name, "kind": "human"} for name in NAMES[:n]],
                                                 seed=seed, mode=mode)


def kind_of(command: dict, phase: str) -> str:
    """The kind of row `command` makes in `phase` (a drift in phase 2 costs 3 action points, T12)."""
    if command["type"] == "drift" and phase == "actions":
        return "action_drift"
    return command["type"]


def moves(game, seed: int = 1, until=None, tag: str = "kinds"):
    """Play `game` move by move, trying kinds not yet made first; yields the kinds made so far after each move.

    `until(game)`: stop once true; otherwise the game is played to its end. `tag` starts the commands'
    ids: another call on the same game needs its own.
    """
    rng, made, keys = random.Random(seed), set(), itertools.count()
    while game.state.phase != "over" and not (until and until(game)):
        state = game.state
        legal = trias.legal_actions(state)
        fresh = [c for c in legal if kind_of(c, state.phase) not in made]
        busy = [c for c in legal if c["type"] != "end_turn"]
        # Drifts now and then (they make swimmers to rescue), steps and births mostly, then the turn's end.
        if fresh and rng.random() < 0.5:
            command = rng.choice(fresh)
        elif busy and rng.random() < 0.8:
            command = rng.choice(busy)
        else:
            command = next((c for c in legal if c["type"] == "end_turn"), legal[0])
        made.add(kind_of(command, state.phase))
        game.execute(command, f"{tag}-{next(keys)}", f"seat:{state.current}")
        yield made
