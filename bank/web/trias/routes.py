"""Trias at the table: the pages and their JSON API (blueprint "trias", under /trias).

Pages: the start page, the board of a game (the shared screen; in mirror mode the
tablet that records the moves of a physical table) and a seat's phone page. Routes
parse, call bank/services/trias_games.py, publish to the screens (trias_live.py) and reply;
refusals keep the engine's sentence with its rule number (T1-T21).

Who may do what (bank/services/trias_authority.py): a game id gives only the public,
read-only board (no seat links, no hand card, no buttons); the table's secret (held.py) shows the
seats' links and QR codes, records a mirror game's moves, undoes and makes the rematch; a seat's
link plays that seat, shows its hand and undoes its own last move. There is no public list of games:
the start page lists the games this device holds a secret for; the lead's admin page lists them all.
"""

from __future__ import annotations

import uuid

from flask import Blueprint, Response, current_app, jsonify, redirect, render_template, request, url_for

from bank.store.journal import REWRITTEN
from bank.store.storage import StorageError
from trias import BadCommand, TriasError
from trias.bots import LEVELS

from bank.web.field import addresses
from bank.web.access.auth import csrf_ok, csrf_token, current_login, error, lead_required
from bank.web.body import BodyError, read_object
from bank.web.i18n import request_language, speak_for
from bank.store.accounts.lockout import wait_text
from bank.web.rate import Window
from bank.web.trias import held, rewrite_alarm, unopened, visitors
from bank.web.trias.live import announce_rematch, publish
from bank.web.trias.names import with_default_names
from bank.web.trias.payloads import game_summary, seat_list, snapshot

bp = Blueprint("trias", __name__, url_prefix="/trias")
MAX_BODY = 8 * 1024
# A move, an undo: the longest legal command is a rescue of about 80 bytes, and the page adds the entry it showed.
# Seats' links are anyone's to mint: a command route reads no more than this, refused unread (before: 8 KB).
COMMAND_BODY = 1024
# A table starts a few games an evening; a script on the Wi-Fi could start thousands and fill
# the games folder (trias_games.MAX_GAMES). Twenty per device in ten minutes is plenty for
# a tablet setting up several tables.
NEW_GAMES_PER_DEVICE, NEW_GAMES_WINDOW = 20, 600


unopened.register(bp)  # a game whose file cannot be trusted: said in the page's language, no path


def games():
    return current_app.extensions["trias_games"]


def lang() -> str:
    """The page's language: French, English or Italian (bank/web/i18n.py)."""
    return request_language()


def _render(template: str, status: int = 200, **context):
    if context.get("game") is not None:
        speak_for(context["game"].lang)  # a game's pages speak its language
    return render_template(template, lang=lang(), csrf=csrf_token(), role=None, user=None, **context), status


def _poke(game_id: str) -> None:
    """Tell the computer player a game changed, so a computer seat to play starts its short wait."""
    player = current_app.extensions.get("trias_computer")
    if player is not None:
        player.poke(game_id)


# ---- pages ----

@bp.get("/")
def start():
    """New game, resume a game, the score calculator."""
    return _render("trias/start.html", levels=LEVELS)


@bp.get("/g/<game_id>")
def board(game_id: str):
    """The table's screen with its secret (links, undo, rematch, a mirror's recording); else the public view."""
    game = games().get(game_id)
    if game is None:
        return _render("trias/unknown.html", 404)
    sent = request.args.get("t")
    if sent is not None:  # the table's link, once: kept on this device, then the address without it
        if not game.is_table(sent[:100]):
            return _render("trias/wrong_link.html", 403, game_id=game.id)
        held.remember_table(game.id, sent[:100])
        return redirect(url_for("trias.board", game_id=game.id), 303)
    status = held.table_status(game)
    if status == "wrong":  # kept from before and no longer this game's: forgotten, the game unchanged
        held.forget_table(game.id)
        return _render("trias/wrong_link.html", 403, game_id=game.id)
    is_table = status == "table"
    links = [{"seat": i, "name": s["name"], "url": _seat_url(game, i)} for i, s in enumerate(seat_list(game))
             if game.seats[i].get("kind") == "human"] if is_table and game.mode == "play" else []
    return _render("trias/board.html", game=game, links=links, is_table=is_table)


@bp.get("/s/<token>")
def seat(token: str):
    found = games().seat_for(token[:100])
    if found is None:
        return _render("trias/unknown.html", 404)
    game, number = found
    held.remember_seat(token[:100])
    return _render("trias/seat.html", game=game, seat=number, token=token)


@bp.get("/g/<game_id>/qr/<int:number>.svg")
def seat_qr(game_id: str, number: int):
    """A seat's join link as a QR code (SVG drawn from the same encoder as the printed join cards): the table's only."""
    game = games().get(game_id)
    if game is None or not 0 <= number < len(game.seats) or not game.seats[number].get("token"):
        return Response("no such seat", status=404, mimetype="text/plain")
    if held.table_status(game) != "table":
        return Response("only the table's screen shows the seats' links: ask the table for a new link",
                        status=403, mimetype="text/plain")
    svg = addresses.qr_svg(_seat_url(game, number))  # the same helper as the team links' codes
    return Response(svg, mimetype="image/svg+xml", headers={"Cache-Control": "no-store"})


