"""Socket.IO: rooms per audience, updates after each commit, the clock's tick.

Rooms (bank/web/push/rounds.py): a page of today's live.js (auth `rounds: 1`) joins the one room
of its shape, its team's phones, the consoles that read the journal, or the other pages, and gets
one message per round. A page of an older live.js joins "separate" (the public picture),
"facilitators" (logged-in console, fight area, admin), "display" (big screens), "team:<id>"
(a team's phones). Only a team's own room gets its stock; only facilitators get the journal.
"""

from __future__ import annotations

import hmac
import threading
import time
from itertools import islice, takewhile

from flask import current_app, request
from flask_socketio import join_room

from bank.web.serving import after_reply, reload as config_reload
from bank.web.serving.identity import display_name, links_generation, team_name
from bank.web.access.auth import current_login
from bank.web.push.auth_text import refuse_unreadable
from bank.web.push.broadcaster import JOURNAL_PAGE, Broadcaster
from bank.web.push.rounds import rooms_of
from bank.web.push.extensions import socketio_of
from bank.web.push.socket_owners import DISPLAY_TOKEN, Owner, SocketOwners, owners  # noqa: F401 (re-exported)
from bank.web.push.replay_push import play_replay
from bank.web.push.witness_push import tell_facilitators

_STARTING = threading.Lock()
LINKS_SEEN = "terrabank_links_seen"  # app.extensions: the links' stamp the sweep last acted on
LINKS_EPOCH = "terrabank_links_epoch"  # app.extensions: replaced by links_replaced() in this process
SESSIONS_SEEN = "terrabank_sessions_seen"  # app.extensions: (the sessions' stamp, the keys) the sweep last read
_NEVER = object()


def register(server) -> None:
    """The handlers of the bank's pages, on the app's Socket.IO server (extensions.make_socketio)."""
    server.on_event("connect", on_connect)
    server.on_event("disconnect", on_disconnect)
    server.on_event("sync", on_sync)


def broadcast(services, journal_after: int | None = None) -> None:
    """Tell every room what changed; called only after a command is committed.

    The app's broadcaster thread sends it (bank/web/push/broadcaster.py), so the reply
    does not wait for 200 phones; under a server the thread is woken once the reply
    is written (bank/web/serving/after_reply.py), so the reply does not share the GIL with it
    either. Under TESTING the round is waited for, so a test sees the messages as soon
    as the request returns (under a server: as soon as its reply is closed).
    """
    app = current_app._get_current_object()
    sender = broadcaster(app, journal_after)

    def wake():
        ticket = sender.ask()
        tell_peers(app)
        if app.config.get("TESTING"):
            sender.flush(ticket)

    after_reply.later(wake)


def tell_peers(app) -> None:
    """Other server processes of this game hear of the rows just booked."""
    peers = app.extensions.get("terrabank_peers")
    if peers is not None:
        peers.announce(app.extensions["terrabank"].bank.last_seq)


def catch_up(app, upto: int | None = None) -> bool:
    """Fold what other server processes booked (none read if it holds `upto`); start a round if the pages are behind.

    Compared with what the broadcaster last sent, not with what this call folded: a command
    refused here (or a retry) also folds the others' rows, under the game's lock, and books
    nothing, so no round follows it; the next look must still send them."""
    bank = app.extensions["terrabank"].bank
    bank.catch_up(upto)
    sender = broadcaster(app)
    if bank.last_seq <= sender.journal_seq:
        return False
    sender.ask()
    return True


def broadcaster(app, journal_after: int | None = None) -> Broadcaster:
    """The app's one sender, started on first use; journal rows after `journal_after` go out first."""
    sender = app.extensions.get("terrabank_broadcaster")
    if sender is None:
        with _STARTING:
            sender = app.extensions.get("terrabank_broadcaster")
            if sender is None:
                bank = app.extensions["terrabank"].bank
                after = journal_after if journal_after is not None else max(0, bank.last_seq - 1)
                sender = Broadcaster(app.extensions["terrabank"], socketio_of(app), app.logger, after)
                app.extensions["terrabank_broadcaster"] = sender
    return sender


