"""What a page may send on its socket: a few Socket.IO messages a second, whatever its transport, then it is closed.

An honest page sends its connect (one per namespace) and a `sync` when it reconnects, comes back to the
foreground or holds a picture a patch does not apply to: a few a minute (static/js/live.js, trias/common.js).
But python-socketio starts a thread for every event a socket sends, known or not, and a `sync` builds the
whole picture and sends it: one stranger's socket (no secret, no log-in) writing `42["sync"]` for 5 s (16 bytes
each, 64 KB a write) queued some 180,000 of them; the worker burnt 7-11 CPU-seconds on them and went on for
26 s after the socket stopped, and with four such sockets a phone's rounds came up to 2 s late for 25 s.
Engine.IO's size limit (64 KB a message, deflate.py) bounds none of that: the messages are tiny.

So each Engine.IO session (one page, on a WebSocket or on long polling) has a budget of BURST messages,
given back at RATE a second. The first message past it is dropped and the session closed; the page's
Socket.IO client connects again by itself, and new pages' handshakes are counted by the pool of whoever
opens them (bank/web/serving/opens.py), so closing costs an attacker more than it costs the bank.

A message Socket.IO cannot read (JSON nested 30,000 deep, cut short, an integer of 5,000 digits) closes its page
too, said once in one line: Engine.IO logged each with its whole traceback ("message handler error", 1.8 KB),
so a stranger's socket wrote the log as fast as it sent.
"""

from __future__ import annotations

import logging
import time

BURST = 20  # a page's connect, its Trias table's, and a reconnect's syncs with room to spare
RATE = 2.0  # messages a second given back: a phone switched to and from the bank's tab every second stays under it
_SLOT = "terrabank_budget"  # on Engine.IO's socket object: [messages left, when last counted]
log = logging.getLogger("engineio.server")
said = logging.getLogger("terrabank")  # the line an operator reads (log_lines.py): once a process


def install(sio_server, clock=time.monotonic) -> None:
    """Put the budget in front of `sio_server`'s (a python-socketio Server) handling of every message a page sends."""
    eio = sio_server.eio
    handle = eio.handlers["message"]
    unreadable_said = []

    def close(page, eio_sid) -> None:
        page.close(wait=False, reason=eio.reason.SERVER_DISCONNECT)  # never waits for a poll to take it
        # Forgotten at once: a closed session left listed answers the next POST naming it with a KeyError (a 500
        # and a traceback each); unlisted, it is Engine.IO's 400 for an unknown session, said once.
        eio.sockets.pop(eio_sid, None)

    def unreadable(data) -> str | None:
        """Why Socket.IO cannot read this message (decoded as it will be), or None. A binary attachment is bytes."""
        if not isinstance(data, str):
            return None
        try:
            sio_server.packet_class(encoded_packet=data)
        except (ValueError, RecursionError) as exc:
            return f"{type(exc).__name__}: {str(exc)[:80]}"
        return None

    def budgeted(eio_sid, data):
        page = eio.sockets.get(eio_sid)
        if page is None or page.closed or page.closing:
            return None  # a page already closed (by this budget among others): nothing more is read from it
        now = clock()
        left, then = getattr(page, _SLOT, None) or (float(BURST), now)
        left = min(float(BURST), left + (now - then) * RATE)
        if left < 1.0:
            log.info("%s: more than %d messages at once, closing the connection", eio_sid, BURST)
            close(page, eio_sid)
            return None
        setattr(page, _SLOT, (left - 1.0, now))
        why = unreadable(data)
        if why is not None:
            if not unreadable_said:
                unreadable_said.append(True)
                said.warning("a page sent a message Socket.IO cannot read (%s); it was closed, and further ones "
                             "are not logged", why)
            close(page, eio_sid)
            return None
        return handle(eio_sid, data)

    eio.on("message", budgeted)
