"""The lead's Replay reaches every big screen of the game, on every server process.

A screen hears the socket event `replay` (static/js/replay.js). The screens connected to this process
are told at once; with several processes on one game the others hear a {"replay": True}
notice on the queue (bank/web/push/peers.py) and tell theirs. A lost notice leaves a screen on its
podium: the lead presses Replay again, or opens the screen's link with `&replay=1`.
"""

from __future__ import annotations

from bank.web.push.extensions import socketio_of
from bank.web.push.socket_owners import DISPLAY_TOKEN, owners


def play_replay(app, tell_others: bool = True) -> int:
    """Start the replay on the big screens: this process's now, the other processes' through the queue.
    Returns how many screens this process told."""
    screens = [sid for sid, token in owners(app).tokens().items() if str(token or "").startswith(DISPLAY_TOKEN)]
    for sid in screens:
        socketio_of(app).emit("replay", {}, to=sid, namespace="/")
    peers = app.extensions.get("terrabank_peers")
    if tell_others and peers is not None:
        peers.announce_replay()
    return len(screens)
