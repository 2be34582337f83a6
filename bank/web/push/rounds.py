"""How a round reaches the pages: ONE message per page per round.

Each Socket.IO message costs a WebSocket frame, an Engine.IO packet and, on the Wi-Fi, TCP/IP
headers (about 70% of the bytes per command at 400 pages, bench/web/push/bench_bytes.py). So a page
whose live.js says it reads them (auth `rounds: 1`) gets one `round` message holding every
part it needs, each part exactly what the separate message carried before:

- a team phone: {"public": ..., "team": ...} (its own team's part only);
- a facilitator's console: {"public": ..., "journal": {"rows": [...]}} (it asked with `journal: true`);
- every other page (big screen, fight page, admin): {"public": ...}.

A part left out did not change (a quiet tick). Pages are in rooms shaped for it (ROUND_TEAM + team,
ROUND_FACILITATORS, ROUND_OTHERS), so a round is one emit per room, the same bytes for all its pages,
plus one message of its own for a page holding another version of a picture (it gets that picture
whole) or still connecting (nothing but new journal rows: its connect reply brings the pictures).

A page that does not say it (a page loaded before the upgrade, a tool) gets the separate messages
`public`, `team`, `journal` as before, through the rooms it has always joined (LEGACY for the public
picture): never a broken screen.

A page behind gets the latest picture, not a queue. A phone or a screen whose socket still
holds an unsent message when a round goes out (a slow phone, or a server short of CPU: on a Pi budget
the pages fell minutes behind, one queued round per command, and the Engine.IO pings queued behind them
until the server closed the pages as gone) is left out of the round: it holds the version it held, and
once its socket has sent everything the broadcaster sends it the newest pictures whole (Broadcaster.
_catch_up), as market-data servers conflate for a slow consumer. So a page's socket holds at most one
round besides the one being written, its pings go out at once, and the fan-out's work follows what the
pages can take. The consoles that read the journal are never left out: their rows may batch, never gap.
"""

from __future__ import annotations

from dataclasses import dataclass

ROUND = "round"  # the event of one page's message
FACILITATORS = "facilitators"
PUBLIC = "public"  # the audience of every page; a team's audience is its room, "team:<id>"
LEGACY = "separate"  # every page that reads separate messages: the public picture goes to it
ROUND_TEAM = "round:"  # + "team:<id>": that team's phones, one message per round
ROUND_FACILITATORS = "round:facilitators"
ROUND_OTHERS = "round:others"
DISPLAY = "display"  # the big screens that read separate messages (no message goes to it alone)


def team_room(team: str) -> str:
    return f"team:{team}"


def event_of(audience: str) -> str:
    return "public" if audience == PUBLIC else "team"


def rooms_of(team: str | None, facilitator: bool, display: bool, rounds: bool, journal: bool) -> list[str]:
    """The rooms a page joins: by what it may see, and by the shape of message it reads."""
    if rounds:
        if team:
            return [ROUND_TEAM + team_room(team)]
        return [ROUND_FACILITATORS if facilitator and journal else ROUND_OTHERS]
    rooms = [LEGACY]
    rooms += [FACILITATORS] if facilitator else []
    rooms += [team_room(team)] if team else []
    rooms += [DISPLAY] if display else []
    return rooms


@dataclass(frozen=True)
class Publication:
    """What a round sends of one audience's picture: `patch` of version `base`, or `whole` (patch None)."""
    version: str
    whole: dict
    patch: dict | None
    base: str | None

    def for_page(self, held: str | None) -> dict:
        return self.patch if self.patch is not None and held == self.base else self.whole


def deliver(socketio, pubs: dict, rows: list, holds: dict, teams, extra: dict | None = None,
            journals: dict | None = None) -> set:
    """Emit one round: `pubs` {audience: Publication} (the audiences that changed), `rows` the new
    journal rows, `holds` {sid: {audience: version held}} before this round. A page closed by an emit
    (python-engineio's "client is gone") is only skipped: no lookup here needs a sid in `holds`.

    Returns the pages left out because their socket was still sending (see the module's doc): they keep
    the versions they hold, and get the newest pictures once they have caught up (`extra`: {sid: parts},
    the pictures this round does not change, for such a page that has caught up). `journals` {sid: journal
    part or None}: the consoles whose last row sent is not the last round's get their own rows instead
    (Broadcaster._owed: the rows after their last, in order)."""
    journal = {"rows": rows} if rows else None
    left_out: set = set()
    _one_room(socketio, ROUND_OTHERS, [PUBLIC], None, pubs, holds, left_out, extra)
    _one_room(socketio, ROUND_FACILITATORS, [PUBLIC], journal, pubs, holds, journals=journals)  # never left out
    for team in teams:
        _one_room(socketio, ROUND_TEAM + team_room(team), [PUBLIC, team_room(team)], None, pubs, holds, left_out, extra)
    if any(True for _ in socketio.server.manager.get_participants("/", LEGACY)):  # a page of an older live.js
        _separately(socketio, pubs, journal, holds)
    return left_out


