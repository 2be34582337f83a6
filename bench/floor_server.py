"""The HTTP command floor for bench_latency.py: one durable SQLite insert behind Flask.

A bare Flask app on the same stack as `terrabank serve`: Flask-SocketIO's app served by
Gunicorn's guarded threaded worker through bank/web/serving.run (gzip, deadlines and
caps included), in its own process. GET /api/csrf and POST /api/login so harness.Api
can log in, and POST /api/commands doing BEGIN IMMEDIATE / INSERT / COMMIT of a row of
--row-bytes with the bank's PRAGMAs (WAL, synchronous=FULL), then replying.

Like `terrabank serve --port 0`, it binds a free port itself and prints its address
(harness.launch reads it).

    python bench/floor_server.py --db /tmp/floor.db --row-bytes 600   # [--port N]
"""

from __future__ import annotations

import argparse
import json
import socket
import sqlite3
import sys
import threading
import time
from pathlib import Path

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
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    from bank.web import serving

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--db", required=True)
    parser.add_argument("--port", type=int, default=0, help="0 (the default): any free port, printed")
    parser.add_argument("--row-bytes", type=int, default=600)
    args = parser.parse_args()
    listener = socket.socket()
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as Gunicorn's own listener, before bind()
    listener.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    listener.bind(("127.0.0.1", args.port))
    listener.listen(2048)
    port = listener.getsockname()[1]
    print(f"floor listening on http://127.0.0.1:{port}/", flush=True)
    # The app is made in Gunicorn's worker, after the fork, as the bank's is (its SQLite connection with it).
    serving.run(lambda: make_app(args.db, args.row_bytes)[0], "127.0.0.1", port, listener=listener)


if __name__ == "__main__":
    main()
