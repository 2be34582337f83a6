"""Socket.IO: rooms per audience, updates after each commit, the clock's tick.

Rooms: "facilitators" (logged-in console, fight area, admin), "display" (big
screens), "team:<id>" (a team's phones). Every room gets the public picture;
only a team's own room gets its stock.
"""

from __future__ import annotations

import threading
from itertools import islice

from flask import current_app, request, session
from flask_socketio import emit, join_room

from . import payloads
from .broadcaster import FACILITATORS, Broadcaster, team_room
from .extensions import socketio

DISPLAY = "display"
_STARTING = threading.Lock()


def broadcast(services, journal_after: int | None = None) -> None:
    """Tell every room what changed; called only after a command is committed.

    The app's broadcaster thread sends it (bank/web/broadcaster.py), so the reply
    does not wait for 200 phones. Under TESTING the call waits until it is sent,
    so a test sees the messages as soon as the request returns.
    """
    app = current_app._get_current_object()
    sender = broadcaster(app, journal_after)
    ticket = sender.ask()
    if app.config.get("TESTING"):
        sender.flush(ticket)


def broadcaster(app, journal_after: int | None = None) -> Broadcaster:
    """The app's one sender, started on first use; journal rows after `journal_after` go out first."""
    sender = app.extensions.get("terrabank_broadcaster")
    if sender is None:
        with _STARTING:
            sender = app.extensions.get("terrabank_broadcaster")
            if sender is None:
                bank = app.extensions["terrabank"].bank
                after = journal_after if journal_after is not None else max(0, bank.last_seq - 1)
                sender = Broadcaster(app.extensions["terrabank"], socketio, app.logger, after)
                app.extensions["terrabank_broadcaster"] = sender
    return sender


def _join(auth) -> str | None:
    """Put this connection in its rooms; returns the team id for a team phone."""
    services = current_app.extensions["terrabank"]
    auth = auth if isinstance(auth, dict) else {}
    if session.get("user"):
        join_room(FACILITATORS)
    team = services.access.team_for(str(auth.get("team", ""))) if auth.get("team") else None
    if team:
        join_room(team_room(team))
    if auth.get("display"):
        join_room(DISPLAY)
    return team


@socketio.on("connect")
def on_connect(auth=None):
    """Any page connects; a team phone sends its token, the big screen display=true.

    A team token that is not valid is refused, so an old QR code says so at once.
    """
    auth = auth if isinstance(auth, dict) else {}
    team = _join(auth)
    if auth.get("team") and team is None:
        return False
    _send_current(team)


@socketio.on("sync")
def on_sync(data=None):
    """A page that reconnects asks to catch up from the last entry it saw; sent to it alone."""
    services = current_app.extensions["terrabank"]
    token = (data or {}).get("team") if isinstance(data, dict) else None
    team = services.access.team_for(str(token)) if token else None
    _send_current(team)
    if session.get("user") and isinstance(data, dict):
        after = _seq(data.get("after"))
        emit("journal", {"rows": list(islice(services.bank.journal_rows(after), 500))})


def _seq(value) -> int:
    """A journal position sent by a page; anything that is not a plain whole number means "from the start"."""
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= 10**12:
        return 0
    return value


def _send_current(team: str | None) -> None:
    services = current_app.extensions["terrabank"]
    emit("public", payloads.public(services.bank, services.config), to=request.sid)
    if team:
        emit("team", payloads.team(services.bank, services.config, team), to=request.sid)


def start_ticker(app, every: float = 1.0) -> None:
    """Let game time pass: end sessions, close events at their deadline, end the game (R33-R35)."""
    def loop():
        services = app.extensions["terrabank"]
        while True:
            socketio.sleep(every)
            try:
                if services.bank.tick() is not None:
                    broadcaster(app).ask()
            except Exception:  # a tick must never kill the loop; the next one retries
                app.logger.exception("tick failed")
    socketio.start_background_task(loop)
