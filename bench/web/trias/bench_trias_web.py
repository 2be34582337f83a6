#!/usr/bin/env python3
"""Trias at the table: the board page's first-load weight, and the time from a move to every screen.

Weight: a fresh Chromium context opens a game's board at 1920x1080 and waits for the
live picture; every response body is counted as sent and gzipped (level 6), plus the
Socket.IO frames received.

Latency: three real screens (the board at 1920x1080 and two seat phones at 360x740)
follow a two-player game; a seat's move is POSTed and the time runs until the LAST
screen has drawn that journal number (a MutationObserver notes Date.now() when the
page's data-seq changes, right after it drew). Floor, interleaved in the same run: a
bare Flask-SocketIO server on the same stack, where a POST emits a payload of the same
size to three pages that only note its arrival. The ratio is the figure to compare.

    .venv/bin/python bench/web/trias/bench_trias_web.py [--moves 60]
"""

from __future__ import annotations

import argparse
import gzip
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))
sys.path.insert(0, str(ROOT / "bench"))

import trias  # noqa: E402
from harness import Api, machine  # noqa: E402

# Notes when each journal number was drawn; runs before the page's own scripts.
RECORD = """
window.__seqAt = {};
new MutationObserver(function () {
  var s = document.body && document.body.dataset.seq;
  if (s && !window.__seqAt[s]) window.__seqAt[s] = Date.now();
}).observe(document, {subtree: true, attributes: true, attributeFilter: ["data-seq"]});
"""


def floor_app(payload: dict):
    """A bare Flask-SocketIO server: a page that only notes arrivals, and POST /emit/<seq>."""
    from flask import Flask, Response, jsonify
    from flask_socketio import SocketIO

    app = Flask(__name__, static_folder=str(ROOT / "static"))
    sio = SocketIO(app, async_mode="threading", cors_allowed_origins=None, ping_interval=10, ping_timeout=10)
    page = ("<!doctype html><body><script src='/static/vendor/socket.io.min.js'></script><script>"
            "var s = io('/floor'); s.on('state', function (p) { document.body.dataset.seq = p.seq; });"
            "</script></body>")

    @app.get("/")
    def index():
        return Response(page, mimetype="text/html")

    @sio.on("connect", namespace="/floor")
    def connect(auth=None):
        return True

    @app.post("/emit/<int:seq>")
    def emit(seq: int):
        sio.emit("state", {**payload, "seq": seq}, namespace="/floor")
        return jsonify({"seq": seq})

    return app, sio


def serve(app) -> str:
    """The floor on the bank's own server (bank/web/serving/server.py, as `terrabank serve`): only the app differs."""
    from bank.web.serving import thread as serving_thread

    return serving_thread.serve_in_thread(app).url


def drawn_at(pages, seq: int) -> float:
    """When the last page drew `seq` (ms since the epoch)."""
    times = []
    for page in pages:
        page.wait_for_function(f"() => !!window.__seqAt[{seq}]", timeout=30_000)
        times.append(page.evaluate(f"() => window.__seqAt[{seq}]"))
    return max(times)


def weight(browser, url: str) -> list:
    """(path, bytes sent, gzipped bytes) of every response of a first load, and the socket frames."""
    context = browser.new_context(viewport={"width": 1920, "height": 1080})
    page = context.new_page()
    rows, frames = [], []
    page.on("websocket", lambda ws: ws.on("framereceived", lambda f: frames.append(f if isinstance(f, (bytes, str)) else str(f))))

    def on_response(response):
        try:
            body = response.body()
        except Exception:
            return
        rows.append((response.url.split("127.0.0.1", 1)[1].split(":", 1)[1].split("/", 1)[1][:60], len(body),
                     len(gzip.compress(body, 6)), response.headers.get("content-encoding", "none")))
    page.on("response", on_response)
    page.goto(url)
    page.wait_for_function("() => document.getElementById('conn-badge').classList.contains('badge-live')")
    page.wait_for_load_state("networkidle")
    data = "".join(f if isinstance(f, str) else f.decode("utf-8", "replace") for f in frames).encode()
    rows.append(("socket frames", len(data), len(gzip.compress(data, 6)), "none"))
    context.close()
    return rows


