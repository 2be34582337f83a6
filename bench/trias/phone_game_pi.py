#!/usr/bin/env python3
"""A whole 4-player Trias game on a phone against three computer seats, the server at a Pi's budget:
the waits a person at the table sees, and how each computer action reached the phone.

    nice -n 10 .venv/bin/python bench/trias/phone_game_pi.py --seed 38900 --json bench/trias/phone_game_run.json --record
    nice -n 10 .venv/bin/python bench/trias/phone_game_pi.py --level easy --json bench/trias/phone_game_easy_run.json --record
    .venv/bin/python bench/trias/phone_game_pi.py --report bench/trias/phone_game_run.json   # the tables again

The server is `terrabank serve` (Gunicorn, its computer player on, the real pace between computer moves and
every level at `trias.bots.DEFAULT_BUDGET`; the three computer seats at `--level`, hard by default), with
`computer_timing.py` loaded in its interpreters: it notes when each computer move was asked for, decided (its
wall and thread CPU time) and written, and changes no move. The server thinks as soon as a position comes and
writes the move no earlier than its pace after the change (`bank/web/trias/computer.py`): a move "held" is one
chosen before its pace was over.
Once it has printed its address, its whole process tree is
moved into a control group of `bench/system/pi_budget.py` (one core, a CPU quota, the highest scheduling
weight), the quota following the host's speed as `ladder_pi.py`'s does (the calibration loop's CPU time here
against its reference host's, where the Pi was a quarter core); nothing is timed before it answers HTTP.

The phone is headless Chromium at 360x740 with touch, on the other core in a group of its own at the highest
weight (`pi_budget.Phones`: host load does not make the phone late). It opens the human seat's link and plays
by taps on the board and the bar, as a person does: a lit tile and the confirm to place herds (T8); in phase 1 the
first drift of the legal moves the phone was sent, its tile then its place once lit, and the confirm, or the bar's
command when there is none (T11); in phase 2 one herd moved onto land the same way while action points are left,
then the bar's end of turn (T12). A script noted before the page's own notes, each time
the page draws a new journal number or its turn changes, the time (Date.now()), the phase, whose turn it is, the
board (tiles and herds as drawn), the words of the turn line and the news line, and the journal number
of the move the board marks with the words said of it.

What it reports:
- each wait of the person: from the tap that ended their turn to the phone showing their next turn playable
  (the page's data-myturn set at the end of its drawing), and the computer turns in it;
- each computer turn as the phone saw it: from the picture that handed the turn to that seat to the picture of
  its last action; and the same turn's thinking only (the sum of its decisions), which is what
  `ladder_pi.py` times against the 5 s a hard turn may take;
- each computer action: its decision (wall, CPU), the wait before it (the server's pace after the last change),
  from its write to the phone's drawing of it, whether the phone drew that journal number at all, whether the
  board drawn changed for a move that moves a piece, and what the phone's words said meanwhile;
- each computer move of a piece: whether the picture that first drew it marked it on the board (the
  `.last-move` of its journal number: where the piece went outlined, where it came from dashed) and said it in
  the bar's words (`#last-move`: the seat's name, the places in words, never "q,r").

Needs root on Linux with cgroups (as pi_budget.py), Playwright's Python package and /usr/bin/chromium.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import re
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
for extra in (ROOT, ROOT / "bench", ROOT / "bench" / "system", HERE, ROOT / "tests"):  # tests/: browserkit
    sys.path.insert(0, str(extra))

PHONE = {"width": 360, "height": 740}


def seats(level: str) -> list:
    return [{"name": "Ana", "kind": "human"}] + [{"kind": "computer", "level": level}] * 3
WAIT_MS = 300_000  # a person's wait is measured, not bounded: a stop here is a frozen table
MOVES_A_PIECE = {"place", "play", "drift", "move", "reproduce", "rescue"}
COORDS = re.compile(r"-?\d+\s*,\s*-?\d+")  # a place as "q,r", which the pages never show

# Before the page's scripts: a note each time the page draws a new journal number or its turn changes.
WATCH = """
window.__drawn = [];
new MutationObserver(function () {
  var b = document.body, last = window.__drawn[window.__drawn.length - 1];
  if (!b) return;
  var seq = +b.dataset.seq || 0, mine = b.dataset.myturn || "";
  if (last && last.seq === seq && last.mine === mine) return;
  var view = window.TT && TT.current ? TT.current.view : null;
  var places = function (sel, f) { return Array.prototype.map.call(document.querySelectorAll(sel), f).sort().join(" "); };
  var news = document.getElementById("announce"), turn = document.getElementById("turn");
  var mark = document.querySelector("#board .last-move"), said = document.getElementById("last-move");
  window.__drawn.push({seq: seq, mine: mine, t: Date.now(), phase: b.dataset.phase || "",
    current: view ? view.current : null, turn_no: view ? view.turn : null,
    board: places("#board .base .tile", function (n) { return n.dataset.place; }) + " | " +
           places("#board .herds", function (n) { return n.dataset.place + ":" + n.textContent; }),
    words: turn ? turn.innerText.replace(/\\s+/g, " ").trim() : "",
    news: news && !news.classList.contains("hidden") ? news.innerText.replace(/\\s+/g, " ").trim() : "",
    mark: mark ? +mark.dataset.seq : null, said: said ? said.textContent.replace(/\\s+/g, " ").trim() : ""});
}).observe(document, {subtree: true, attributes: true, attributeFilter: ["data-seq", "data-myturn"]});
"""


# --- the server's side: `terrabank serve` with its computer moves noted ---------------------------

SITE = """import os, sys
if os.environ.get("TRIAS_COMPUTER_TIMING"):
    sys.path.append({here!r})
    import computer_timing
    computer_timing.install(os.environ["TRIAS_COMPUTER_TIMING"])
