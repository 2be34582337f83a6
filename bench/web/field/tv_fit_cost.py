"""What the big screen's layout costs a slow TV browser ("the fit runs every second on
the TV; its cost on a slow TV browser was not measured").

A real game served in this process (the production server, as bench/web/field/screenshots.py), its big screen
`/display?key=...` opened in Debian's headless Chromium, the CPU throttled through the DevTools protocol
(`Emulation.setCPUThrottlingRate`: 1, 4 and 6 stand for a laptop, a Raspberry Pi and a cheap TV). Two
moments: the game's own picture (ordinary: 4 teams, an event, 10 bookings) and a busy one sent through
the socket's path (W.showPicture): 8 long-named teams, 3 events with givers, 12 fighters waiting, 14
bookings. For each moment, size and rate, two pages in turn:

- fit: the page as a TV runs it;
- floor: the same page, the same one-second tick (clock, events, cooldowns redrawn), its fit a no-op
  (`W.fitScreen` replaced once the first picture is laid out; nothing a real screen can reach).

Each page is measured over WINDOWS windows of SECONDS s (`Performance.getMetrics`: TaskDuration,
ScriptDuration, LayoutDuration, RecalcStyleDuration, as ms of main thread per s of wall time; the longest
task and the tasks over 50 ms, from a `longtask` PerformanceObserver; the full fits a second, W.fits, which
the code before the change did not count); each figure is the median of the windows. The socket is cut: nothing but the page's own timers runs (the picture stays the one sent).

    nice -n 10 .venv/bin/python bench/web/field/tv_fit_cost.py            # 3 windows of 10 s each, the full matrix
    nice -n 10 .venv/bin/python bench/web/field/tv_fit_cost.py --rates 6 --sizes 1920x1080 --moments busy
    nice -n 10 .venv/bin/python bench/web/field/tv_fit_cost.py --every 3   # a booking every 3 s: the fits a picture costs
"""

from __future__ import annotations

import argparse
import copy
import itertools
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from screenshots import CHROMIUM, CHROMIUM_ARGS, start_server  # noqa: E402

METRICS = ("TaskDuration", "ScriptDuration", "LayoutDuration", "RecalcStyleDuration")
NAMES = ["Les Gardiens de la Forêt Équatoriale", "Coopérative des Hauts-Plateaux", "Brigade Aquatique du Lac Supérieur",
         "Les Semeurs d'Étoiles", "Compagnie Solaire Intercontinentale", "Mouettes du Grand Large",
         "Ingénieurs Terraformeurs Associés", "Renards des Collines"]
COLOURS = ["#1f6fd1", "#f2c230", "#d33a2c", "#2e9e44", "#8e44ad", "#e67e22", "#16a085", "#7f8c8d"]
TITLES = ["Sécheresse : l'eau manque au village !",
          "Le grand marché de la coopérative intercontinentale des planètes lointaines",
          "Incendie dans la forêt du nord : apportez de l'eau et de la flore avant la nuit"]
CARDS = ["pirate-1", "pirate-2", "harvester-1"]

# Long tasks from the page's start (buffered), kept for the bench to read and reset per window.
LONGTASKS = """window.__long = [];
new PerformanceObserver(l => { for (const e of l.getEntries()) window.__long.push(e.duration); })
  .observe({type: 'longtask', buffered: true});"""

SHOW = """([teams, picture]) => {
  if (teams) W.config.teams = teams;
  W.showPicture(picture);
}"""