def _base() -> str:
    """The address phones can reach (not 127.0.0.1 when the board runs on the server)."""
    port = current_app.extensions["terrabank"].config.port
    return addresses.choose(current_app.config.get("PHONE_BASE"), request.host_url, port)["base"]


def _seat_url(game, number: int) -> str:
    return _base() + url_for("trias.seat", token=game.seats[number]["token"])


def table_link(game) -> str | None:
    """The table's link (its secret in the address), for the device that made the game and the lead."""
    return _base() + url_for("trias.board", game_id=game.id, t=game.table_secret) if game.table_secret else None


# ---- the JSON API ----

@bp.before_request
def _csrf():
    """Every POST carries the page's CSRF token, like the bank's own API."""
    if request.method == "POST" and not csrf_ok():
        return error(403, "csrf_failed", "this page is out of date or came from elsewhere; reload it and try again")
    return None


@bp.get("/api/games")
def list_games():
    """The games this device holds a secret for (no public list: an id must not be found by looking)."""
    listed = []
    for game_id, secret in held.tables().items():
        game = games().get(game_id)
        if game is not None and game.is_table(secret):
            listed.append((game, {"as": "table", "link": f"/trias/g/{game.id}"}))  # TB.url adds the root
    for token in held.seats():
        found = games().seat_for(token)
        if found is not None:
            game, number = found
            listed.append((game, {"as": "seat", "seat": number, "link": f"/trias/s/{token}"}))
    listed.sort(key=lambda entry: entry[0].created, reverse=True)
    return jsonify({"games": [{**game_summary(game.summary()), **how} for game, how in listed]})


@bp.get("/api/admin/games")
@lead_required
def admin_games():
    """The lead's list: every game, each with its table link (none yet for a game stored before them)."""
    return jsonify({"games": [{**game_summary(entry), "table_link": table_link(games().get(entry["id"]))}
                              for entry in games().list()]})


@bp.post("/api/admin/games/<game_id>/table")
@lead_required
def admin_table_link(game_id: str):
    """A table link for a game stored before table secrets (made once; the same link after)."""
    game = games().get(game_id)
    if game is None:
        return _unknown_game()
    try:
        game.make_table_secret("lead")
    except TriasError as exc:
        return error(409, exc.code, exc.message, exc.params)
    except StorageError as exc:
        return error(503, exc.code, exc.message, exc.params)
    return jsonify({"id": game.id, "table_link": table_link(game)})


@bp.post("/api/games")
def create_game():
    """A new game from {seats: [{name, kind, level}], seed, mode}; answers its board and seat links."""
    closed = visitors.creation_refused()  # the lead may keep them for facilitators during a field game
    if closed is not None:
        return closed
    wait = _creations().take(request.remote_addr or "?")
    if wait:
        return error(429, "too_many_games", f"this device started {NEW_GAMES_PER_DEVICE} games in the last "
                     f"{NEW_GAMES_WINDOW // 60} minutes; wait {wait_text(wait + 1)} and try again, or continue a "
                     "game already started", {"wait": int(wait + 1)})
    try:
        body = read_object(MAX_BODY, "new game")
        seats, seed, mode = parse_new_game(body)
        seats = with_default_names(seats, lang())  # a computer seat without a name: "Computer · hard"
        game = games().create(seats=seats, seed=seed, mode=mode, lang=lang(), stranger=current_login() is None)
    except BodyError as exc:
        return error(exc.status, exc.code, exc.message)
    except BadCommand as exc:
        return error(400, exc.code, exc.message, exc.params)
    except StorageError as exc:
        return error(503, exc.code, exc.message, exc.params)
    _poke(game.id)
    held.remember_table(game.id, game.table_secret)  # the device that made the game is its table
    return jsonify({"id": game.id, "board": url_for("trias.board", game_id=game.id), "table_link": table_link(game),
                    "seats": [{"name": s["name"], "kind": s["kind"],
                               "link": url_for("trias.seat", token=game.seats[i]["token"]) if game.seats[i].get("token") else None}
                              for i, s in enumerate(seat_list(game))]}), 201


def _creations() -> Window:
    """The app's count of new games per device (one per app, so tests and apps do not share it)."""
    return current_app.extensions.setdefault("trias_creations", Window(NEW_GAMES_PER_DEVICE, NEW_GAMES_WINDOW))


def parse_new_game(body: dict) -> tuple:
    """(seats, seed, mode) from the start page's form; the games service checks each (BadCommand)."""
    seed = body.get("seed")
    if seed in (None, ""):
        seed = None
    elif isinstance(seed, str) and seed.strip().isdigit():
        seed = int(seed.strip())
    return body.get("seats"), seed, body.get("mode", "play")


