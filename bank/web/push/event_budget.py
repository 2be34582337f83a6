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

A page's budget is its secret's too: one whose page was closed by the budget (a team link, the big screen's
key, a session, a Trias seat) starts its next pages with what it had left (nothing), given back at RATE, at
least FLOOR (a page's connect and its sync), for as long as that takes to fill. Before, each new page started
with the whole BURST: a stolen team link reconnecting as fast as its handshakes allow (4 times its pages' share
every 30 s) got some 160 messages a second read. Pages with no secret share one memory, as they share one pool of
handshakes (opens.py): one of them closed by the budget starts every stranger's next page low. Before, each had
the whole BURST, from as many addresses as a laptop adds; an honest page without a secret (the big screen
without its key) needs its connect and a sync, FLOOR, and the budget given back at RATE.

A message Socket.IO cannot read (JSON nested 30,000 deep, cut short, an integer of 5,000 digits) closes its page
too, said once in one line: Engine.IO logged each with its whole traceback ("message handler error", 1.8 KB),
so a stranger's socket wrote the log as fast as it sent.
"""

from __future__ import annotations

import logging
import time

from bank.web.serving.who import WHO  # the environ key naming the page's secret, or None

BURST = 20  # a page's connect, its Trias table's, and a reconnect's syncs with room to spare
RATE = 2.0  # messages a second given back: a phone switched to and from the bank's tab every second stays under it
FLOOR = 2.0  # what a secret's new page starts with at least: its connect and its sync (an honest phone's reconnect)
STRANGERS = "strangers"  # the budget every page without a secret shares (no secret's name: those carry a kind)
_SLOT = "terrabank_budget"  # on Engine.IO's socket object: [messages left, when last counted]
log = logging.getLogger("engineio.server")
said = logging.getLogger("terrabank")  # the line an operator reads (log_lines.py): once a process


def _holder(environ) -> str | None:
    """Whose budget a page spends: its secret, STRANGERS for a page admission found without one, None for a request
    admission did not see (`serve --dev`, a test client: each page its own, as before)."""
    if WHO not in environ:
        return None
    return environ[WHO] or STRANGERS


def install(sio_server, clock=time.monotonic) -> None:
    """Put the budget in front of `sio_server`'s (a python-socketio Server) handling of every message a page sends."""
    eio = sio_server.eio
    handle = eio.handlers["message"]
    unreadable_said = []

    def holder(eio_sid) -> str | None:
        return _holder(sio_server.environ.get(eio_sid) or {})
    spent: dict[str, float] = {}  # who -> when a page of theirs was closed by the budget (their next pages start low)

    def start(eio_sid, now) -> float:
        """A new page's budget: BURST, or what its secret's page closed by the budget left, given back since."""
        closed = spent.get(holder(eio_sid))
        if closed is None:
            return float(BURST)
        return min(float(BURST), max(FLOOR, (now - closed) * RATE))

    def overspent(eio_sid, now) -> None:
        who = holder(eio_sid)
        if who:
            if len(spent) > 10_000:  # secrets whose budget is whole again say nothing: forgotten
                for key in [k for k, t in spent.items() if now - t > BURST / RATE]:
                    del spent[key]
            spent[who] = now

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
        left, then = getattr(page, _SLOT, None) or (start(eio_sid, now), now)
        left = min(float(BURST), left + (now - then) * RATE)
        if left < 1.0:
            log.info("%s: more than %d messages at once, closing the connection", eio_sid, BURST)
            overspent(eio_sid, now)
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