"""


def timing_env(folder: Path, log: Path) -> dict:
    """The environment that makes every interpreter of the server note its computer moves (computer_timing.py)."""
    hook = folder / "hook"
    hook.mkdir()
    (hook / "sitecustomize.py").write_text(SITE.format(here=str(HERE)))
    return {"PYTHONPATH": os.pathsep.join(filter(None, [str(hook), os.environ.get("PYTHONPATH")])),
            "TRIAS_COMPUTER_TIMING": str(log)}


# --- the phone: a person tapping ----------------------------------------------------------------

def lit_targets(page) -> list:
    """The places the board lights as where a tap may go now."""
    return page.evaluate("() => Array.from(document.querySelectorAll('#board .mark-target'), n => n.dataset.place)")


def finger(page, place: str) -> None:
    """A thumb on the middle of a place's hex, brought into view first."""
    box = page.evaluate("""key => {
        const hex = document.querySelector(`#board .base [data-place="${key}"] > polygon`);
        hex.scrollIntoView({block: 'center', inline: 'center'});
        const r = hex.getBoundingClientRect();
        return {x: r.left + r.width / 2, y: r.top + r.height / 2};
    }""", place)
    page.touchscreen.tap(box["x"], box["y"])


def seq(page) -> int:
    return page.evaluate("() => +document.body.dataset.seq || 0")


def until_drawn(page, after: int) -> None:
    page.wait_for_function("n => (+document.body.dataset.seq || 0) > n", arg=after, timeout=WAIT_MS)


def press(page, selector: str, sent: list, what: str) -> None:
    """Tap a button of the bar that sends a command; note when (the person's action), wait for its picture."""
    before = seq(page)
    button = page.locator(selector).first
    button.wait_for(state="visible", timeout=WAIT_MS)
    sent.append({"t": time.time() * 1000, "after": before, "what": what})
    button.tap()
    until_drawn(page, before)


