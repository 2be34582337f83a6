"""The HTTP command floor for bench_latency.py: one durable SQLite insert behind Flask.

A bare Flask app on the same stack as the bank (socketio.run on threaded Werkzeug):
GET /api/csrf and POST /api/login so harness.Api can log in, and POST /api/commands
doing BEGIN IMMEDIATE / INSERT / COMMIT of a row of --row-bytes with the bank's
PRAGMAs (WAL, synchronous=FULL), then replying.

    python bench/floor_server.py --db /tmp/floor.db --port 5124 --row-bytes 600
"""

from __future__ import annotations

import argparse
import json
import sqlite3
import threading
import time

from flask import Flask, jsonify, request
from flask_socketio import SocketIO


def make_app(db: str, row_bytes: int):
    app = Flask(__name__)
    socketio = SocketIO(app, async_mode="threading")
    conn = sqlite3.connect(db, isolation_level=None, check_same_thread=False)
    conn.execute("PRAGMA busy_timeout=5000")
    conn.execute("PRAGMA journal_mode=WAL").fetchone()
    conn.execute("PRAGMA synchronous=FULL")
    conn.execute("CREATE TABLE IF NOT EXISTS journal(seq INTEGER PRIMARY KEY, command_id TEXT UNIQUE NOT NULL,"
                 " at REAL NOT NULL, command TEXT NOT NULL, events TEXT NOT NULL)")
    lock, filler = threading.Lock(), "x" * row_bytes

    @app.get("/api/csrf")
    def csrf():
        return jsonify({"csrf": "floor"})

    @app.post("/api/login")
    def login():
        return jsonify({"user": "floor", "role": "lead", "csrf": "floor"})

    @app.post("/api/commands")
    def command():
        body = request.get_json(silent=True) or {}
        key = request.headers.get("Idempotency-Key") or str(time.time_ns())
        with lock:
            conn.execute("BEGIN IMMEDIATE")
            try:
                cur = conn.execute("INSERT INTO journal(command_id, at, command, events) VALUES (?, ?, ?, ?)",
                                   (key, time.time(), json.dumps(body), json.dumps([{"filler": filler}])))
                conn.execute("COMMIT")
            except BaseException:
                conn.execute("ROLLBACK")
                raise
        return jsonify({"seq": cur.lastrowid, "events": [], "duplicate": False})

    return app, socketio


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--db", required=True)
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--row-bytes", type=int, default=600)
    args = parser.parse_args()
    app, socketio = make_app(args.db, args.row_bytes)
    socketio.run(app, host="127.0.0.1", port=args.port, allow_unsafe_werkzeug=True, log_output=False)


if __name__ == "__main__":
    main()