def seed(app) -> None:
    """A real game half an hour in: harvests, an event with givers, fights (their fighters wait), bookings."""
    bank = app.extensions["terrabank"].bank
    ids = itertools.count(1)
    start = time.time() - 1800

    def run(command, at=None):
        return bank.execute({"id": f"tvfit-{next(ids)}", "actor": "lea", **command}, now=at or time.time())

    run({"type": "start_clock"}, start)
    for i, team in enumerate(("blue", "yellow", "red", "green")):
        run({"type": "harvest", "team": team, "card": "harvester-1", "resource": "water"}, start + 60 + i)
    run({"type": "open_event", "title": TITLES[0], "accepts": ["water"], "rewards": [{"points": 5}, {"jokers": 2}],
         "target": 20, "deadline_minutes": 40}, start + 600)
    run({"type": "contribute", "event": "ev1", "team": "blue", "tokens": {"water": 1}}, start + 700)
    run({"type": "award", "team": "green", "points": 3, "reason": "fair play"}, start + 900)
    run({"type": "fight", "attacker_team": "red", "attacker_card": "pirate-1", "defender_team": "blue",
         "defender_card": "harvester-2", "winner": "defender", "tokens": {}})
    run({"type": "inventory", "team": "yellow", "counted": {"energy": 9, "water": 9, "dioxygen": 9, "flora": 9},
         "reason": "box counted"})
    run({"type": "build", "team": "yellow", "building": "power_plant_1"})