@bp.get("/api/g/<game_id>")
def board_state(game_id: str):
    game = games().get(game_id)
    if game is None:
        return _unknown_game()
    return jsonify(snapshot(game, None, _after_arg(game)))


@bp.get("/api/s/<token>")
def seat_state(token: str):
    found = games().seat_for(token[:100])
    if found is None:
        return _unknown_seat()
    game, number = found
    return jsonify(snapshot(game, number, _after_arg(game)))


def _after_arg(game) -> int:
    after = request.args.get("after", type=int)
    return after if after is not None and 0 <= after <= game.last_seq else max(0, game.last_seq - 30)


@bp.post("/api/g/<game_id>/commands")
def table_command(game_id: str):
    """The mirror tablet records a move of the physical table (actor "table")."""
    game, refused = _table_game(game_id)
    if refused:
        return refused
    if game.mode != "mirror":
        return error(403, "play_from_phone", "in a game played with phones each player moves from their own seat page; "
                     "scan your seat's QR code")
    return _execute(game, "table", lambda command, key, after: game.execute(command, key, "table", after))


@bp.post("/api/s/<token>/commands")
def seat_command(token: str):
    """A player's phone sends a move for its own seat (actor "seat:N")."""
    found = games().seat_for(token[:100])
    if found is None:
        return _unknown_seat()
    game, number = found
    return _execute(game, f"seat:{number}", lambda command, key, after: game.execute(command, key, f"seat:{number}", after))


@bp.post("/api/g/<game_id>/undo")
def undo(game_id: str):
    """Undo the last move (confirmed on the page): a new journal row, never a deleted one. The table only;
    a seat undoes its own last move with {"type": "undo"} on its commands."""
    game, refused = _table_game(game_id)
    if refused:
        return refused
    return _execute(game, "table", lambda command, key, after: game.undo_last(key, "table", after),
                    needs_command=False)


@bp.post("/api/g/<game_id>/rematch")
def rematch(game_id: str):
    """A new game with the same seats; every screen of this one follows (the phones and the table keep their links)."""
    game, refused = _table_game(game_id)
    if refused:
        return refused
    key = _key()
    try:
        new = game.rematch(key, stranger=current_login() is None)
    except TriasError as exc:
        return error(409, exc.code, exc.message, exc.params)
    except StorageError as exc:
        return error(503, exc.code, exc.message, exc.params)
    held.remember_table(new.id, new.table_secret)
    announce_rematch(game, new.id)
    _poke(new.id)
    return jsonify({"id": new.id, "board": url_for("trias.board", game_id=new.id)})


def _key() -> str:
    """The page's Idempotency-Key (kept across its retries), or a fresh one."""
    key = request.headers.get("Idempotency-Key", "")
    return key[:100] if key else uuid.uuid4().hex


def _execute(game, actor: str, run, needs_command: bool = True):
    try:
        command = read_object(COMMAND_BODY) if needs_command or request.content_length else {}
    except BodyError as exc:
        return error(exc.status, exc.code, exc.message)
    command.pop("player", None)  # the seat is the link's, never the body's
    # The last entry the page showed: a double tap (or two screens) decided on a position that
    # has moved on is refused as stale, so two undos take back one move, not two.
    after = command.pop("after_seq", None)
    if after is not None and (isinstance(after, bool) or not isinstance(after, int) or after < 0):
        return error(400, "bad_after_seq", "after_seq must be the whole number of the last entry the page showed")
    before = game.last_seq
    try:
        result = run(command, _key(), after)
    except BadCommand as exc:
        return error(400, exc.code, exc.message, exc.params)
    except TriasError as exc:  # the rules say no: the sentence names the rule
        return error(409, exc.code, exc.message, exc.params)
    except StorageError as exc:  # nothing was written; the page retries with the same key
        if exc.code == REWRITTEN:  # ...but never on this store: said once, on every screen (rewrite_alarm.py)
            rewrite_alarm.say(current_app._get_current_object(), game)
        return error(503, exc.code, exc.message, exc.params)
    if not result.duplicate:
        publish(current_app._get_current_object(), game, before)
        _poke(game.id)
    return jsonify({"seq": result.seq, "events": result.events, "duplicate": result.duplicate, "actor": actor})


def _table_game(game_id: str) -> tuple:
    """(game, None) when this request holds the game's table secret, else (None, the refusal); nothing changes."""
    game = games().get(game_id)
    if game is None:
        return None, _unknown_game()
    status = held.table_status(game)
    if status == "table":
        return game, None
    if status == "wrong":
        return None, error(403, "table_link_wrong", "this device's table link for this game is wrong or out of date; "
                           "nothing was changed: ask the table for a new link", {"game": game.id})
    return None, error(403, "table_only", "only the table's screen (the device holding the game's table link) may do "
                       "this; nothing was changed: ask the table for a new link", {"game": game.id})


def _unknown_game():
    return error(404, "unknown_game", "there is no Trias game with this address; start one or pick it from /trias/")


def _unknown_seat():
    return error(404, "unknown_seat", "this seat link is not valid; scan the QR code on the board again")
