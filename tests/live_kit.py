"""A live page's socket as static/js/live.js opens it today, for the tests that check what pages are sent.

A page's live.js says `rounds: 1` in its connect auth (and `journal: true` on a console that
shows the journal), and the server sends it ONE `round` message per round holding the parts it shows
(bank/web/push/rounds.py). A page without `rounds` (loaded before the upgrade) still gets the separate
`public` / `team` / `journal` messages: that legacy path is kept for it, but no real page takes it now, so
the guarantees of the live layer (commit order, patches only to a page holding their base, the whole
picture on connect and `sync`, every journal row once, the journal only to facilitators...) are tested
here on the path every page uses.

`live_client(app, ...)` is flask_socketio's test client connected that way; its `get_received()` gives
the parts of each `round` message unfolded in the order live.js reads them (public, team, journal), each
shaped as the separate message was ({"name", "args", "namespace"}), so a test's assertions on "public",
"team" and "journal" keep their meaning on either path. `legacy=True` connects as an old page instead.
tests/sio_kit.Phone (a page on a real WebSocket) connects and unfolds the same way.
Both paths are checked strictly: a page that reads rounds and is sent a separate picture or journal
message, or an old page sent a `round`, fails the test at once.
"""

from __future__ import annotations

ROUND = "round"
PARTS = ("public", "team", "journal")  # a round's parts, in the order live.js reads them


def unfold(name: str, payload) -> list[tuple[str, object]]:
    """One received message as the (event, payload) pairs live.js handles: a `round` gives its parts in
    order; any other message (a notice such as `session_ended`, or a legacy part) is itself."""
    if name == ROUND and isinstance(payload, dict):
        return [(part, payload[part]) for part in PARTS if part in payload]
    return [(name, payload)]


class LiveClient:
    """A flask_socketio test client seen through live.js: received messages come out as their parts.

    `rounds` keeps every raw `round` message received so far, for the tests of the message itself (one per
    page per round); everything else (emit, disconnect, is_connected) is the test client's."""

    def __init__(self, client, legacy: bool):
        self.client, self.legacy = client, legacy
        self.rounds: list[dict] = []

    def __getattr__(self, name):
        return getattr(self.client, name)

    def get_received(self, namespace=None) -> list[dict]:
        """The parts received since the last call (the test client refuses this on a closed socket)."""
        return self._unfolded(self.client.get_received(namespace))

    def received(self) -> list[dict]:
        """As get_received(), also after the server closed the socket (to read the notice it sent before)."""
        messages, self.client.queue[:] = list(self.client.queue), []
        return self._unfolded(messages)

    def parts(self) -> list[tuple[str, object]]:
        """The parts received since the last call as (event, payload) pairs, in order."""
        return [(m["name"], m["args"][0] if m["args"] else None) for m in self.get_received()]

    def _unfolded(self, messages: list[dict]) -> list[dict]:
        out = []
        for message in messages:
            name, args = message["name"], message.get("args") or []
            if self.legacy:
                assert name != ROUND, "a page of the old script (no `rounds` in its auth) was sent a round message"
            elif name in PARTS:
                raise AssertionError(f"a page that reads rounds was sent a separate {name!r} message")
            if name == ROUND:
                self.rounds.append(args[0])
            out += [{"name": event, "args": [payload], "namespace": message.get("namespace", "/")}
                    for event, payload in unfold(name, args[0] if args else None)]
        return out


def live_auth(auth: dict | None, console: bool, legacy: bool = False, journal: bool | None = None) -> dict | None:
    """The connect auth live.js sends: `rounds: 1`, `journal: true` on a console (a page showing the
    journal: by default a page with a browser session that is neither a team phone nor a big screen),
    then the page's own auth on top (as live.js: Object.assign({rounds: 1}, journal, own))."""
    if legacy or not isinstance(auth, (dict, type(None))):
        return auth  # an old page; or odd auth no live.js sends (a tool, an attacker): as it is
    own = dict(auth or {})
    if journal is None:
        journal = console and not own.get("team") and not own.get("display")
    return {"rounds": 1, **({"journal": True} if journal else {}), **own}


def live_client(app, auth: dict | None = None, *, flask_test_client=None, legacy: bool = False,
                journal: bool | None = None, **options) -> LiveClient:
    """A page's socket on `app`, connected as live.js does (see live_auth); `flask_test_client` carries a
    facilitator's log-in (a console); `legacy=True`: a page of an older live.js."""
    from bank.web.push.extensions import socketio_of  # here: tests/sio_kit.py reads this kit on a plain socket

    client = socketio_of(app).test_client(
        app, auth=live_auth(auth, flask_test_client is not None, legacy, journal),
        flask_test_client=flask_test_client, **options)
    return LiveClient(client, legacy)
