"""The authenticated floor for bench_latency.py: the least a server must do for a logged-in
facilitator's command, on the bank's own stack.

bench/floor_server.py (the anonymous floor) books whatever arrives. A facilitator's harvest cannot be
booked that way: the bank must know who sends it and that the page is its own. This floor does exactly
that and nothing more, per POST /api/commands:

1. an HMAC-SHA256-signed session cookie checked (the key derived once, compared in constant time);
2. the session's row looked up in SQLite (its own connection, as the bank's accounts are), refused when
   idle longer than the bank's IDLE_LIMIT; last_seen written at most once a minute, as the bank does;
3. the X-CSRF-Token header compared in constant time with the session's token;
4. BEGIN IMMEDIATE / INSERT of a row of --row-bytes / COMMIT, WAL and synchronous=FULL (the bank's PRAGMAs),
   the Idempotency-Key as the row's unique id; then a JSON reply.

Served like the bank: Flask-SocketIO's app (pages may connect; it sends them nothing) behind
bank/web/serving.run (Gunicorn's guarded threaded worker, the bank's limits, gzip, deadlines), in its own
process (floor_server.serve). GET /api/csrf and POST /api/login (any user name and password; the session
row and cookie made as the bank makes them) let harness.Api log in as it does with the bank.

`--fanout` (bench_latency's room of live pages): the floor also does what the bank does for its
pages, at the least cost: after the COMMIT and once the reply is written (bank/web/serving/after_reply.later,
as the bank wakes its broadcaster), a thread of its own sends one Socket.IO message to every connected page, `round` as the bank's
pages get, padded to the bank's measured bytes. Its size and how many commands one message covers (the
bank sends at most one round per 100 ms, so a round may carry several commands) are set by
POST /bench/fanout {"bytes": B, "per_command": r} once the bank's pages have measured them; until then one
message of 400 bytes per command. Or, with POST /bench/fanout {"rounds": {team: [message, ...]}} (padding
compresses to nothing while the bank sends ~1 KB of JSON), the bank's own `round` messages as its pages got them,
each team's pages their team's (a page says its team as the bank's do, auth {"team": "floor-<team>"}), taken in
turn, every part's `seq` set to the newest entry: the same shape, bytes and compressibility as the bank's.
Without `--fanout` its pages receive nothing: the plain authenticated floor.

    python bench/auth_floor_server.py --db /tmp/auth-floor.db --row-bytes 400   # [--port N] [--fanout]
"""

from __future__ import annotations

import argparse
import base64
import hashlib
import hmac
import json
import os
import secrets
import sys
import threading
import time

from flask import Flask, jsonify, request
from flask_socketio import SocketIO, join_room

from floor_server import book, durable_journal, serve

from bank.web.serving.after_reply import later

IDLE_LIMIT = 24 * 3600  # as bank/store/accounts/sessions.py
SEEN_EVERY = 60
COOKIE = "floor_session"
SENDERS = {"lead", "banker"}  # the roles that may book a harvest (bank/web/access/permissions.py has the bank's table)


class Signer:
    """`<session id>.<base64url HMAC-SHA256>`, the key derived once from a secret (as the bank's CookieSigner)."""

    def __init__(self, secret: bytes):
        self._mac = hmac.new(hmac.digest(secret, b"auth floor cookie", "sha256"), digestmod=hashlib.sha256)

    def _signature(self, text: str) -> bytes:
        mac = self._mac.copy()
        mac.update(text.encode("ascii"))
        return mac.digest()

    def sign(self, session_id: str) -> str:
        return f"{session_id}.{base64.urlsafe_b64encode(self._signature(session_id)).decode('ascii')}"

    def opened(self, cookie: str) -> str | None:
        """The session id of a cookie signed here, else None."""
        session_id, _, signature = cookie.rpartition(".")
        try:
            sent = base64.urlsafe_b64decode(signature)
        except ValueError:
            return None
        return session_id if session_id and hmac.compare_digest(sent, self._signature(session_id)) else None


# Bytes of '42["round",{"pad":""}]' and the WebSocket frame's 2-4 byte head around the padding.
ROUND_OVERHEAD = 26
MIN_GAP = 0.1  # as bank/web/push/broadcaster.py: at most one round per 100 ms, a burst goes out as one