def pct(values, p):
    values = sorted(values)
    return values[min(len(values) - 1, int(round(p / 100 * (len(values) - 1))))]


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--moves", type=int, default=60)
    args = parser.parse_args(argv)
    from playwright.sync_api import sync_playwright

    from bank.web import create_app
    from browserkit import ARGS, CHROMIUM, serve_in_thread

    folder = Path(tempfile.mkdtemp(prefix="bench-trias-"))
    app = create_app({"DB": str(folder / "game.db"), "CONFIG": str(ROOT / "config.toml")})
    url, _ = serve_in_thread(app)
    games = app.extensions["trias_games"]
    api = Api(url)
    api.csrf = api.request("GET", "/api/csrf")[1]["csrf"]

    def new_game():
        return games.create(seats=[{"name": "Ana", "kind": "human"}, {"name": "Bob", "kind": "human"}], seed=3)

    game = new_game()
    from bank.web.trias.payloads import snapshot
    floor_url = serve(floor_app(snapshot(game, None, 0))[0])
    print(f"machine: {machine()}")
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        rows = weight(browser, f"{url}/trias/g/{game.id}")
        print("\n| request | content-encoding | bytes sent | gzip level 6 |\n| --- | --- | --- | --- |")
        for path, sent, zipped, enc in rows:
            print(f"| /{path} | {enc} | {sent:,} | {zipped:,} |")
        print(f"| **all** | | **{sum(r[1] for r in rows):,}** | **{sum(r[2] for r in rows):,}** |")

        def screens(game):
            opened = []
            for viewport, path in (({"width": 1920, "height": 1080}, f"/trias/g/{game.id}"),
                                   ({"width": 360, "height": 740}, f"/trias/s/{game.seats[0]['token']}"),
                                   ({"width": 360, "height": 740}, f"/trias/s/{game.seats[1]['token']}")):
                page = browser.new_page(viewport=viewport)
                page.add_init_script(RECORD)
                page.goto(url + path)
                page.wait_for_function(f"() => !!window.__seqAt[{game.last_seq}]")
                opened.append(page)
            return opened

        pages = screens(game)
        floor_pages = []
        for _ in range(3):
            page = browser.new_page()
            page.add_init_script(RECORD)
            page.goto(floor_url)
            floor_pages.append(page)
        floor_api = Api(floor_url)
        trias_ms, floor_ms, floor_seq, replies = [], [], 0, {"trias": [], "floor": []}
        for i in range(args.moves):
            if game.state.phase == "over":
                for page in pages:
                    page.close()
                game = new_game()
                pages = screens(game)
            legal = trias.legal_actions(game.state)
            command = next((c for c in legal if c["type"] not in ("end_turn", "drift", "play")), legal[0])
            token = game.seats[game.state.current]["token"]
            t0 = time.time() * 1000
            status, reply = api.request("POST", f"/trias/api/s/{token}/commands", command, {"Idempotency-Key": f"b{i}"})
            assert status == 200, reply
            replies["trias"].append(time.time() * 1000 - t0)
            trias_ms.append(drawn_at(pages, reply["seq"]) - t0)
            floor_seq += 1
            t0 = time.time() * 1000
            floor_api.request("POST", f"/emit/{floor_seq}", {})
            replies["floor"].append(time.time() * 1000 - t0)
            floor_ms.append(drawn_at(floor_pages, floor_seq) - t0)
        browser.close()
    t50, t99, f50, f99 = pct(trias_ms, 50), pct(trias_ms, 99), pct(floor_ms, 50), pct(floor_ms, 99)
    print(f"\nmove to the last of 3 screens drawn, {len(trias_ms)} moves: p50 {t50:.0f} ms, p99 {t99:.0f} ms, "
          f"mean {statistics.mean(trias_ms):.0f} ms")
    print(f"floor (bare emit of a same-size payload to 3 pages): p50 {f50:.0f} ms, p99 {f99:.0f} ms")
    print(f"HTTP reply (the commit and the emits are done before it): p50 {pct(replies['trias'], 50):.0f} ms, "
          f"floor {pct(replies['floor'], 50):.0f} ms")
    print(f"ratio: p50 {t50 / max(f50, 0.5):.2f}x, p99 {t99 / max(f99, 0.5):.2f}x")
    print(json.dumps({"trias_p50": t50, "trias_p99": t99, "floor_p50": f50, "floor_p99": f99}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
