"""The fan-out floor: a bare Flask-SocketIO server on the bank's own stack.

Served exactly as `terrabank serve` serves the bank: Flask-SocketIO in threading mode with
simple-websocket, the bank's Socket.IO settings (bank/web/push/extensions.py), behind
bank/web/serving.run: Gunicorn's master and one guarded gthread worker with the bank's limits,
gzip and deadlines (bench/floor_server.serve, which the latency floors use too; not
Werkzeug, a lighter stack than the bank's). The only difference in limits:
every live page may be anonymous (floor_server.serve says why).

No bank at all: POST /api/commands only stamps the next seq on payloads captured from a real bank
(bench_fanout.py writes them), emits them to the same rooms as bank/web/push/rounds.py (one message
per page: public + its team's part to each team's phones, public + journal rows to the consoles,
public to the rest; the separate messages to pages that read those), then replies. Whatever the bank costs
on top of this is ours to explain. The captured messages are the bank's patches, so both put the
same bytes on the wire. The floor emits before it replies and the bank after: compare "send -> last
client", not "reply -> last client".

Like `terrabank serve --port 0`, it binds a free port itself and prints its address (harness.launch
reads it).

    python bench/fanout_floor.py --payloads /tmp/payloads.json   # [--port N]
"""

from __future__ import annotations

import argparse
import json
import threading

from flask import Flask, jsonify, request
from flask_socketio import SocketIO, join_room

from auth_floor_server import with_bank_allocator
from floor_server import serve


def make_app(payloads: dict):
    app = Flask(__name__)
    # As bank/web/push/extensions.py: the same mode, origins, buffer and pings.
    socketio = SocketIO(app, async_mode="threading", cors_allowed_origins=None, max_http_buffer_size=64 * 1024,
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
        team = auth.get("team") if auth.get("team") in payloads["team"] else None
        if auth.get("rounds") == 1:  # one message per page per round, in rooms shaped for it
            join_room(f"round:team:{team}" if team else
                      "round:facilitators" if request.headers.get("Cookie") and auth.get("journal") else "round:others")
            return
        join_room("separate")
        if request.headers.get("Cookie"):
            join_room("facilitators")
        if auth.get("display"):
            join_room("display")
        if team:
            join_room(f"team:{team}")

    @app.get("/api/csrf")
    def csrf():  # harness.Api.login asks it; the floor checks nobody
        return jsonify({"csrf": "floor"})

    @app.post("/api/commands")
    def command():
        request.get_json(silent=True)
        with lock:  # one command at a time, as the bank's lock orders them
            state["seq"] += 1
            seq = state["seq"]
            public, teams, journal = stamped(seq)
            # As bank/web/push/rounds.py: one emit per room of pages reading one message per round...
            socketio.emit("round", {"public": public}, to="round:others")
            socketio.emit("round", {"public": public, "journal": journal}, to="round:facilitators")
            for team, payload in teams.items():
                socketio.emit("round", {"public": public, "team": payload}, to=f"round:team:{team}")
            # ...and the separate messages to the pages that read those.
            socketio.emit("public", public, to="separate")
            for team, payload in teams.items():
                socketio.emit("team", payload, to=f"team:{team}")
            socketio.emit("journal", journal, to="facilitators")
        return jsonify({"seq": seq, "events": [], "duplicate": False})

    return app, socketio


def main() -> None:
    with_bank_allocator()  # malloc as the bank's
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--port", type=int, default=0, help="0 (the default): any free port, printed")
    parser.add_argument("--payloads", required=True, help="JSON file: {public, team: {id: payload}, journal}")
    args = parser.parse_args()
    with open(args.payloads) as f:
        payloads = json.load(f)
    serve(lambda: make_app(payloads)[0], "fanout floor", args.port)


if __name__ == "__main__":
    main()
