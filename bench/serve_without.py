"""`terrabank serve` with parts of a facilitator's request path switched off, for bench_latency.py and
latency_layers.py only.

    python bench/serve_without.py broadcast,hooks,body,login,csrf,cookie --config config.toml --db game.db serve ...

The first argument names what to switch off (comma-separated; the rest is the CLI's):

- broadcast: the live update after each command (bench_latency.py's third server);
- hooks: the security headers added to every reply;
- body: the body's checks (duplicate keys, depth, finite numbers, known type): `request.get_json()`;
- login: the session row's check (every request is the lead); csrf: the CSRF token's check;
- cookie: the signed session cookie (a fixed session, nothing read or written); needs login and csrf off.

A measuring instrument, never a way to serve a game: it takes the bank's guarantees away.
"""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import bank.web as web  # noqa: E402
from bank.cli.main import main  # noqa: E402
from bank.web.field import api
from bank.web.access import auth
from bank.web.push import live  # noqa: E402
from bank.store.accounts.sessions import Login  # noqa: E402

PARTS = ("broadcast", "hooks", "body", "login", "csrf", "cookie")


def switch_off(parts: set) -> None:
    unknown = parts - set(PARTS)
    if unknown:
        raise SystemExit(f"serve_without: unknown part(s) {sorted(unknown)}; choose among {', '.join(PARTS)}")
    if "cookie" in parts and not {"login", "csrf"} <= parts:
        raise SystemExit("serve_without: 'cookie' needs 'login' and 'csrf' off too (the fixed session has no real id)")
    if "broadcast" in parts:
        live.broadcast = lambda *args, **kwargs: None  # api.post_command looks it up on the module at each call
    if "hooks" in parts:
        web._security_headers = lambda response: response  # registered by _register, at create_app
    if "body" in parts:
        from flask import request
        api.read_command = lambda: request.get_json()
    if "login" in parts:
        lead = Login("bench", "bench", "lead")
        auth.current_login = lambda: lead  # current_role and the route's decorator look it up on the module
        web.load_login = lambda: None
    if "csrf" in parts:
        auth.csrf_ok = lambda: True
    if "cookie" in parts:
        from flask.sessions import SecureCookieSession

        from bank.web.access.cookie_session import CookieSessions
        CookieSessions.open_session = lambda self, app, request: SecureCookieSession(
            {"sid": "bench", "user": "bench", "csrf": "bench"})
        CookieSessions.save_session = lambda self, app, session, response: None


if __name__ == "__main__":
    switch_off(set(filter(None, sys.argv[1].split(","))))
    sys.exit(main(sys.argv[2:]))
