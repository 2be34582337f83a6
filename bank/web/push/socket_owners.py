"""Which open socket belongs to which log-in session and which team link, so both can be cut.

A socket joins its rooms once, at connect; a logout or a replaced team link does
not take it out of them. The live layer records here who each socket is, and
cuts the sockets of a session or a link when it ends (live.end_session_sockets,
live.end_link_sockets, live.sweep).
"""

from __future__ import annotations

import threading
from dataclasses import dataclass


@dataclass(frozen=True)
class Owner:
    """Who opened a socket: a facilitator's session key, and/or a team with the link token it used."""

    session: str | None = None
    team: str | None = None
    token: str | None = None
    lead: bool = False  # a session of the lead: its pages hear the master's word on a reload (reload_push.say_reload)


class SocketOwners:
    """sid -> Owner for the sockets that carry a session or a team link; safe between threads."""

    def __init__(self):
        self._owners: dict = {}
        self._lock = threading.Lock()

    def add(self, sid: str, owner: Owner) -> None:
        if owner.session or owner.token:
            with self._lock:
                self._owners[sid] = owner

    def remove(self, sid: str) -> None:
        with self._lock:
            self._owners.pop(sid, None)

    def of_session(self, key: str) -> list:
        """The sockets opened under this session."""
        with self._lock:
            return [sid for sid, o in self._owners.items() if o.session == key]

    def of_team(self, team: str, except_token: str | None = None) -> list:
        """The sockets of this team's phones, but those that used `except_token` (the new link)."""
        with self._lock:
            return [sid for sid, o in self._owners.items() if o.team == team and o.token != except_token]

    def sessions(self) -> set:
        with self._lock:
            return {o.session for o in self._owners.values() if o.session}

    def leads(self) -> list:
        """The sockets opened under a session of the lead."""
        with self._lock:
            return [sid for sid, o in self._owners.items() if o.lead]

    def tokens(self) -> dict:
        """sid -> token of every team phone's socket."""
        with self._lock:
            return {sid: o.token for sid, o in self._owners.items() if o.token}


DISPLAY_TOKEN = "display:"  # a big screen that came with its key is recorded as token "display:<key>"


def owners(app) -> SocketOwners:
    """The app's record of which socket belongs to which session and team link."""
    return app.extensions.setdefault("terrabank_socket_owners", SocketOwners())