def busy(template: dict) -> tuple[dict, dict]:
    """(config teams, picture): the game's picture grown to a crowded moment, every key the real payload's."""
    pic = copy.deepcopy(template)
    real = [row["team"] for row in template["standings"]]
    ids = (real + [f"team{i}" for i in range(5, 9)])[:8]
    teams = {t: {"label": NAMES[i], "colour": COLOURS[i], "resource": "water"} for i, t in enumerate(ids)}
    pic["standings"] = [{**template["standings"][0], "team": t, "label": {"fr": NAMES[i], "en": NAMES[i]},
                         "colour": COLOURS[i], "reputation": 90 - 7 * i, "animals": i % 3, "buildings": 2 + i, "rank": i + 1}
                        for i, t in enumerate(ids)]
    board = pic["board"]
    board["animals"] = {t: [] for t in ids}
    event = next(iter(template["board"]["events"].values()))
    elapsed = board["clock"]["elapsed"]
    board["events"] = {f"ev{k + 1}": {**event, "title": TITLES[k], "accepts": ["water", "flora"], "target": 120,
                                      "deadline": elapsed + 1200, "rewards": [{"points": 12}, {"jokers": 2}],
                                      "given": {t: 3 + j for j, t in enumerate(ids[: 4 + 2 * k])}, "status": "open",
                                      "ranking": None} for k in range(3)}
    # 12 fighters waiting, long enough to wait through the whole measure (a card's cooldown never grows).
    pic["cooldowns"] = {t: {} for t in ids}
    for n in range(12):
        pic["cooldowns"][ids[n % 8]][CARDS[n // 8 + (n % 2)]] = 280 - n
    entries = list(template["feed"].values())
    pic["feed"] = {}
    for seq in range(1, 15):
        entry = copy.deepcopy(entries[seq % len(entries)])
        entry["seq"] = seq
        pic["feed"][str(seq)] = entry
    return teams, pic


def metrics(cdp) -> dict:
    got = {m["name"]: m["value"] for m in cdp.send("Performance.getMetrics")["metrics"]}
    return {name: got.get(name, 0.0) for name in METRICS}


def window(page, cdp, seconds: float) -> dict:
    """Main-thread ms per wall second of each metric over `seconds`, the longest task, the tasks over 50 ms."""
    page.evaluate("window.__long = []")
    fits0 = page.evaluate("W.fits || 0")  # full fits (display_fit.js counts them; none before it did)
    before, t0 = metrics(cdp), time.monotonic()
    page.wait_for_timeout(seconds * 1000)
    after, wall = metrics(cdp), time.monotonic() - t0
    long = page.evaluate("window.__long")
    out = {name: 1000 * (after[name] - before[name]) / wall for name in METRICS}
    out["longest"] = max(long, default=0.0)
    out["long_per_s"] = len(long) / wall
    out["fits_per_s"] = (page.evaluate("W.fits || 0") - fits0) / wall
    return out


def measure(browser, url: str, key: str, moment, size, rate: int, fit: bool, windows: int, seconds: float,
            every: float = 0.0) -> dict:
    width, height = size
    context = browser.new_context(viewport={"width": width, "height": height})
    try:
        page = context.new_page()
        page.add_init_script(LONGTASKS)
        page.route("**/socket.io/**", lambda route: route.abort())  # only the page's own timers run
        page.goto(f"{url}/display?key={key}")
        page.locator("#standings .standing").first.wait_for()
        page.evaluate(SHOW, [moment[0], {**moment[1], "seq": 1_000_000}])  # the game's own picture again, or the busy one
        page.wait_for_timeout(1500)  # the first fits and the curve's first draw are behind
        fit_log = page.evaluate("document.body.dataset.fit")
        if not fit:
            page.evaluate("W.fitScreen = function () {}")
        cdp = context.new_cdp_session(page)
        cdp.send("Performance.enable")
        cdp.send("Emulation.setCPUThrottlingRate", {"rate": rate})
        if every:  # a booking every `every` s, as in a busy game: the same picture again, a newer seq
            page.evaluate("""([teams, picture, ms]) => { let seq = 2000000;
              setInterval(() => { if (teams) W.config.teams = teams; W.showPicture(Object.assign({}, picture, {seq: ++seq})); }, ms); }""",
                          [moment[0], moment[1], every * 1000])
        page.wait_for_timeout(1000)
        runs = [window(page, cdp, seconds) for _ in range(windows)]
        result = {name: statistics.median(r[name] for r in runs) for name in runs[0]}
        result["gave_way"] = fit_log
        return result
    finally:
        context.close()


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rates", default="1,4,6")
    parser.add_argument("--sizes", default="1920x1080,1280x720")
    parser.add_argument("--moments", default="busy,ordinary")
    parser.add_argument("--windows", type=int, default=3, help="windows per page; each figure is their median")
    parser.add_argument("--seconds", type=float, default=10.0, help="one window's length")
    parser.add_argument("--every", type=float, default=0.0,
                        help="a new picture every EVERY s (a busy game's bookings); 0: none, the screen only ticks")
    parser.add_argument("--json", type=Path, help="append each row here as a JSON line")
    args = parser.parse_args(argv)

    from bank.web.field import payloads
    from playwright.sync_api import sync_playwright

    folder = Path(tempfile.mkdtemp(prefix="tvfit-"))
    app, url = start_server(folder)
    seed(app)
    ext = app.extensions["terrabank"]
    key = ext.access.display_key()
    own = payloads.public(ext.bank, ext.config)
    moments = {"ordinary": (None, own), "busy": busy(own)}
    sizes = [tuple(int(v) for v in s.split("x")) for s in args.sizes.split(",")]
    print(f"{args.windows} windows of {args.seconds:g} s per page; ms of main thread per s (median of the windows)"
          + (f"; a new picture every {args.every:g} s" if args.every else ""))
    print(f"{'moment':9} {'size':10} {'rate':>4} {'page':5} {'task':>7} {'script':>7} {'layout':>7} {'style':>7} "
          f"{'longest':>8} {'>50ms/s':>7} {'fits/s':>6}  ratio(task)  gave way")
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        try:
            for name in args.moments.split(","):
                for size in sizes:
                    for rate in (int(r) for r in args.rates.split(",")):
                        rows = {}
                        for fit in (False, True):
                            r = measure(browser, url, key, moments[name], size, rate, fit, args.windows, args.seconds, args.every)
                            rows[fit] = r
                            ratio = f"{r['TaskDuration'] / max(rows[False]['TaskDuration'], 1e-9):.2f}x" if fit else ""
                            print(f"{name:9} {size[0]}x{size[1]:<5} {rate:>4} {'fit' if fit else 'floor':5} "
                                  f"{r['TaskDuration']:7.1f} {r['ScriptDuration']:7.1f} {r['LayoutDuration']:7.1f} "
                                  f"{r['RecalcStyleDuration']:7.1f} {r['longest']:8.0f} {r['long_per_s']:7.2f} {r['fits_per_s']:6.2f}  "
                                  f"{ratio:11}  {r['gave_way'] or ''}", flush=True)
                            if args.json:
                                with open(args.json, "a") as out:
                                    out.write(json.dumps({"moment": name, "size": f"{size[0]}x{size[1]}", "rate": rate,
                                                          "page": "fit" if fit else "floor", "every": args.every, **r}) + "\n")
        finally:
            browser.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