class Fanout:
    """The bank's broadcaster reduced to its sending: a thread of its own, woken once a command's reply is
    written, sends one `round` message of `bytes` to every page, at most one per MIN_GAP (commands arriving
    meanwhile are covered by the next), as bank/web/push/broadcaster.py does. Only the message differs: the
    same padding for every page instead of the pictures and patches the bank builds for each room."""

    def __init__(self, socketio, size: int = 400):
        self.socketio, self.wake = socketio, threading.Condition()
        self.asked = self.done = self.seq = 0
        self.last_round = 0.0
        self.set(size)
        threading.Thread(target=self._loop, name="fanout", daemon=True).start()

    def set(self, size: int) -> None:
        if not (isinstance(size, int) and size >= ROUND_OVERHEAD):
            raise ValueError(f"bytes must be a whole number >= {ROUND_OVERHEAD}")
        with self.wake:
            self.message = {"pad": "x" * (size - ROUND_OVERHEAD)}
            self.rounds, self.turn = None, 0

    def set_rounds(self, rounds: dict) -> None:
        """The bank's own messages {team: [round message, ...]}, sent in turn to that team's pages' room."""
        if not (isinstance(rounds, dict) and rounds and all(isinstance(r, list) and r and all(isinstance(m, dict)
                                                                                              for m in r)
                                                            for r in rounds.values())):
            raise ValueError("rounds must be {team: [message, ...]}, each list not empty")
        with self.wake:
            self.rounds, self.turn = rounds, 0

    def _emit_rounds(self, rounds: dict, seq: int) -> None:
        for team, messages in rounds.items():
            message = messages[self.turn % len(messages)]
            self.socketio.emit("round", {name: ({**part, "seq": seq} if isinstance(part, dict) and "seq" in part
                                                else part) for name, part in message.items()}, to=f"team:{team}")
        self.turn += 1

    def after_command(self, seq: int = 0) -> None:
        """Called once the reply is written (after_reply.later), as the bank's live.broadcast wakes its thread.
        `seq`: the entry just booked; the round names the newest (as the bank's public picture does), so a
        bench can tell when the last page holds it (bench/web/push/pages_under_pressure.py)."""
        with self.wake:
            self.asked += 1
            self.seq = max(self.seq, seq)
            self.wake.notify()

    def _loop(self) -> None:
        while True:
            with self.wake:
                self.wake.wait_for(lambda: self.asked > self.done)
            time.sleep(max(0.0, self.last_round + MIN_GAP - time.monotonic()))
            with self.wake:
                covered, message, seq, rounds = self.asked, self.message, self.seq, self.rounds
            self.last_round = time.monotonic()
            if rounds is not None:
                self._emit_rounds(rounds, seq)
                with self.wake:
                    self.done = covered
                continue
            named = json.dumps({"public": {"seq": seq}}, separators=(",", ":"))  # the same bytes in all: less padding
            self.socketio.emit("round", {"public": {"seq": seq}, "pad": message["pad"][len(named) - 1:]})
            with self.wake:
                self.done = covered


def bank_transport() -> str:
    """The bank's own WebSocket transport (bank/web/push/extensions.py), so the floor's pages cost it what the bank's
    cost the bank: its small deflate window and, where the bank has it, one loop serving every page."""
    from bank.web.push import deflate

    deflate.install()
    try:
        from bank.web.push import hub
    except ImportError:  # a bank before hub.py (a bench run against an older checkout): a thread per page
        return "small deflate, threading"
    hub.install()
    return "small deflate, one loop for every page"


