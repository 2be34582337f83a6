"""Where a command's fixed cost over the latency floor goes (issue 14), part by part.

bench_latency.py compares `terrabank serve` with bench/floor_server.py (a bare Flask
endpoint doing one durable SQLite insert). This script runs both apps in one process
through Flask's test client, harvests interleaved with floor posts (the same bodies),
and prints:

1. bank and floor per request (p50), and their difference: the fixed cost;
2. the bank's harvest request split into parts, each timed by wrapping the function
   (or SQL statement) that does it, ms per request (means, so the parts add up).

The broadcast is switched off by default, as bench_latency's requests are spaced by
the floor's and the twin's: in a tight loop the broadcaster thread runs beside the
next request and takes the GIL from it (`--broadcast` shows that too). The numbers
are inflated on a loaded machine, the split between parts much less.

`--flask-cookie` serves with Flask's own cookie session instead of the bank's
(bank/web/access/cookie_session.py, keys derived once): the same run measures both.

`--cold` touches 32 MB between requests, as other processes do between two bank
requests of bench_latency (it rotates floor, bank and a twin): the bank's longer code
and data path then starts from cold CPU caches, which a tight loop hides.

    .venv/bin/python bench/profile_overhead.py [--requests 2000] [--broadcast] [--cold] [--flask-cookie]
"""

from __future__ import annotations

import argparse
import sqlite3
import statistics
import tempfile
import time
import types
from collections import Counter
from pathlib import Path

import floor_server
import harness  # noqa: F401  (puts the repo on sys.path)
from bench_latency import harvest_command
from profile_command import client_for

from flask.sessions import SecureCookieSessionInterface

from bank.game.config import load_config
from bank.web import create_app
from bank.web.serving import server as serving


class TimedConnection:
    """A sqlite3 connection whose statements are timed by their first words (the rest is passed through)."""

    def __init__(self, conn, spent: Counter, prefix: str):
        self._conn, self._spent, self._prefix = conn, spent, prefix

    def execute(self, sql, params=()):
        started = time.perf_counter()
        try:
            return self._conn.execute(sql, params)
        finally:
            self._spent[self._prefix + " ".join(sql.split()[:4])[:48]] += time.perf_counter() - started

    def __getattr__(self, name):
        return getattr(self._conn, name)


def timing(owner, attr: str, name: str, spent: Counter) -> None:
    """Replace owner.attr with a wrapper adding its time to spent[name]."""
    real = getattr(owner, attr)

    def wrapper(*args, **kwargs):
        started = time.perf_counter()
        try:
            return real(*args, **kwargs)
        finally:
            spent[name] += time.perf_counter() - started
    setattr(owner, attr, wrapper)


def hooks(funcs: list, label: str, spent: Counter) -> None:
    """Wrap each before/after-request function of an app in place."""
    for i, func in enumerate(funcs):
        def wrapper(*args, _func=func, _name=f"{label} {func.__name__}"):
            started = time.perf_counter()
            try:
                return _func(*args)
            finally:
                spent[_name] += time.perf_counter() - started
        funcs[i] = wrapper


_JUNK = bytearray(32 * 1024 * 1024)


def evict_caches() -> None:
    """Touch 32 MB (more than the CPU's caches), as other processes would between two requests."""
    bytes(_JUNK)