def tap_a_legal_move(page, kinds: tuple, onto_land: bool) -> bool:
    """The first legal move of `kinds` the phone was sent (onto a tile when `onto_land`), by taps: its piece,
    then its place once lit. False when there is none, or its place did not light (the piece let go)."""
    pick = page.evaluate("""([kinds, land]) => {
        const key = p => p[0] + "," + p[1], tiles = new Set(TT.current.view.tiles.map(key));
        const c = TT.current.legal.find(c => kinds.includes(c.type) && c.to && (!land || tiles.has(key(c.to))));
        return c ? [key(c.from || c.tile), key(c.to)] : null;
    }""", [list(kinds), onto_land])
    if pick is None:
        return False
    piece, place = pick
    finger(page, piece)
    try:
        page.wait_for_selector(f'#board .mark-target[data-place="{place}"]', timeout=10_000)
    except Exception:  # noqa: BLE001 - playwright's timeout: another kind of move was lit
        finger(page, piece)
        return False
    finger(page, place)
    return True


def play_my_turn(page, sent: list, moved: set) -> None:
    """One action of the person's turn, by taps."""
    phase, ap, turn = page.evaluate("() => [document.body.dataset.phase, TT.current.view.ap, TT.current.view.turn]")
    confirm = "#actionbar [data-act=confirm]"
    if phase == "place":
        places = lit_targets(page)
        finger(page, places[len(places) // 2])
        press(page, confirm, sent, "place")
    elif phase in ("start", "drift"):
        if tap_a_legal_move(page, ("play", "drift"), onto_land=False):
            press(page, confirm, sent, "drift")
        else:
            press(page, "#actionbar [data-act=command]", sent, "draw or pass")
    elif ap >= 1 and turn not in moved and tap_a_legal_move(page, ("move",), onto_land=True):
        moved.add(turn)
        press(page, confirm, sent, "move")
    else:
        press(page, "#actionbar [data-act=command][data-type=end_turn]", sent, "end turn")


def play_the_game(url: str, link: str, shots: Path | None) -> dict:
    """The person's phone from the seat's link to the final score; what it drew and what it sent."""
    from playwright.sync_api import sync_playwright

    from browserkit import ARGS, CHROMIUM

    sent, moved = [], set()
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        context = browser.new_context(viewport=PHONE, is_mobile=True, has_touch=True, device_scale_factor=2)
        context.add_init_script(WATCH)
        page = context.new_page()
        errors = []
        page.on("pageerror", lambda exc: errors.append(str(exc)))
        page.goto(url + link)
        for _ in range(2000):
            page.wait_for_function("() => document.body.dataset.phase === 'over' || document.body.dataset.myturn === '1'",
                                   timeout=WAIT_MS)
            if page.evaluate("() => document.body.dataset.phase") == "over":
                break
            play_my_turn(page, sent, moved)
        page.wait_for_selector("#end-panel:not([hidden])", timeout=WAIT_MS)
        if shots:
            page.screenshot(path=str(shots / "phone-game-over.png"))
        drawn = page.evaluate("() => window.__drawn")
        winners = page.locator(".trias-winner").all_inner_texts()
        browser.close()
    return {"drawn": drawn, "sent": sent, "winners": winners, "page_errors": errors}


# --- the figures --------------------------------------------------------------------------------

def pct(values: list, q: float):
    if not values:
        return None
    ordered = sorted(values)
    return ordered[max(1, math.ceil(q / 100 * len(ordered))) - 1]


def analyse(run: dict) -> dict:
    """Per computer action, per computer turn and per wait of the person, from the phone's notes and the server's."""
    drawn, actions, sent = run["phone"]["drawn"], run["computer"], run["phone"]["sent"]
    names = run.get("names") or []
    first = {}
    for d in drawn:
        first.setdefault(d["seq"], d)
    ordered = sorted(first)

    def before(s: int):  # the picture the phone showed just before journal number s
        earlier = [x for x in ordered if x < s]
        return first[earlier[-1]] if earlier else None

    rows = []
    for a in sorted(actions, key=lambda a: a["seq"]):
        if not a.get("applied"):
            continue
        shown = first.get(a["seq"])
        prior = before(a["seq"])
        rows.append({**a, "think_s": round(a["decided"] - a["asked"], 3),
                     "held_s": round(a.get("applying", a["written"]) - a["decided"], 3),
                     "drawn": shown is not None,
                     "to_phone_ms": round(shown["t"] - a["written"] * 1000) if shown else None,
                     "board_changed": (shown["board"] != prior["board"]) if shown and prior else None,
                     "words": shown["words"] if shown else None,
                     "new_news": shown["news"] if shown and shown["news"] and shown["news"] != prior["news"] else None,
                     # The phone's mark of this move on its board (the .last-move group of its journal number) and
                     # its words in the bar (#last-move), in the picture that first drew it (runs before 2026-12-04
                     # noted neither: None).
                     "name": names[a["seat"]] if a["seat"] < len(names) else None,
                     "marked": (shown.get("mark") == a["seq"]) if shown and "mark" in shown else None,
                     "said": shown.get("said") if shown else None})
    # Computer turns: consecutive actions of one seat in one turn (placements apart, as the ladder does).
    turns = []
    for r in rows:
        key = (r["seat"], r["turn"], r["phase"] == "place")
        if turns and turns[-1]["key"] == key:
            turns[-1]["actions"].append(r)
        else:
            turns.append({"key": key, "actions": [r]})
    out_turns = []
    for t in turns:
        acts = t["actions"]
        handed = first.get(acts[0]["after"])  # the picture that gave this seat the turn
        last = first.get(acts[-1]["seq"])
        out_turns.append({"seat": acts[0]["seat"], "turn": acts[0]["turn"], "placing": t["key"][2],
                          "first_seq": acts[0]["seq"], "last_seq": acts[-1]["seq"],
                          "actions": len(acts), "types": [a["type"] for a in acts],
                          "thinking_s": round(sum(a["think_s"] for a in acts), 3),
                          "server_s": round(acts[-1]["written"] - acts[0]["asked"], 3),
                          "seen_s": round((last["t"] - handed["t"]) / 1000, 3) if handed and last else None,
                          "pace_s": round(sum(a["asked"] - p["written"] for p, a in zip(acts, acts[1:])), 3),
                          "held_s": round(sum(a["held_s"] for a in acts), 3)})
    # The person's waits: from the tap that ended their turn (the phone then showed another seat to play)
    # to the phone's next picture with their turn playable.
    waits = []
    for s in sent:
        after_it = [d for d in drawn if d["t"] >= s["t"] and d["seq"] > s["after"]]
        if not after_it or after_it[0]["mine"] == "1":
            continue  # still their turn (or the game's end)
        back = next((d for d in after_it if d["mine"] == "1"), None)
        if back is None:
            continue  # the game ended in others' turns
        inside = [t for t in out_turns if s["after"] < t["first_seq"] < back["seq"]]
        waits.append({"from_action": s["what"], "after_seq": s["after"], "back_seq": back["seq"],
                      "wait_s": round((back["t"] - s["t"]) / 1000, 3), "computer_turns": len(inside),
                      "computer_actions": sum(t["actions"] for t in inside),
                      "placing": any(t["placing"] for t in inside)})
    return {"actions": rows, "turns": out_turns, "waits": waits}


def moves_a_piece(r: dict) -> bool:
    """A computer action that moves a piece: a card played without a drift moves none (runs before 2026-12-04
    did not note which: every "play" counted)."""
    return r["type"] in MOVES_A_PIECE and (r["type"] != "play" or r.get("tile", True))


def said_well(r: dict) -> bool:
    """The phone's words for a computer move: there, opening with the seat's name, every place in words."""
    return bool(r["said"]) and r["said"].startswith(r["name"] or "") and not COORDS.search(r["said"])


def summary(run: dict) -> dict:
    a = analyse(run)
    hard_turns = [t for t in a["turns"] if not t["placing"]]  # every computer seat is at the run's level
    acts = a["actions"]
    moving = [r for r in acts if moves_a_piece(r)]
    waits = [w for w in a["waits"] if not w["placing"]]
    bound = run["turn_bound_s"]
    s = {
        "computer_actions": len(acts), "fallbacks": sum(1 for r in acts if r["fallback"]),
        "drawn": sum(1 for r in acts if r["drawn"]),
        "moving_actions": len(moving), "moving_board_changed": sum(1 for r in moving if r["board_changed"]),
        # Marked on the board and said in words (with the seat's name, the places in words: no "q,r" pair).
        "moving_marked": sum(1 for r in moving if r["marked"]),
        "moving_said": sum(1 for r in moving if said_well(r)),
        "moving_marked_said": sum(1 for r in moving if r["marked"] and said_well(r)),
        "marks_noted": any(r["marked"] is not None for r in moving),
        "said_shapes": sorted({re.sub(r"\d+", "#", r["said"].split(":")[0]) for r in moving if r["said"]}),
        "to_phone_ms_median": pct([r["to_phone_ms"] for r in acts if r["drawn"]], 50),
        "to_phone_ms_max": max((r["to_phone_ms"] for r in acts if r["drawn"]), default=None),
        "think_s_median": pct([r["think_s"] for r in acts], 50),
        "think_s_max": max((r["think_s"] for r in acts), default=None),
        "cpu_s_median": pct([r["cpu_s"] for r in acts], 50),
        "pace_gap_s_median": round(pct([a2["asked"] - a1["written"] for a1, a2 in zip(acts, acts[1:])
                                        if a2["seat"] == a1["seat"] and a2["turn"] == a1["turn"]], 50), 3),
        "held_s_median": pct([r["held_s"] for r in acts], 50),
        "held_actions": sum(1 for r in acts if r["held_s"] > 0.01),
        "gap_s_min": round(min((b["written"] - x["written"] for x, b in zip(acts, acts[1:])), default=0), 3),
        "types": {t: sum(1 for r in acts if r["type"] == t) for t in sorted({r["type"] for r in acts})},
        "turns": len(hard_turns),
        "actions_per_turn_median": pct([t["actions"] for t in hard_turns], 50),
        "actions_per_turn_max": max((t["actions"] for t in hard_turns), default=None),
        "turn_thinking_s_median": pct([t["thinking_s"] for t in hard_turns], 50),
        "turn_thinking_s_max": max((t["thinking_s"] for t in hard_turns), default=None),
        "turn_thinking_over_bound": sum(1 for t in hard_turns if t["thinking_s"] > bound),
        "turn_seen_s_median": pct([t["seen_s"] for t in hard_turns if t["seen_s"] is not None], 50),
        "turn_seen_s_p90": pct([t["seen_s"] for t in hard_turns if t["seen_s"] is not None], 90),
        "turn_seen_s_max": max((t["seen_s"] for t in hard_turns if t["seen_s"] is not None), default=None),
        "turn_seen_over_bound": sum(1 for t in hard_turns if (t["seen_s"] or 0) > bound),
        "waits": len(waits), "wait_s_median": pct([w["wait_s"] for w in waits], 50),
        "wait_s_p90": pct([w["wait_s"] for w in waits], 90), "wait_s_max": max((w["wait_s"] for w in waits), default=None),
        "placing_waits_s": [w["wait_s"] for w in a["waits"] if w["placing"]],
        # What the phone's words said while a computer seat played (numbers as #): whose turn, phase, points.
        "turn_line_shapes": sorted({re.sub(r"\d+", "#", r["words"]) for r in acts if r["words"]}),
        "news_brought": sorted({r["new_news"] for r in acts if r["new_news"]}),
    }
    return {"figures": s, **a}


def render(run: dict, s: dict) -> str:
    f, level = s["figures"], run.get("level", "hard")
    lines = [f"# A 4-player Trias game on a 360x740 phone against 3 {level} computer seats, the server at a Pi's budget",
             f"seed {run['seed']}, commit {run['commit']}, {run['started']} to {run['ended']}; {run['budget']}; "
             f"quota {run['quota_us']} us every {run['period_us']} us ({run['quota_why']}); {run['share']}; phone: "
             f"{run['phones']}; load {run['load_before']} before, {run['load_after']} after; pace between computer "
             f"moves {run['pace_s']} s (the server's own); {level}'s budget {run.get('budget_of_level', run.get('hard_budget'))}",
             f"winners on the phone: {run['phone']['winners']}; page errors: {len(run['phone']['page_errors'])}", "",
             f"The person's waits in play (placements apart): {f['waits']}, median {f['wait_s_median']} s, "
             f"p90 {f['wait_s_p90']} s, longest {f['wait_s_max']} s; while placing: {f['placing_waits_s']} s",
             f"{level.capitalize()} turns (placements apart): {f['turns']}, actions a turn median {f['actions_per_turn_median']}, "
             f"most {f['actions_per_turn_max']}",
             f"- thinking only (the ladder's turn time): median {f['turn_thinking_s_median']} s, longest "
             f"{f['turn_thinking_s_max']} s, {f['turn_thinking_over_bound']} over {run['turn_bound_s']} s",
             f"- as the phone saw it (thinking, the pace, writing, drawing): median {f['turn_seen_s_median']} s, p90 "
             f"{f['turn_seen_s_p90']} s, longest {f['turn_seen_s_max']} s, {f['turn_seen_over_bound']} over "
             f"{run['turn_bound_s']} s",
             f"Computer actions: {f['computer_actions']} ({f['fallbacks']} fallbacks), decision median "
             f"{f['think_s_median']} s (CPU {f['cpu_s_median']} s), longest {f['think_s_max']} s; from a turn's action "
             f"written to the next one asked for, median {f['pace_gap_s_median']} s; held for the pace once chosen: "
             f"{f.get('held_actions', '-')} actions, median {f.get('held_s_median', '-')} s; the closest two actions "
             f"written {f.get('gap_s_min', '-')} s apart",
             f"- drawn on the phone: {f['drawn']} of {f['computer_actions']}; from written to drawn median "
             f"{f['to_phone_ms_median']} ms, longest {f['to_phone_ms_max']} ms",
             f"- by kind: {f['types']}",
             f"- actions that move a piece: {f['moving_actions']}, the phone's board changed with "
             f"{f['moving_board_changed']}",
             (f"- marked on the phone's board (the .last-move of its number, in the picture that first drew it): "
              f"{f['moving_marked']} of {f['moving_actions']}; said in words with the seat's name, no \"q,r\": "
              f"{f['moving_said']}; both: {f['moving_marked_said']}; the words up to the places: {f['said_shapes']}"
              if f["marks_noted"] else "- the phone's mark and words: not noted in this run"),
             f"- the turn line while they played, numbers as #: {f['turn_line_shapes']}",
             f"- news lines their actions brought: {len(f['news_brought'])} {f['news_brought']}", "",
             "| wait | after | computer turns | actions | seconds |", "| ---: | --- | ---: | ---: | ---: |"]
    for i, w in enumerate(s["waits"], 1):
        lines.append(f"| {i} | {w['from_action']}{' (placing)' if w['placing'] else ''} | {w['computer_turns']} | "
                     f"{w['computer_actions']} | {w['wait_s']} |")
    lines += ["", "| seat | turn | actions | thinking s | seen s | asked after written s | held s |",
              "| ---: | ---: | ---: | ---: | ---: | ---: | ---: |"]
    for t in s["turns"]:
        if not t["placing"]:
            lines.append(f"| {t['seat']} | {t['turn']} | {t['actions']} | {t['thinking_s']} | {t['seen_s']} | "
                         f"{t['pace_s']} | {t['held_s']} |")
    return "\n".join(lines) + "\n"


# --- the run -----------------------------------------------------------------------------------

def commit() -> str:
    import subprocess
    try:
        return subprocess.run(["git", "log", "-1", "--format=%h"], cwd=ROOT, capture_output=True, text=True,
                              timeout=20).stdout.strip() or "unknown"
    except (OSError, subprocess.SubprocessError):
        return "unknown"


def run(args) -> dict:
    import harness
    import pi_budget
    from ladder_pi import REFERENCE_CPU_S, speed_quota

    import trias.bots

    folder = Path(tempfile.mkdtemp(prefix="trias-phone-"))
    server_log = folder / "computer.jsonl"
    started, load_before = time.strftime("%Y-%m-%d %H:%M:%S"), [round(x, 2) for x in os.getloadavg()]
    free = [pi_budget.calibrate(None)[1] for _ in range(3)]
    quota = args.quota if args.fixed_quota else speed_quota(args.quota, args.period, free)
    why = (f"fixed" if args.fixed_quota else f"the calibration loop took {[round(x, 3) for x in free]} s of CPU "
           f"here against {REFERENCE_CPU_S} s where the Pi was {args.quota} us")
    budget = pi_budget.Budget(args.core, quota, args.period)
    phones = pi_budget.Phones(1 - args.core)
    server, jailer = harness.Server(folder), None
    try:
        held = pi_budget.calibrate(budget)
        share = budget.share(held)
        server.prepare()
        server.proc, server.port = harness.spawn(server.serve_command(), server.log, timeout=60,
                                                 env=timing_env(folder, server_log))
        budget.admit(server.proc.pid)
        jailer = pi_budget.Jailer(budget, server.proc.pid)
        jailer.start()
        harness.wait_for_http(server.port, timeout=120, proc=server.proc)
        api = harness.Api(server.url)
        api.csrf = api.request("GET", "/api/csrf")[1]["csrf"]
        status, made = api.request("POST", "/trias/api/games", {"seats": seats(args.level), "seed": args.seed})
        if status != 201:
            raise SystemExit(f"the game was not made: {status} {made}")
        link = next(s["link"] for s in made["seats"] if s["kind"] == "human")
        phone = play_the_game(server.url, link, args.shots)
        time.sleep(0.5)
        computer = [json.loads(x) for x in server_log.read_text().splitlines() if x.strip()]
        throttled = budget.throttled()
    finally:
        if jailer is not None:
            jailer.stop.set()
            jailer.join()
        server.stop()
        budget.remove()
        phones.release()
        shutil.rmtree(folder, ignore_errors=True)
    return {"seed": args.seed, "commit": commit(), "started": started, "ended": time.strftime("%H:%M:%S"),
            "budget": budget.describe(), "quota_us": quota, "period_us": args.period, "quota_why": why,
            "share": share, "throttled": throttled, "phones": phones.describe(), "load_before": load_before,
            "load_after": [round(x, 2) for x in os.getloadavg()], "pace_s": 1.0,
            "pace_rule": "thinking during it, a turn's paces cut to fit its bound (bank/web/trias/computer.py)",
            "level": args.level, "budget_of_level": trias.bots.DEFAULT_BUDGET[args.level],
            "turn_bound_s": trias.bots.TURN_BOUND[args.level],
            "game": made["id"], "names": [s["name"] for s in made["seats"]], "phone": phone, "computer": computer}


def record_figures(run: dict, s: dict, path: Path) -> None:
    import record  # bench/record.py

    f, level = s["figures"], run.get("level", "hard")
    rows = [
        {"figure": f"Trias on a phone, 3 {level} seats at a Pi's budget: longest whole {level} turn the phone showed",
         "value": f["turn_seen_s_max"], "unit": "s", "goal": "<=", "limit": run["turn_bound_s"]},
        {"figure": "Trias on a phone, 3 hard seats at a Pi's budget: longest hard turn's thinking",
         "value": f["turn_thinking_s_max"], "unit": "s", "goal": "<=", "limit": run["turn_bound_s"]},
        {"figure": "Trias on a phone, 3 hard seats at a Pi's budget: longest wait for one's own turn",
         "value": max([f["wait_s_max"] or 0, *f["placing_waits_s"]]), "unit": "s", "goal": None, "limit": None},
        {"figure": "Trias on a phone, 3 hard seats at a Pi's budget: computer actions the phone drew",
         "value": round(100 * f["drawn"] / f["computer_actions"], 1), "unit": "%", "goal": "==", "limit": 100},
    ]
    if f["marks_noted"]:
        rows.append({"figure": f"Trias on a phone, 3 {level} seats at a Pi's budget: computer moves the phone marked "
                               "on its board and said in words as they came",
                     "value": round(100 * f["moving_marked_said"] / f["moving_actions"], 1), "unit": "%",
                     "goal": "==", "limit": 100})
    if level != "hard":
        rows = rows[:1]  # the page stays under 200 lines: the other figures are in the measured words
    command = f".venv/bin/python {record.script(__file__)} --report {path.resolve().relative_to(ROOT).as_posix()}"
    measured = (f"{run['started']}-{run['ended']}, commit {run['commit']}, seed {run['seed']}, one game of "
                f"{f['turns']} {level} turns; the person's {f['waits']} waits in play median {f['wait_s_median']} s, longest "
                f"{f['wait_s_max']} s, while placing herds {f['placing_waits_s']} s; {level} turns seen: median "
                f"{f['turn_seen_s_median']} s ({f['turn_seen_over_bound']} of {f['turns']} over {run['turn_bound_s']} s), "
                f"with {f['actions_per_turn_median']} actions, thinking median {f['turn_thinking_s_median']} s, longest "
                f"{f['turn_thinking_s_max']} s; the server's pace {run['pace_s']} s"
                f" {run.get('pace_rule', 'before each action')}; "
                f"drawn {f['to_phone_ms_median']} ms after written (longest {f['to_phone_ms_max']}); server quota "
                f"{run['quota_us']} us every {run['period_us']} us, protected; load "
                f"{min(run['load_before'][0], run['load_after'][0]):.0f}-{max(run['load_before'][0], run['load_after'][0]):.0f}")
    print(record.record("15b_trias_phone", rows, command=command, measured=measured), file=sys.stderr)
    record.main_table()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seed", type=int, default=38900)
    parser.add_argument("--level", default="hard", choices=("easy", "hard"), help="the three computer seats' level")
    parser.add_argument("--core", type=int, default=0, help="the server's core (the phone gets the other)")
    parser.add_argument("--quota", type=int, default=2500, help="us of CPU a period on the reference host")
    parser.add_argument("--fixed-quota", action="store_true")
    parser.add_argument("--period", type=int, default=10000)
    parser.add_argument("--json", type=Path, help="the whole run (the phone's and the server's notes)")
    parser.add_argument("--report", type=Path, help="the tables again from a run's JSON")
    parser.add_argument("--shots", type=Path, help="a folder for the phone's last picture")
    parser.add_argument("--record", action="store_true", help="keep the figures (bench/results) and remake the table")
    args = parser.parse_args()
    data = json.loads(args.report.read_text()) if args.report else run(args)
    if args.json and not args.report:
        args.json.write_text(json.dumps(data, indent=None, separators=(",", ":")) + "\n")
    s = summary(data)
    print(render(data, s))
    if args.record:
        record_figures(data, s, args.json or args.report)
    return 0


if __name__ == "__main__":
    sys.exit(main())