def make_app(db: str, row_bytes: int, fanout: bool = False):
    bank_transport()
    app = Flask(__name__)
    # As bank/web/push/extensions.py (and bench/fanout_floor.py): the same mode, origins, buffer and pings,
    # so its pages cost it what the bank's cost the bank, and are dropped as soon for a late answer.
    socketio = SocketIO(app, async_mode="threading", cors_allowed_origins=None, max_http_buffer_size=64 * 1024,
                        ping_interval=10, ping_timeout=10)
    signer = Signer(secrets.token_bytes(32))
    journal, accounts = durable_journal(db), durable_journal(db)  # accounts: a connection of their own, as the bank's
    accounts.execute("CREATE TABLE IF NOT EXISTS sessions(id_hash TEXT PRIMARY KEY, username TEXT NOT NULL,"
                     " role TEXT NOT NULL, csrf TEXT NOT NULL, last_seen REAL NOT NULL)")
    write_lock, accounts_lock, filler = threading.Lock(), threading.Lock(), "x" * row_bytes

    def login_of():
        """(user, role, csrf) of the request's valid session, or None."""
        session_id = signer.opened(request.cookies.get(COOKIE, ""))
        if session_id is None:
            return None
        key = hashlib.sha256(session_id.encode()).hexdigest()
        with accounts_lock:
            row = accounts.execute("SELECT username, role, csrf, last_seen FROM sessions WHERE id_hash = ?",
                                   (key,)).fetchone()
        now = time.time()
        if row is None or now - row[3] > IDLE_LIMIT:
            return None
        if now - row[3] > SEEN_EVERY:
            with accounts_lock:
                accounts.execute("UPDATE sessions SET last_seen = ? WHERE id_hash = ?", (now, key))
        return row[:3]

    def refusal(status: int, code: str):
        return jsonify({"error": {"code": code, "message": code, "params": {}}}), status

    @app.get("/api/csrf")
    def csrf():
        return jsonify({"csrf": "before-login"})

    @app.post("/api/login")
    def login():
        body = request.get_json(silent=True) or {}
        session_id, token = secrets.token_urlsafe(32), secrets.token_urlsafe(24)
        with accounts_lock:
            accounts.execute("INSERT INTO sessions VALUES (?, ?, ?, ?, ?)",
                             (hashlib.sha256(session_id.encode()).hexdigest(), str(body.get("username")), "lead",
                              token, time.time()))
        reply = jsonify({"user": body.get("username"), "role": "lead", "csrf": token})
        reply.set_cookie(COOKIE, signer.sign(session_id), httponly=True, samesite="Lax")
        return reply

    @app.post("/api/commands")
    def command():
        found = login_of()
        if found is None:
            return refusal(401, "login_required")
        _, role, token = found
        if not hmac.compare_digest(request.headers.get("X-CSRF-Token", ""), token):
            return refusal(403, "csrf_failed")
        if role not in SENDERS:
            return refusal(403, "forbidden")
        seq = book(journal, write_lock, request.get_json(silent=True) or {}, filler)
        if pages is not None:
            later(lambda: pages.after_command(seq))  # after the reply, as the bank's round
        return jsonify({"seq": seq, "events": [], "duplicate": False})

    pages = Fanout(socketio) if fanout else None
    if fanout:
        @app.post("/bench/fanout")
        def set_fanout():
            body = request.get_json(silent=True) or {}
            try:
                if "rounds" in body:
                    pages.set_rounds(body["rounds"])
                    return jsonify({"rounds": {team: len(r) for team, r in body["rounds"].items()}})
                pages.set(body.get("bytes"))
            except (TypeError, ValueError) as exc:
                return refusal(400, str(exc))
            return jsonify({"bytes": body["bytes"]})

        @socketio.on("connect")
        def on_connect(auth=None):
            team = auth.get("team") if isinstance(auth, dict) else None
            if isinstance(team, str) and team.startswith("floor-"):
                join_room(f"team:{team[len('floor-'):]}")  # the bank's message for its team (set_rounds)

    return app, socketio


def with_bank_allocator() -> None:
    """Start again (same pid, same output) with the bank's malloc settings unless they are set: `terrabank
    serve` runs with 2 arenas and no per-thread cache (bank/cli/serve_lean.ALLOCATOR), which costs CPU and saves
    memory; a floor without them was compared with a bank paying for them. glibc reads them once, at start."""
    from bank.cli.serve_lean import ALLOCATOR

    if any(os.environ.get(name) != value for name, value in ALLOCATOR.items()):
        os.execve(sys.executable, [sys.executable, *sys.argv], {**os.environ, **ALLOCATOR})


def main() -> None:
    with_bank_allocator()
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--db", required=True)
    parser.add_argument("--port", type=int, default=0, help="0 (the default): any free port, printed")
    parser.add_argument("--row-bytes", type=int, default=600)
    parser.add_argument("--fanout", action="store_true", help="one message to every page per command, after the reply")
    parser.add_argument("--pages", type=int, default=0,
                        help="live pages to let in, as the bank's config admits them (default: the bank's own limits)")
    args = parser.parse_args()
    serve(lambda: make_app(args.db, args.row_bytes, args.fanout)[0], "authenticated floor", args.port, args.pages)


if __name__ == "__main__":
    main()
