"""The fan-out floor: a bare Flask-SocketIO server on the same stack as the bank.

Threading mode + simple-websocket on Werkzeug, the same Socket.IO settings as
bank/web/__init__.py, and no bank at all: POST /api/commands only stamps the next
seq on payloads captured from a real bank (bench_fanout.py writes them), emits
them to the same rooms as bank/web/push/live.py (public to all, each team's to its
room, journal rows to facilitators), then replies. Whatever the bank costs on
top of this is ours to explain. Since issue 14 the captured messages are the
bank's patches, so both put the same bytes on the wire. The floor emits before it
replies and the bank after: compare "send -> last client", not "reply -> last client".

Like `terrabank serve --port 0`, it binds a free port itself and prints its address
(harness.launch reads it): it makes the Werkzeug server that socketio.run would run
(threaded), so that it is bound and its port known before it serves.

    python bench/fanout_floor.py --payloads /tmp/payloads.json   # [--port N]
"""

from __future__ import annotations

import argparse
import json
import threading

from flask import Flask, jsonify, request
from flask_socketio import SocketIO, join_room
from werkzeug.serving import make_server


def make_app(payloads: dict):
    app = Flask(__name__)
    socketio = SocketIO(app, async_mode="threading", cors_allowed_origins=[], max_http_buffer_size=64 * 1024,
                        ping_interval=10, ping_timeout=10)
    lock, state = threading.Lock(), {"seq": payloads["public"]["seq"]}

    def stamped(seq: int) -> tuple[dict, dict, dict]:
        public = {**payloads["public"], "seq": seq}
        teams = {t: {**p, "seq": seq} for t, p in payloads["team"].items()}
        journal = {"rows": [{**payloads["journal"]["rows"][-1], "seq": seq}]}
        return public, teams, journal

    @socketio.on("connect")
    def on_connect(auth=None):
        auth = auth if isinstance(auth, dict) else {}
        if request.headers.get("Cookie"):
            join_room("facilitators")
        if auth.get("display"):
            join_room("display")
        team = auth.get("team")
        if team in payloads["team"]:
            join_room(f"team:{team}")

    @app.post("/api/commands")
    def command():
        request.get_json(silent=True)
        with lock:  # one command at a time, as the bank's lock orders them
            state["seq"] += 1
            seq = state["seq"]
            public, teams, journal = stamped(seq)
            socketio.emit("public", public)
            for team, payload in teams.items():
                socketio.emit("team", payload, to=f"team:{team}")
            socketio.emit("journal", journal, to="facilitators")
        return jsonify({"seq": seq, "events": [], "duplicate": False})

    return app, socketio


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--port", type=int, default=0, help="0 (the default): any free port, printed")
    parser.add_argument("--payloads", required=True, help="JSON file: {public, team: {id: payload}, journal}")
    args = parser.parse_args()
    with open(args.payloads) as f:
        payloads = json.load(f)
    app, _ = make_app(payloads)
    # What socketio.run(app, allow_unsafe_werkzeug=True) runs in threading mode, made here: bound on return.
    server = make_server("127.0.0.1", args.port, app, threaded=True)
    print(f"fanout floor listening on http://127.0.0.1:{server.port}/", flush=True)
    server.serve_forever()


if __name__ == "__main__":
    main()