def still_sending(socketio, sid: str) -> bool:
    """Whether this page's socket holds a message it has not started to write yet (its Engine.IO queue is
    not empty: a websocket's writer takes everything queued at once, a long-polling page's next request
    takes it). A socket already gone is not sending: its disconnect forgets it."""
    server = socketio.server
    try:
        socket = server.eio.sockets.get(server.manager.eio_sid_from_sid(sid, "/"))
    except (KeyError, AttributeError):
        return False
    queue = getattr(socket, "queue", None)
    return bool(queue is not None and not socket.closed and queue.qsize())


def participants(socketio, room: str) -> list[str]:
    return [sid for sid, _ in socketio.server.manager.get_participants("/", room)]


def _one_room(socketio, room: str, audiences: list, journal: dict | None, pubs: dict, holds: dict,
              left_out: set | None = None, extra: dict | None = None, journals: dict | None = None) -> None:
    """One room's round. With `left_out` (not for the consoles' journal), a page still sending is left out
    and added to it. `extra` {sid: parts}: the newest pictures, whole, of the audiences this round leaves
    unchanged, for the pages that were left out before and have caught up; they go in the page's message.
    `journals` {sid: journal part or None}: a console's own rows instead of `journal`, in a message of its own."""
    changed = [a for a in audiences if a in pubs]
    sids = participants(socketio, room)
    extra = {sid: extra[sid] for sid in sids if sid in extra} if extra else {}
    journals = journals or {}
    if not changed and journal is None and not extra and not journals:
        return
    tail = {"journal": journal} if journal else {}
    common = {**{event_of(a): pubs[a].patch or pubs[a].whole for a in changed}, **tail}
    own = []  # (sid, its message or None)
    for sid in sids:
        mine = holds.get(sid)
        rows = tail if sid not in journals else {"journal": journals[sid]} if journals[sid] else {}
        if left_out is not None and mine is not None and sid not in extra and still_sending(socketio, sid):
            left_out.add(sid)
            own.append((sid, None))  # skipped by the room's emit, sent nothing now
        elif mine is None or any(a not in mine for a in audiences):
            # Still connecting (in the room before on_connect notes what it holds): no patch of a
            # picture it never got; the journal rows, as every console gets them (its reply merges by seq).
            own.append((sid, rows or None))
        elif sid in extra or sid in journals or any(pubs[a].patch is not None and mine[a] != pubs[a].base
                                                    for a in changed):
            own.append((sid, {**{event_of(a): pubs[a].for_page(mine[a]) for a in changed}, **extra.get(sid, {}),
                              **rows}))
    if common and len(own) < len(sids):  # no emit (no encoding) for a room with no page that takes the common message
        socketio.emit(ROUND, common, to=room, skip_sid=[sid for sid, _ in own] or None)
    emit_alike(socketio, own)


def emit_alike(socketio, messages) -> None:
    """Each page its own message [(sid, message or None)], one emit per distinct message: the pages
    behind on one version, or catching up on one team's newest pictures, share the same parts (the same objects),
    and an emit to a list of pages encodes the message once instead of once a page."""
    alike: dict = {}
    for sid, message in messages:
        if message:
            key = tuple((name, id(part)) for name, part in message.items())
            alike.setdefault(key, (message, []))[1].append(sid)
    for message, sids in alike.values():
        socketio.emit(ROUND, message, to=sids if len(sids) > 1 else sids[0])


def _separately(socketio, pubs: dict, journal: dict | None, holds: dict) -> None:
    """An older live.js's separate messages, to the pages that read them: each audience's, then the journal."""
    for audience, pub in pubs.items():
        event, room = event_of(audience), LEGACY if audience == PUBLIC else audience
        if pub.patch is None:
            socketio.emit(event, pub.whole, to=room)
            continue
        behind, connecting = [], []
        for sid in participants(socketio, room):
            mine = holds.get(sid, {})
            if audience not in mine:
                connecting.append(sid)
            elif mine[audience] != pub.base:
                behind.append(sid)
        socketio.emit(event, pub.patch, to=room, skip_sid=(behind + connecting) or None)
        for sid in behind:
            socketio.emit(event, pub.whole, to=sid)
    if journal:
        socketio.emit("journal", journal, to=FACILITATORS)
