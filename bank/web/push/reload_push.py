"""The master's word on a config reload reaches the lead's open pages by their socket, as it changes.

The admin page also asks GET /api/reload (bank/web/field/reload_routes.py) every few seconds, but that request
checks its log-in against the database: while PostgreSQL is away it is refused, and a reload waiting for the
database was said on no page. The clock's loop (bank/web/push/ticker.py) looks at the word each second, in
memory only, and sends a new one (socket event `reload`) to the pages opened under a session of the lead.
"""

from __future__ import annotations

from bank.web.push.extensions import socketio_of
from bank.web.push.socket_owners import owners
from bank.web.serving import reload as config_reload

SAID = "terrabank_reload_said"  # app.extensions: the last word sent, as (state, why, problem, waited)


def say_reload(app) -> int:
    """Send the master's word to the lead's pages if it changed since the last look; returns how many were sent."""
    said = config_reload.status()
    word = None if said is None else tuple(said.get(key) for key in ("state", "why", "problem", "waited"))
    if word == app.extensions.get(SAID):
        return 0
    app.extensions[SAID] = word
    pages = owners(app).leads() if said is not None else []
    for sid in pages:
        socketio_of(app).emit("reload", said, to=sid, namespace="/")
    return len(pages)