def _join(auth) -> Owner:
    """Put this connection in its rooms; returns who opened it (a session, a team phone's link)."""
    services = current_app.extensions["terrabank"]
    auth = auth if isinstance(auth, dict) else {}
    # The session's row, not the cookie: an ended session joins nothing. A big screen or a team
    # link opened on a facilitator's tablet is not a facilitator page: no journal, no log-out.
    login = None if auth.get("display") or auth.get("team") else current_login()
    token = str(auth.get("team", ""))[:100] if auth.get("team") else None
    team = services.access.team_for(token) if token else None
    if auth.get("team") and team is None:
        return Owner(None, None, None)  # refused by on_connect: no room joined
    for room in rooms_of(team, bool(login), bool(auth.get("display")), reads_rounds(auth), auth.get("journal") is True):
        join_room(room)
    if auth.get("display"):
        if auth.get("key"):  # checked by on_connect: the big screen's own link, cut when it is replaced
            return Owner(None, None, DISPLAY_TOKEN + str(auth["key"])[:100])
    return Owner(login.key if login else None, team, token if team else None, bool(login and login.role == "lead"))


def on_connect(auth=None):
    """Any page connects; a team phone sends its token, the big screen display=true.

    A team token that is not valid is refused, so an old QR code says so at once.
    """
    auth = auth if isinstance(auth, dict) else {}
    refuse_unreadable(auth)  # a lone surrogate: refused with its reason, not a UnicodeEncodeError
    if auth.get("display") and auth.get("key") and not display_key_ok(str(auth["key"])):
        return False  # a replaced big-screen link: refused, as an old team link (without a key: anonymous)
    app = current_app._get_current_object()
    catch_up(app)  # a phone moving from another server process sees at least what it saw there
    sender = broadcaster(app)
    with sender.lock:  # no round between joining the rooms and noting which versions this page holds
        owner = _join(auth)
        if auth.get("team") and owner.team is None:
            return False
        owners(current_app).add(request.sid, owner)  # so a logout or a new link can close it (end_*_sockets)
        sender.admit(request.sid, reads_rounds(auth))
        rows = _journal_upto_round(sender, _seq(auth["after"])) if owner.session and "after" in auth else None
        sender.send_current(request.sid, owner.team, journal=rows)


def reads_rounds(auth: dict) -> bool:
    """The page's live.js reads one `round` message per round; an older page says nothing."""
    return auth.get("rounds") == 1


def _journal_upto_round(sender: Broadcaster, after: int) -> list:
    """The journal rows after `after` up to the last one a round sent, for this page alone (send_current
    sends them with its pictures); read under `sender.lock`, so the next round's rows follow them: the
    page gets every row once, in order.

    Why: a console that moved to another process joined `facilitators`, got that process's
    next rows from a round, then the reply to its `sync`, older, which static/js/console_journal.js
    dropped as already passed (56-62 rows per moved console). A page more than 500 rows behind gets the
    first 500 here, and the rest from the next rounds before their own rows (Broadcaster._owed)."""
    rows = islice(takewhile(lambda row: row["seq"] <= sender.journal_seq,
                            current_app.extensions["terrabank"].bank.journal_rows(after)), JOURNAL_PAGE)
    return list(rows)


def display_key_ok(key: str) -> bool:
    return hmac.compare_digest(key.encode(), current_app.extensions["terrabank"].access.display_key().encode())


def on_disconnect(reason=None):
    """Any page's socket closed (by the page, the network or end_*_sockets): forget who it was."""
    owners(current_app).remove(request.sid)
    broadcaster(current_app._get_current_object()).forget(request.sid)


def on_sync(data=None):
    """A page that reconnects, or holds another version than a patch applies to, asks for the
    whole picture and the journal after the last entry it saw; sent to it alone."""
    services = current_app.extensions["terrabank"]
    # The team this socket joined with, not one named in the message: a team's stock goes to its
    # own room only, and only its members' sockets get its versions (the link still valid).
    token = owners(current_app).tokens().get(request.sid)
    team = services.access.team_for(token) if token else None
    app = current_app._get_current_object()
    pictures = not (isinstance(data, dict) and data.get("pictures") is False)  # a reconnect got them on connect
    if pictures:
        catch_up(app)
    sender = broadcaster(app)
    with sender.lock:  # the rows asked for, then the next round's: none overtakes an older one
        rows = _journal_upto_round(sender, _seq(data.get("after"))) if current_login() and isinstance(data, dict) else None
        sender.send_current(request.sid, team, pictures=pictures, journal=rows)


