"""A computer seat's turn, watched move by move on a seat's phone and on the TV.

Seen at a 4-player table with 3 computer seats: every computer move reached the phone, but nothing
pointed one out (no mark on the moved herd or the drifted tile, no words): the phone said only
"On attend Ordinateur · difficile" while the action points counted down. Now the phones and the TV
mark the board's last change (where the piece went outlined, where it came from dashed, an arrow
between) and say it in words with the seat's name, in a live region a screen reader follows, without
taking the focus or scrolling the page; the phone marks the other seats' moves, not its own, and while it
waits its board's box follows them (a move where the box does not show is brought to its middle).

Here a person plays the easy computer in real Chromium (the computer moves 0.05 s apart): every one of
the computer's board moves is marked and said on the phone (360x740) and on the TV (1280x720) as it
comes, in words without a "q,r" pair; the mark is a shape at 3:1 against the sea and every landscape;
axe-core finds nothing on either page with a move marked. Screenshots are kept to look at
(TRIAS_SHOTS=folder, by default a fresh temporary folder).

Needs Playwright's Python package and Debian's Chromium (skipped without them).
"""

from __future__ import annotations

import itertools
import os
import re
import tempfile
import time
from pathlib import Path

import pytest

from needs import module, needs  # noqa: E402
sync_api = module("playwright.sync_api")  # a stand-in without Playwright: pytestmark skips the tests
from browserkit import CHROMIUM  # noqa: E402,F401
from test_browser_trias import PHONE, WAIT, pages, server, wait_seq  # noqa: E402,F401 (fixtures)
from test_browser_trias_board import COUNT_SCRIPT_SCROLLS  # noqa: E402

import trias  # noqa: E402
from bank.web.trias.live import publish  # noqa: E402
from trias.hexes import neighbours  # noqa: E402
from trias.view import action_of  # noqa: E402

pytestmark = needs("playwright", "chromium")

TV = {"width": 1280, "height": 720}
TOUCH = {"is_mobile": True, "has_touch": True}
COORDS = re.compile(r"-?\d+\s*,\s*-?\d+")
BOT = "Ordinateur · facile"
VERBS = {"place": "pose 2 troupeaux : ", "play": "et fait dériver une tuile : ", "drift": "fait dériver une tuile",
         "move": "déplace un troupeau : ", "rescue": "sauve des nageurs : ", "reproduce": "fait naître un troupeau : "}
SHOTS = Path(os.environ.get("TRIAS_SHOTS") or tempfile.mkdtemp(prefix="trias-last-move-"))
SHOTS.mkdir(parents=True, exist_ok=True)

# Every sentence the words under the mark take, with the move's number, as the page changes them.
RECORD_WORDS = """() => {
  window.said = [];
  const node = document.getElementById('last-move');
  const note = () => { if (node.dataset.seq) window.said.push([+node.dataset.seq, node.textContent]); };
  note();
  new MutationObserver(note).observe(node, {childList: true, subtree: true, characterData: true});
}"""
# Every move the board marks, by its number, as it draws them.
RECORD_MARKS = """() => {
  window.marks = new Set();
  const board = document.getElementById('board');
  const note = () => board.querySelectorAll('.last-move').forEach(g => window.marks.add(+g.dataset.seq));
  note();
  new MutationObserver(note).observe(board, {childList: true});
}"""
# The phone, while others play: for each move marked, whether its board's box showed where the piece went
# (the box follows the others' moves: seat.js follow), and whether it was the person's turn then.
RECORD_SHOWN = """() => {
  window.shown = {};
  const board = document.getElementById('board'), box = board.parentNode;
  const note = () => {
    const g = board.querySelector('.last-move');
    if (!g || g.dataset.seq in window.shown) return;
    const b = box.getBoundingClientRect(), bar = document.getElementById('actionbar').getBoundingClientRect();
    const bottom = Math.min(b.bottom, bar.top, innerHeight);
    const inside = n => { const r = n.getBoundingClientRect(); return r.left >= b.left - 1 && r.right <= b.right + 1 && r.top >= b.top - 1 && r.bottom <= bottom + 1; };
    window.shown[g.dataset.seq] = [document.body.dataset.myturn === '1', [...board.querySelectorAll('.last-to')].some(inside)];
  };
  new MutationObserver(note).observe(board, {childList: true});
}"""
# The mark as drawn now: its move, its seat, the outlined places (solid: went to; dashed: came from), its arrows.
MARK = """() => {
  const g = document.querySelector('#board .last-move');
  if (!g) return null;
  const places = cls => [...document.querySelectorAll('#board .' + cls)].map(n => n.dataset.place).sort();
  return {seq: +g.dataset.seq, seat: +g.dataset.seat, type: g.dataset.type, to: places('last-to'), from: places('last-from'),
          arrows: document.querySelectorAll('#board .last-path').length};
}"""
# The picture's number, the seat whose move the board marks, and the words, read at one moment.
NOW = """() => {
  const g = document.querySelector('#board .last-move');
  return {seq: +document.body.dataset.seq, mark: g ? +g.dataset.seat : null, words: document.getElementById('last-move').textContent};
}"""
# The contrast of the mark's line against the sea and each landscape, and whether the line is drawn wide
# enough to be seen (a shape, not a tint): WCAG's non-text contrast asks 3:1.
CONTRAST = """() => {
  const line = document.querySelector('#board .last-to'), cs = getComputedStyle(line);
  const rgb = cs.stroke.match(/\\d+/g).slice(0, 3).map(Number);
  const hex = '#' + rgb.map(v => v.toString(16).padStart(2, '0')).join('');
  const fills = [...document.querySelectorAll('#board .base .hex > polygon:first-child')].map(p => p.getAttribute('fill'));
  return {line: hex, width: parseFloat(cs.strokeWidth), fills: [...new Set(fills)].map(f => [f, TB.contrast(hex, f)])};
}"""


