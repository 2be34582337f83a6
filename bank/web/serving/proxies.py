"""Behind nginx (docs/DEPLOY.md): the phones' own addresses, not the proxy's.

Behind a reverse proxy every request comes from the proxy's address. The log-in lock-out
per address, the Trias creation limit per device and the per-address connection cap
would then treat all phones as one: one wrong password typed five times would lock
every facilitator out. `TERRABANK_PROXIES=N` says that N proxies the organiser runs
stand in front (1 for one nginx): the app then reads the client's address from the
last N entries of X-Forwarded-For (and the scheme and host the phone used), and the
per-address connection cap is left to the proxy (nginx `limit_conn`), since every
connection the server sees comes from it. Without the variable nothing changes, and
a forged X-Forwarded-For from a phone is ignored.
"""

from __future__ import annotations

import os

from werkzeug.middleware.proxy_fix import ProxyFix

from bank.errors import BankError

ENV_VAR = "TERRABANK_PROXIES"
MAX_PROXIES = 5


def trusted_proxies() -> int:
    """How many reverse proxies of the organiser stand in front (0: none, phones connect directly)."""
    text = os.environ.get(ENV_VAR, "").strip()
    if not text:
        return 0
    if not text.isdigit() or int(text) > MAX_PROXIES:
        raise BankError("bad_proxies", f"{ENV_VAR}={text!r}: give the number of reverse proxies in front of the "
                        f"bank, 1 for one nginx (0 to {MAX_PROXIES}), or leave it out when phones connect directly")
    return int(text)


def behind(app, proxies: int):
    """The app reading the client's address, scheme and host from the proxies' headers (call once)."""
    if proxies:
        app.wsgi_app = ProxyFix(app.wsgi_app, x_for=proxies, x_proto=proxies, x_host=proxies)
    return app