def _seq(value) -> int:
    """A journal position sent by a page; anything that is not a plain whole number means "from the start"."""
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= 10**12:
        return 0
    return value


def _cut(app, sids, event: str, reason: str) -> int:
    """Tell each socket why (so its page can say it), then close it; it leaves every room."""
    for sid in sids:
        owners(app).remove(sid)
        try:
            socketio_of(app).emit(event, {"reason": reason}, to=sid, namespace="/")
            socketio_of(app).server.disconnect(sid, namespace="/")
        except Exception:  # a socket that closed meanwhile: nothing left to cut
            app.logger.debug("socket %s already gone", sid)
    return len(sids)


def end_session_sockets(key: str, reason: str, app=None) -> int:
    """Close the open pages of an ended session (reason: "logout" or "ended"); how many were closed."""
    app = app or current_app._get_current_object()
    cut = _cut(app, owners(app).of_session(key), "session_ended", reason)
    slots = admission_of(app)
    if slots is not None:
        session = f"{game_name(app)}/session/{key}"
        slots.revoke(lambda name: name == session)  # its connections too, and their slots
    return cut


def end_link_sockets(team: str, new_token: str, app=None) -> int:
    """Close the phones of a team that still use its replaced link; how many were closed.

    The pages hear why first (a page of ours says so); then every connection opened with the old link
    is shut down by the server and its slots freed (close_replaced), before the new link is shown."""
    app = app or current_app._get_current_object()
    links_replaced(app)
    cut = _cut(app, owners(app).of_team(team, except_token=new_token), "link_replaced", "rotated")
    return max(cut, close_replaced(app))


def end_display_sockets(new_key: str, app=None) -> int:
    """Close the big screens that still use a replaced big-screen link; how many were closed."""
    app = app or current_app._get_current_object()
    links_replaced(app)
    keep = DISPLAY_TOKEN + new_key
    old = [sid for sid, token in owners(app).tokens().items() if token.startswith(DISPLAY_TOKEN) and token != keep]
    return max(_cut(app, old, "link_replaced", "rotated"), close_replaced(app))


def links_replaced(app, tell_others: bool = True) -> None:
    """A team link or the big screen's key of this game was just replaced: the server's admission
    forgets its copy of them now, the sweep reads them at its next turn, and the other processes of the game
    hear of it on the queue (they cannot all see the SQLite game's generation file: PostgreSQL, other hosts)."""
    identify = getattr(admission_of(app), "identify", None)
    if identify is not None and hasattr(identify, "forget"):
        identify.forget()
    app.extensions[LINKS_EPOCH] = object()  # a new one each time: a sweep that read the rows before it reads again
    peers = app.extensions.get("terrabank_peers")
    if tell_others and peers is not None:
        peers.announce_links()


def admission_of(app):
    """The server's admission of live pages (bank/web/serving/admission.py) for this game: the host's for a
    hosted game; None when no guarded server runs it (`serve --dev`, a test client)."""
    host = app.extensions.get("terrabank_host_app") or app
    return host.extensions.get("terrabank_live_slots")


def game_name(app) -> str:
    """The game's name in the server's counts: "" for the host's own game, else the hosted game's."""
    return app.extensions.get("terrabank_game_name", "")


def close_replaced(app, links: tuple | None = None) -> int:
    """Shut down every live connection opened with a team link or big-screen key of this game that is no longer
    valid, and free its slots now (asking the pages to leave was not enough, a hostile client
    ignored it and kept the slots, counted per team, so the new link's phones were refused). How many.
    `links`: (team tokens, display key) when the caller has just read them (sweep: read once a second, not twice)."""
    slots, game, mine = admission_of(app), game_name(app), _held_links(app)
    if not mine:
        return 0
    tokens, key = links or _links(app)
    valid = {team_name(game, team, token) for team, token in tokens.items()}
    valid.add(display_name(game, key))
    return slots.revoke(lambda name: name in mine and name not in valid)


def _held_links(app) -> list:
    """The names of this game's team links and big-screen keys holding live connections now (none without a
    guarded server)."""
    slots, game = admission_of(app), game_name(app)
    if slots is None:
        return []
    return [name for name in slots.held_secrets() if name.startswith((f"{game}/team/", f"{game}/display#"))]