def computer_moves(game) -> list:
    """The rows of the computer's moves that changed the board, as the journal has them."""
    return [r for r in game.public_rows(0, None) if r["actor"] == "computer:1" and action_of(r["events"])]


def places(command) -> tuple:
    """(went to, came from, arrows) of a public command: sorted "q,r" keys, and one arrow a piece moved."""
    key = lambda p: f"{p[0]},{p[1]}"  # noqa: E731
    pairs = [(command[a], command["to"]) for a in ("tile", "from") if a in command] + [tuple(h) for h in command.get("herds", [])]
    to = {key(command["at"])} if "at" in command else {key(b) for _, b in pairs}
    return sorted(to), sorted({key(a) for a, _ in pairs} - to), len(pairs)


def human_move(game) -> dict:
    """The person's move: a drift or a herd's step when there is one (the board keeps changing), else the turn's end."""
    legal, tiles = trias.legal_actions(game.state), game.state.tiles
    inland = lambda c: sum(n in tiles for n in neighbours(tuple(c["at"])))  # noqa: E731
    places = sorted((c for c in legal if c["type"] == "place"), key=inland)
    if places:  # herds on a tile inside the land, which a drift does not carry away at once
        return places[-1]
    for kind in ("play", "move", "reproduce", "rescue", "drift"):
        found = [c for c in legal if c["type"] == kind and (kind != "play" or "tile" in c)]
        if found:
            return found[len(found) // 2]
    return next((c for c in legal if c["type"] in ("end_turn", "draw")), legal[0])


def test_each_computer_move_is_marked_on_the_board_and_said_in_words_on_the_phone_and_the_tv(server, pages):
    app, url = server
    game = app.extensions["trias_games"].create(seats=[{"name": "Ana", "kind": "human"},
                                                       {"name": BOT, "kind": "computer", "level": "easy"}], seed=3)
    player = app.extensions["trias_computer"]
    phone = pages(PHONE, **TOUCH)
    phone.goto(f"{url}/trias/s/{game.seats[0]['token']}")
    tv = pages(TV)
    tv.goto(f"{url}/trias/g/{game.id}?t={game.table_secret}")
    for page in (phone, tv):
        wait_seq(page, game.last_seq)
        page.evaluate(RECORD_WORDS)
        page.evaluate(RECORD_MARKS)
    phone.evaluate(RECORD_SHOWN)
    phone.evaluate(COUNT_SCRIPT_SCROLLS)
    phone.evaluate("() => { window.focused = document.activeElement; }")
    keys, shots, own = itertools.count(), 0, 0
    # The person plays their turns from the server (as their phone would); the computer answers by itself.
    def watched_enough() -> bool:  # a few turns, in which the computer moved a herd and drifted a tile
        kinds = {r["command"]["type"] for r in computer_moves(game)}
        return game.state.turn >= 7 and "move" in kinds and kinds & {"play", "drift"} or game.state.turn >= 16

    while not watched_enough() and game.state.phase != "over":
        if game.state.current != 0:
            phone.wait_for_timeout(50)
            continue
        wait_seq(phone, game.last_seq)
        wait_seq(tv, game.last_seq)
        mine = game.last_seq
        board_moves = [r for r in game.public_rows(0, None) if action_of(r["events"])]
        if board_moves and board_moves[-1]["actor"] == "computer:1" and game.state.phase != "place":
            # The person's turn has come: the computer's last board move is still marked and said.
            row = board_moves[-1]
            for page in (phone, tv):
                mark = page.evaluate(MARK)
                assert mark and mark["seq"] == row["seq"] and mark["seat"] == 1, (mark, row)
                assert (mark["to"], mark["from"], mark["arrows"]) == places(action_of(row["events"])), (mark, row["command"])
            words = phone.locator("#last-move").inner_text()
            assert words.startswith(BOT + " ") and VERBS[row["command"]["type"]] in words and not COORDS.search(words), words
            assert tv.locator("#log li.trias-log-last").get_attribute("data-seq") == str(row["seq"])
            if shots < 3:
                phone.wait_for_timeout(1800)  # the new mark's pulse over
                phone.screenshot(path=str(SHOTS / f"phone-{shots}.png"))
                tv.screenshot(path=str(SHOTS / f"tv-{shots}.png"))
                shots += 1
        command = human_move(game)
        player.pace = 60  # the computer waits while the person's own move is looked at
        try:
            game.execute(command, f"ana-{next(keys)}", "seat:0")
            publish(app, game, mine)  # every screen is told, as the route does
            if action_of(game.table.moves[-1][3]):
                # The person's own move: marked on the TV, not on their own phone (they know what they did).
                for page in (phone, tv):
                    wait_seq(page, game.last_seq)
                    now = page.evaluate(NOW)
                    assert now["seq"] == game.last_seq, now
                    assert (now["mark"], now["words"]) == (None, "") if page is phone else now["mark"] == 0 and now["words"].startswith("Ana "), now
                own += 1
        finally:
            player.pace = 0.05
        player.poke(game.id)
    assert own >= 3, own
    rows = computer_moves(game)
    kinds = {r["command"]["type"] for r in rows}
    assert len(rows) >= 8 and "move" in kinds and kinds & {"play", "drift"}, kinds
    for page in (phone, tv):
        wait_seq(page, rows[-1]["seq"])
        said = dict(page.evaluate("() => window.said"))
        marked = set(page.evaluate("() => [...window.marks]"))
        # Each of the computer's board moves, as it came: marked on the board and said in words.
        assert [r["seq"] for r in rows if r["seq"] not in marked] == []
        assert [r["seq"] for r in rows if r["seq"] not in said] == []
        for row in rows:
            words = said[row["seq"]]
            assert words.startswith(BOT + " ") and VERBS[row["command"]["type"]] in words, words
            assert not COORDS.search(words), words
    # While the person waited, the phone's board showed where each of the computer's pieces went.
    shown = phone.evaluate("() => window.shown")
    waited = {int(seq): seen for seq, (mine, seen) in shown.items() if not mine and int(seq) in {r["seq"] for r in rows}}
    assert len(waited) >= 5 and all(waited.values()), waited
    # The phone's own code never scrolled it nor took the focus while the computer played.
    assert phone.evaluate("() => window.scriptScrolls") == 0
    assert phone.evaluate("() => document.activeElement === window.focused")
    assert phone.locator("#last-move").get_attribute("role") == "status"
    assert tv.locator("#last-move").get_attribute("role") == "status"
    assert phone.evaluate("() => document.documentElement.scrollWidth <= innerWidth")


def test_the_mark_is_a_shape_at_3_to_1_on_the_sea_and_every_landscape_and_axe_finds_nothing(server, pages):
    axe = pytest.importorskip("axe_playwright_python.sync_playwright")
    app, url = server
    game = app.extensions["trias_games"].create(seats=[{"name": "Ana", "kind": "human"},
                                                       {"name": BOT, "kind": "computer", "level": "easy"}], seed=3)
    player, keys, waited = app.extensions["trias_computer"], itertools.count(), time.monotonic()
    # Played up to the person's turn after the computer's first whole turn (its last move is marked).
    while not (game.state.current == 0 and game.state.phase == "start" and computer_moves(game)):
        assert time.monotonic() - waited < WAIT / 1000, "the computer seat did not play"
        if game.state.current == 0:
            before = game.last_seq
            game.execute(human_move(game), f"ana-{next(keys)}", "seat:0")
            publish(app, game, before)
            player.poke(game.id)
        time.sleep(0.05)  # the computer plays on the server's thread
    phone = pages(PHONE, **TOUCH)
    phone.goto(f"{url}/trias/s/{game.seats[0]['token']}")
    tv = pages(TV)
    tv.goto(f"{url}/trias/g/{game.id}?t={game.table_secret}")
    options = {"runOnly": {"type": "tag", "values": ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "wcag22aa"]},
               "resultTypes": ["violations"]}
    for page in (phone, tv):
        wait_seq(page, game.last_seq)
        sync_api.expect(page.locator("#board .last-move").first).to_be_attached(timeout=WAIT)
        seen = page.evaluate(CONTRAST)
        assert seen["width"] >= 1, seen  # a line, drawn on a white halo
        assert seen["fills"] and all(ratio >= 3 for _, ratio in seen["fills"]), seen
        found = axe.Axe().run(page, options=options).response["violations"]
        assert found == [], (page.url, [(v["id"], [n["target"] for n in v["nodes"][:3]]) for v in found])
