"""The HTTP command floor for bench_latency.py: one durable SQLite insert behind Flask.

A bare Flask app on the same stack as `terrabank serve`: Flask-SocketIO's app served by
Gunicorn's guarded threaded worker through bank/web/serving.run (gzip, deadlines and
caps included), in its own process. GET /api/csrf and POST /api/login so harness.Api
can log in, and POST /api/commands doing BEGIN IMMEDIATE / INSERT / COMMIT of a row of
--row-bytes with the bank's PRAGMAs (WAL, synchronous=FULL), then replying.

Like `terrabank serve --port 0`, it binds a free port itself and prints its address
(harness.launch reads it).

`--bank-core CONFIG` (for latency_layers.py): the same bare endpoint, but what it does with
the command is the bank's `Bank.execute` on a new game at --db (the rules, the journal row,
the hash chain, idempotency, the time line): the bank without its web layer.

    python bench/floor_server.py --db /tmp/floor.db --row-bytes 600   # [--port N] [--bank-core config.toml]
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import socket
import sqlite3
import sys
import threading
import time
from pathlib import Path

from flask import Flask, jsonify, request
from flask_socketio import SocketIO


def _bare(name: str):
    """Flask and Flask-SocketIO with the two routes harness.Api calls to log in: (app, socketio)."""
    app = Flask(__name__)
    socketio = SocketIO(app, async_mode="threading")

    @app.get("/api/csrf")
    def csrf():
        return jsonify({"csrf": name})

    @app.post("/api/login")
    def login():
        return jsonify({"user": name, "role": "lead", "csrf": name})

    return app, socketio


def durable_journal(db: str) -> sqlite3.Connection:
    """A connection to the floor's journal with the bank's PRAGMAs (WAL, synchronous=FULL), its table made."""
    conn = sqlite3.connect(db, isolation_level=None, check_same_thread=False)
    conn.execute("PRAGMA busy_timeout=5000")
    conn.execute("PRAGMA journal_mode=WAL").fetchone()
    conn.execute("PRAGMA synchronous=FULL")
    conn.execute("CREATE TABLE IF NOT EXISTS journal(seq INTEGER PRIMARY KEY, command_id TEXT UNIQUE NOT NULL,"
                 " at REAL NOT NULL, command TEXT NOT NULL, events TEXT NOT NULL)")
    return conn


def book(conn: sqlite3.Connection, lock: threading.Lock, body: dict, filler: str) -> int:
    """BEGIN IMMEDIATE / INSERT / COMMIT of one row under the request's Idempotency-Key: its seq."""
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
    return cur.lastrowid


def make_app(db: str, row_bytes: int):
    app, socketio = _bare("floor")
    conn, lock, filler = durable_journal(db), threading.Lock(), "x" * row_bytes

    @app.post("/api/commands")
    def command():
        seq = book(conn, lock, request.get_json(silent=True) or {}, filler)
        return jsonify({"seq": seq, "events": [], "duplicate": False})

    return app, socketio


def make_core_app(db: str, config_path: str):
    """The floor's endpoint doing Bank.execute instead of its one insert (no session, cookie or hooks)."""
    from bank.game.config import load_config
    from bank.services.bank import Bank

    bank = Bank.create(db, load_config(config_path))
    app, _ = _bare("core")

    @app.post("/api/commands")
    def command():
        body = request.get_json(silent=True) or {}
        result = bank.execute({**body, "id": request.headers.get("Idempotency-Key") or str(time.time_ns())})
        return jsonify({"seq": result.seq, "events": result.events, "duplicate": result.duplicate})

    return app


def serve(factory, label: str, port: int = 0, pages: int = 0) -> None:
    """Bind a free port (or `port`), print the address as `terrabank serve --port 0` does (harness.launch
    reads it), and serve the app `factory()` makes on the bank's stack: bank/web/serving.run, Gunicorn's
    guarded threaded worker with the bank's limits. The app is made in the worker, after the fork, as the
    bank's is (its SQLite connections with it). bench/auth_floor_server.py serves through this too."""
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    from bank.web.serving import server as serving
    from bank.web.serving.limits import Limits

    # The bank's limits, but every live page may be anonymous: a floor knows no team link or session to
    # admit a page by (the bank admits its phones by their link, bank/web/serving/admission.py), and its
    # pages stand for the same phones. Only the count differs, not what a page costs.
    # `pages`: as many as the bank's config lets in (bank/cli/serve.py game_limits), all of them anonymous here.
    limits = Limits().for_pages(pages)
    limits = dataclasses.replace(limits, anonymous_live=max(Limits().live_slots(), pages))
    listener = socket.socket()
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as Gunicorn's own listener, before bind()
    listener.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    listener.bind(("127.0.0.1", port))
    listener.listen(2048)
    print(f"{label} listening on http://127.0.0.1:{listener.getsockname()[1]}/", flush=True)
    serving.run(factory, "127.0.0.1", listener.getsockname()[1], limits, listener=listener)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--db", required=True)
    parser.add_argument("--port", type=int, default=0, help="0 (the default): any free port, printed")
    parser.add_argument("--row-bytes", type=int, default=600)
    parser.add_argument("--bank-core", metavar="CONFIG", help="Bank.execute on a new game instead of one insert")
    args = parser.parse_args()
    if args.bank_core:
        serve(lambda: make_core_app(args.db, args.bank_core), "floor", args.port)
    else:
        serve(lambda: make_app(args.db, args.row_bytes)[0], "floor", args.port)


if __name__ == "__main__":
    main()