def instrument(app, spent: Counter) -> None:
    """Time the parts of the bank's request path (see PARTS for how they are grouped)."""
    from bank.game import engine
    from bank.game import fields
    from bank.services import bank as service
    from bank.store.journal import Journal
    from bank.web.field import api
    from bank.web.access import auth
    from bank.store.accounts import sessions

    bank = app.extensions["terrabank"].bank
    bank._journal._conn = TimedConnection(bank._journal._conn, spent, "journal SQL: ")
    app.extensions["terrabank_sessions"].conn = TimedConnection(app.extensions["terrabank_sessions"].conn, spent,
                                                                "session SQL: ")
    interface = app.session_interface
    timing(interface, "open_session", "cookie: open", spent)
    timing(interface, "save_session", "cookie: save", spent)
    timing(sessions.Sessions, "check", "log-in check", spent)
    timing(auth, "csrf_ok", "CSRF check", spent)
    timing(api, "may", "permission", spent)
    timing(fields, "unknown_fields", "field names", spent)
    timing(api, "read_command", "body: read + parse", spent)
    timing(api, "jsonify", "reply: JSON", spent)
    timing(service.Bank, "execute", "Bank.execute", spent)
    timing(service, "fingerprint", "execute: fingerprint", spent)
    timing(Journal, "find", "execute: find the id", spent)
    timing(engine, "handle", "execute: the rules", spent)
    timing(service.Bank, "_decide_tick", "execute: clock tick due?", spent)
    timing(Journal, "append", "execute: journal row + chain", spent)
    timing(Journal, "save_checkpoint", "execute: clock checkpoint row", spent)
    hooks(app.before_request_funcs[None], "before", spent)
    hooks(app.after_request_funcs[None], "after", spent)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--requests", type=int, default=2000)
    parser.add_argument("--broadcast", action="store_true", help="keep the live broadcast on (its thread runs meanwhile)")
    parser.add_argument("--cold", action="store_true", help="evict the CPU caches before each request")
    parser.add_argument("--flask-cookie", action="store_true",
                        help="Flask's own cookie session (a serializer and key derivation per request), for comparison")
    args = parser.parse_args()
    if not args.broadcast:
        from bank.web.push import live
        live.broadcast = lambda *a, **k: None  # api.post_command looks it up on the module at each call
    spent = Counter()
    with tempfile.TemporaryDirectory(prefix="terrabank-overhead-") as tmp:
        app = serving.prepare(create_app({"DB": Path(tmp) / "game.db", "CONFIG": load_config(harness.CONFIG)}))
        if args.flask_cookie:
            app.session_interface = SecureCookieSessionInterface()
        app.extensions["terrabank"].access.add_user("bench", "bench-password-1", "lead")
        post = client_for(app)
        post("start", type="start_clock")
        floor_sql = Counter()  # the floor's statements, timed the same way (its connection is made in make_app)
        floor_server.sqlite3 = types.SimpleNamespace(
            connect=lambda *a, **k: TimedConnection(sqlite3.connect(*a, **k), floor_sql, "floor SQL: "))
        floor = serving.prepare(floor_server.make_app(str(Path(tmp) / "floor.db"), 400)[0]).test_client()

        def floor_post(key, **command):
            assert floor.post("/api/commands", json=command, headers={"Idempotency-Key": key}).status_code == 200

        for i in range(100):  # warm up both
            post(f"w{i}", **harvest_command(i))
            floor_post(f"w{i}", **harvest_command(i))
        floor_sql.clear()
        times = {"bank": [], "floor": []}
        sides = [("bank", post), ("floor", floor_post)]
        for i in range(args.requests):
            for side, send in sides if i % 2 else sides[::-1]:
                if args.cold:
                    evict_caches()
                started = time.perf_counter()
                send(f"h{i}", **harvest_command(i))
                times[side].append(time.perf_counter() - started)
        instrument(app, spent)
        started = time.perf_counter()
        evicting = 0.0
        for i in range(args.requests):
            if args.cold:
                evicted = time.perf_counter()
                evict_caches()
                evicting += time.perf_counter() - evicted
            post(f"p{i}", **harvest_command(i))
        per_request = (time.perf_counter() - started - evicting) / args.requests * 1000
        app.extensions["terrabank"].bank.close()
    bank_ms, floor_ms = (statistics.median(times[s]) * 1000 for s in ("bank", "floor"))
    print(f"Harvests through Flask's test client, {'Flask' if args.flask_cookie else 'the bank'}'s session cookie, "
          f"broadcast {'on' if args.broadcast else 'off'}, "
          f"{'cold' if args.cold else 'warm'} CPU caches, "
          f"{args.requests} each, interleaved:\n")
    print(f"- bank p50 {bank_ms:.3f} ms, floor p50 {floor_ms:.3f} ms: **{bank_ms - floor_ms:.3f} ms over the floor** "
          f"({bank_ms / floor_ms:.2f}x)")
    print(f"- instrumented bank run: {per_request:.3f} ms per request (wrappers included)\n")
    print("Parts nest: `execute: ...` and `journal SQL` are inside Bank.execute; the log-in check (and its")
    print("session SQL) inside `before load_login`. The floor's statements for comparison:\n")
    print("| part of the bank's request | ms per request |")
    print("| --- | ---: |")
    for name, secs in sorted(spent.items(), key=lambda kv: -kv[1]):
        print(f"| {name} | {secs / args.requests * 1000:.3f} |")
    for name, secs in sorted(floor_sql.items(), key=lambda kv: -kv[1]):
        print(f"| {name} | {secs / args.requests * 1000:.3f} |")
    print(f"\nload average: {' '.join(Path('/proc/loadavg').read_text().split()[:3])}")


if __name__ == "__main__":
    main()
