"""Long-polling pages, by their Engine.IO session: one poll at a time, and admitted at their first.

A page on long polling holds a pool thread only while a poll waits (up to the ping, 10 s), then polls
again at once. Refusing its next poll when the slots are full would kill a page already in, so such polls
are never refused (admission.py). But a handshake holds nothing, so that rule let in anything that named
a session: one handshake (no secret) and 30 polls naming it held a thread each, and so did the first
polls of 30 sessions opened at once; every thread of the server was taken and the phones waited. Here a
session polls once at a time (another poll at once is refused, as Engine.IO's own server does: "overlap
from client"), and its first poll is its page's admission, refused when its pool is full; a session let in
lately is never refused. Not locked: the caller (admission.LiveSlots) holds its lock around every call.
"""

from __future__ import annotations

import time
from urllib.parse import parse_qs

OVERLAP = "A page polls once at a time: this poll's page has one waiting already.\n"
# A live page polls again at once after each reply and at least every ping: one whose last poll ended longer
# ago than this is gone, and comes back as a new page (its next poll admitted as a first one).
KNOWN_SECONDS = 60.0


def session_of(environ) -> tuple | None:
    """A long poll's page: its Socket.IO path (each game has its own) and its Engine.IO session id."""
    sid = parse_qs(environ.get("QUERY_STRING", "")).get("sid")
    return (environ.get("PATH_INFO", ""), sid[0]) if sid else None


class PollSessions:
    """The sessions with a poll waiting, and those let in lately (when their last poll ended, oldest first)."""

    def __init__(self, most: int):
        self.most = most  # sessions remembered at most (the oldest forgotten first)
        self.polling: set = set()
        self.ended: dict = {}

    def busy(self, session: tuple) -> bool:
        return session in self.polling

    def known(self, session: tuple) -> bool:
        ended = self.ended.get(session)
        return ended is not None and time.monotonic() - ended < KNOWN_SECONDS

    def start(self, session: tuple) -> None:
        self.polling.add(session)

    def end(self, session: tuple) -> None:
        self.polling.discard(session)
        self.ended.pop(session, None)
        self.ended[session] = time.monotonic()
        while len(self.ended) > self.most:
            self.ended.pop(next(iter(self.ended)))