def _links(app) -> tuple:
    """(team -> link, the big screen's key) as the game holds them now."""
    access = app.extensions["terrabank"].access
    return access.team_tokens(), access.display_key()


def sweep(app) -> int:
    """Close the sockets of sessions and links ended elsewhere (the CLI replaced an account, a session idled out,
    another process replaced a link)."""
    cut = sum(end_session_sockets(key, "ended", app) for key in _ended_sessions(app, owners(app).sessions()))
    return cut + sweep_links(app)


def _ended_sessions(app, keys: set) -> set:
    """Which of these sessions (holding sockets) ended. Read only when one may have: the store's
    endings stamp moved, a console joined, or a minute passed (a session idles out after a day without a
    request, which no stamp marks); a store without a stamp (PostgreSQL) is read each time."""
    sessions = app.extensions["terrabank_sessions"]
    stamp = (getattr(sessions, "endings", lambda: None)(), int(time.monotonic() // 60))  # before the rows
    seen, checked = app.extensions.get(SESSIONS_SEEN, (_NEVER, frozenset()))
    if stamp[0] is not None and seen == stamp and keys <= checked:
        return set()
    dead = keys - sessions.valid(keys)
    app.extensions[SESSIONS_SEEN] = (stamp, frozenset(keys))
    return dead


def sweep_links(app) -> int:
    """Close the connections of links and keys replaced since the last look; how many.

    The links are read only when they may have changed (the store's links_generation moved, or
    links_replaced said so), not every second: 40 or 200 idle phones cost no statement."""
    # Read before the rows: a replacement after this moves it, and the next look reads them again.
    stamp = (app.extensions.get(LINKS_EPOCH), links_generation(app.extensions["terrabank"].access))
    if app.extensions.get(LINKS_SEEN, _NEVER) == stamp:
        return 0
    phones = owners(app).tokens()
    if not phones and not _held_links(app):
        app.extensions[LINKS_SEEN] = stamp  # nothing open to cut: a page connecting later is checked then
        return 0
    tokens, key = links = _links(app)
    app.extensions[LINKS_SEEN] = stamp
    cut = close_replaced(app, links)  # a link or key replaced elsewhere: its connections, even those never connected
    valid = set(tokens.values()) | {DISPLAY_TOKEN + key}
    return cut + _cut(app, [sid for sid, token in phones.items() if token not in valid], "link_replaced", "rotated")


def start_peers(app) -> None:
    """With a queue URL (several server processes): announce rows, listen for the others'."""
    from bank.web.push.peers import Peers, queue_url

    url = queue_url(app.extensions["terrabank"].config)
    if url is None or "terrabank_peers" in app.extensions:
        return
    bank = app.extensions["terrabank"].bank
    game = bank.chain_at(1) or "empty"  # the hash of the game's first row: unique to this game
    peers = Peers(url, game, lambda notice: _heard(app, notice), app.logger)
    app.extensions["terrabank_peers"] = peers
    socketio_of(app).start_background_task(peers.listen_forever)
    if config_reload.announces():  # this worker is the operator's reload: the others of the game reload too
        socketio_of(app).start_background_task(peers.announce_reload_once_listening)


def _heard(app, notice: dict) -> None:
    """Another server process booked something, or replaced a link (bank/web/push/peers.py)."""
    if "links" in notice:  # refused here at once, and the pages opened here with the old one cut now
        links_replaced(app, tell_others=False)
        sweep_links(app)
        return
    if "replay" in notice or "witness" in notice:  # this process's big screens, or its facilitators' pages
        (play_replay if "replay" in notice else tell_facilitators)(app, tell_others=False)
        return
    if "reload" in notice:
        config_reload.ask_master()  # this process's master checks its own config.toml, then reloads, quietly
        return
    if "seq" in notice:
        if app.extensions["terrabank"].bank.last_seq < notice["seq"]:
            catch_up(app, notice["seq"])
        return
    from bank.web.trias.live import publish

    with app.app_context():
        game = app.extensions["trias_games"].get(notice["trias"])  # read again: the move is in the database
        if game is not None:
            publish(app, game, notice["after"], tell_peers=False)
