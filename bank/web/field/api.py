"""The JSON API: every command and view (docs/API.md). Routes parse, call the bank, reply."""

from __future__ import annotations


from flask import Blueprint, Response, current_app, g, jsonify, request, session

from bank.services import export
from bank.game import fields
from bank.game.engine import COMMANDS
from bank.game.history import reputation_history
from bank.errors import BankError, CommandError, NotAllowed
from bank.store.journal import StorageError
from bank.web.field import addresses
from bank.web.push import live
from bank.web.field import payloads
from bank.web.field import made_again, outbox
from bank.web.access import device_cookie
from bank.web.access.hash_lanes import hash_lanes
from bank.web.access.auth import (CLIENT, Busy, csrf_ok, csrf_token, current_login, current_role, error, facilitator_required,
                   lead_required, lockout, sessions)
from bank.web.body import BodyError, read_object
from bank.web import write_fault
from bank.web.i18n import LANGUAGES, page_language
from bank.store.accounts.lockout import ACCOUNT, user_key, wait_text
from bank.web.access.permissions import allowed, may, may_reverse

# A database that failed (lost, cut, busy) is back within seconds, or the page says so: it sends again then.
RETRY_AFTER = {"Retry-After": "2"}
bp = Blueprint("api", __name__, url_prefix="/api")
MAX_BODY = 16 * 1024  # a command is a few hundred bytes; anything larger is a mistake or an attack


def services():
    return current_app.extensions["terrabank"]


def lang() -> str:
    return page_language(session.get("lang"), services().config.language)  # fr or en: no Italian field game


@bp.get("/config")
def config_view():
    return jsonify(payloads.game_config(services().config, lang()))


@bp.get("/public")
def public_view():
    s = services()
    return jsonify(payloads.public(s.bank, s.config))


@bp.get("/history")
def history_view():
    """Reputation over game time since the start, so a reloaded big screen keeps its curve."""
    s = services()
    return jsonify({"seq": s.bank.last_seq, "points": reputation_history(s.bank.journal_rows(0), s.config)})


@bp.get("/team/<token>")
def team_view(token: str):
    s = services()
    team = s.access.team_for(token)
    if team is None:
        return error(404, "unknown_team_link", "this team link is not valid (it may have been replaced); ask a facilitator for the new QR code")
    return jsonify({**payloads.team(s.bank, s.config, team), **payloads.public(s.bank, s.config)})


@bp.get("/state")
@facilitator_required
def state_view():
    s = services()
    live.catch_up(current_app._get_current_object())  # another server process may have booked
    return jsonify(payloads.facilitators(s.bank, s.config))


@bp.get("/journal")
@facilitator_required
def journal_view():
    after = request.args.get("after", default=0, type=int)
    limit = max(1, min(500, request.args.get("limit", default=100, type=int)))
    rows = []
    for row in services().bank.journal_rows(after):
        rows.append(row)
        if len(rows) >= limit:
            break
    return jsonify({"rows": rows})


@bp.get("/me")
def me():
    role = current_role()
    return jsonify({"user": session.get("user"), "role": role, "may": allowed(role), "csrf": csrf_token()})


@bp.get("/csrf")
def csrf():
    return jsonify({"csrf": csrf_token()})


@bp.post("/login")
def login():
    if not csrf_ok():
        return error(403, "csrf_failed", "reload the login page and try again")
    try:
        body = read_object(MAX_BODY, "log-in") if request.is_json else request.form
    except BodyError as exc:
        return error(exc.status, exc.code, exc.message)
    username, password = body.get("username", ""), body.get("password", "")
    if not isinstance(username, str) or not isinstance(password, str):
        return error(400, "bad_login_form", "send the username and the password as texts")
    username, password = username[:40], password[:200]
    address = request.remote_addr or "?"
    # A device this account logged in on before is counted on its own (device_cookie.py: others' failures
    # never lock it); any other client per account and address, per address, and per account.
    device = device_cookie.trusted_key(username)
    keys = (device,) if device else (user_key(username, address), ACCOUNT + username, CLIENT + address)
    # Counted as a failure before the hash, in one step with the check of the lock:
    # log-ins sent at once cannot all pass the check before any of them is counted.
    wait = lockout().reserve(keys)
    if wait:
        if device:
            return error(429, "locked_out", f"too many failed log-ins on this device; try again in {wait_text(wait)}",
                         {"seconds_left": wait, "this_device": True})
        return error(429, "locked_out", f"too many failed log-ins; try again in {wait_text(wait)}, or log in on a "
                     "device where this account logged in before: it is not locked by other devices' failures",
                     {"seconds_left": wait, "this_device": False})
    since = services().access.since(username)  # before the check: a password changed meanwhile opens nothing
    try:
        # A few hashes at a time (memory stays bounded); a trusted device in its account's lane (hash_lanes.py).
        with hash_lanes(current_app).slot(lockout(), trusted=username if device else None):
            role = services().access.check(username, password)
    except Busy:
        lockout().refund(keys)
        return error(429, "busy", "too many log-ins at once; try again in a few seconds", {"seconds_left": 5})
    if role is None:
        return error(401, "bad_login", "wrong username or password")
    lockout().succeeded(*keys)
    ended = current_login()  # logging in again on this device ends the session it had
    if ended:
        sessions().end(ended.key)
        live.end_session_sockets(ended.key, "logout")
    sid = sessions().start(username, role, request.remote_addr or "?", request.headers.get("User-Agent", ""), since)
    if sid is None:
        return error(409, "account_changed", "this account was changed while logging in; log in again")
    lang = session.get("lang")
    session.clear()  # a new cookie: nothing from before the log-in is kept but the language
    session.update(sid=sid, user=username, **({"lang": lang} if lang else {}))
    reply = jsonify({"user": username, "role": role, "may": allowed(role), "csrf": csrf_token()})
    before = device_cookie.holder()  # the device's cookie from its last log-in, whichever account
    now = device_cookie.give(reply, username)  # this device is now trusted for this account (device_cookie.py)
    if before:  # what its outbox said it holds stays one row, under its new cookie
        services().access.device_reports().moved(before, now)
    return reply


@bp.post("/logout")
def logout():
    """End this device's session at once, its open sockets included."""
    if not csrf_ok():  # a page from elsewhere must not log a facilitator out in the middle of the game
        return error(403, "csrf_failed", "reload the page and try again")
    login = current_login()
    if login:
        sessions().end(login.key)
        live.end_session_sockets(login.key, "logout")
    session.clear()
    return jsonify({"ok": True})


@bp.post("/lang/<code>")
def set_lang(code: str):
    # With the CSRF token: a cross-site form posting here would replace the facilitator's cookie (a log-out).
    if not csrf_ok():
        return error(403, "csrf_failed", "reload the page and try again")
    if code not in LANGUAGES:  # Italian too: Trias pages speak it, the field game's fall back (i18n.py)
        return error(400, "unknown_language", "choose " + ", ".join(LANGUAGES))
    session["lang"] = code
    return jsonify({"lang": code})


def read_command() -> dict:
    """The posted command as a JSON object, or BodyError saying what is wrong with the body."""
    if not request.is_json:
        raise BodyError(400, "not_json", "send the command as a JSON object with a 'type' (Content-Type: application/json)")
    command = read_object(MAX_BODY)
    kind = command.get("type")
    if not isinstance(kind, str) or COMMANDS.get(kind, (None, "system"))[1] == "system":
        known = ", ".join(sorted(k for k, (_, phase) in COMMANDS.items() if phase != "system"))
        raise BodyError(400, "unknown_command", f"unknown command type {str(kind)[:40]!r}; send one of: {known}")
    return command


@bp.post("/commands")
@facilitator_required
def post_command():
    try:
        command = read_command()
    except BodyError as exc:
        return error(exc.status, exc.code, exc.message)
    key = request.headers.get("Idempotency-Key")
    if key:
        command = {**command, "id": key}
    if not may(g.role, command.get("type")):
        return error(403, "forbidden", f"a {g.role} may not send {str(command.get('type'))[:40]!r} commands", {"role": g.role})
    s = services()
    unknown = fields.unknown_fields(command)
    if unknown:  # a misspelt optional field ("deadline" for "deadline_minutes") would be silently ignored
        return error(400, "unknown_field", unknown)
    try:  # a command the page kept while the bank was out of reach: noted on its row, never judged by
        queued = outbox.queued_note(request.headers.get("X-Queued-Seconds"), request.headers.get("X-Device"),
                                    command.get("type"))
        if queued:
            outbox.same_game(request.headers.get("X-Game"), s.bank.game_mark())
    except outbox.QueuedError as exc:
        return error(exc.status, exc.code, exc.message, exc.params)
    if queued:
        command["queued"] = queued
    command["actor"] = session["user"]
    before = s.bank.last_seq
    try:
        role = g.role
        guard = made_again.guard(s.bank, command) if queued else None  # a kept command made again elsewhere
        result = s.bank.execute(command, may_undo=lambda kind: may_reverse(role, kind), check=guard)
    except NotAllowed as exc:  # undoing an entry this role may not send (decided under the bank's lock)
        return error(403, exc.code, f"a {role} may not undo a {exc.params['command']!r} entry: only who may send it may undo it",
                     {"role": role, **exc.params})
    except CommandError as exc:
        return error(400, exc.code, exc.message, exc.params)
    except StorageError as exc:  # disk full, read-only, damaged: not a refusal; nothing was booked
        write_fault.refused(current_app, exc)  # the log and /readyz say a disk full or read-only (write_fault.py)
        return (*error(503, exc.code, exc.message, exc.params), RETRY_AFTER)  # pages retry a 503 with the same key
    except BankError as exc:  # the rules said no, or the id was used for another command
        return error(409, exc.code, exc.message, exc.params)
    write_fault.booked(current_app)
    if not result.duplicate:
        live.broadcast(s, journal_after=before)  # includes a tick booked just before the command
    return jsonify({"seq": result.seq, "events": result.events, "duplicate": result.duplicate})


@bp.post("/outbox")
@facilitator_required
def outbox_report():
    """A device says how many commands it holds for this account, and how long the oldest waited."""
    try:
        device, waiting, oldest = outbox.read_report(read_object(MAX_BODY, "outbox report"))
    except BodyError as exc:
        return error(exc.status, exc.code, exc.message)
    except outbox.QueuedError as exc:
        return error(400, exc.code, exc.message, exc.params)
    # Bound to the cookie the bank signed at this device's log-in: no facilitator can empty another's report.
    holder = device_cookie.holder(session["user"])
    if holder is None:
        return error(403, "no_device_cookie", "this device's log-in cookie is missing or not this account's: "
                     "log in again on this device so that its report can be told apart from the others")
    services().access.device_reports().report(holder, device, session["user"], waiting, oldest, services().bank.now())
    return jsonify({"ok": True})


@bp.get("/outbox")
@lead_required
def outbox_devices():
    """The devices that last said they hold commands waiting to be sent (the admin page)."""
    return jsonify({"devices": services().access.device_reports().holding(), "now": services().bank.now()})


@bp.post("/teams/<team>/rotate")
@lead_required
def rotate_token(team: str):
    s = services()
    if team not in s.config.teams:
        return error(404, "unknown_team", f"there is no team {team!r}")
    token = s.access.rotate(team)
    live.end_link_sockets(team, token)  # pages open with the old link stop getting the team's stock now
    return jsonify({"team": team, "token": token})


@bp.get("/teams/links")
@lead_required
def team_links():
    return jsonify(services().access.team_tokens())


@bp.get("/teams/address")
@lead_required
def phone_address():
    """The address the team links use: serve --base, the page's own if phones can reach
    it, else this machine's network address; `loopback` says when only this machine could open them."""
    chosen = request.args.get("base") or current_app.config.get("PHONE_BASE")  # ?base=: the lead typed one
    try:
        return jsonify(addresses.choose(chosen, request.host_url, services().config.port))
    except BankError as exc:
        return error(400, exc.code, exc.message, exc.params)


def _phone_base() -> str:
    """?base= (the lead's choice on the admin page), else the bank's choice; BankError if it is malformed.
    With the game's own path: a game hosted beside others lives under /g/<name>."""
    chosen = request.args.get("base")
    if chosen is not None:
        return addresses.normalise(chosen) + request.script_root
    port = services().config.port
    return addresses.choose(current_app.config.get("PHONE_BASE"), request.host_url, port)["base"] + request.script_root


@bp.get("/teams/<team>/qr.svg")
@lead_required
def team_qr(team: str):
    """A team link's QR code, drawn here (no CDN): the admin page shows it, also right after a new link."""
    s = services()
    token = s.access.team_tokens().get(team)
    if token is None:
        return error(404, "unknown_team", f"there is no team {team!r}")
    try:
        base = _phone_base()
    except BankError as exc:
        return error(400, exc.code, exc.message, exc.params)
    return Response(addresses.qr_svg(f"{base}/t/{token}"), mimetype="image/svg+xml",
                    headers={"Cache-Control": "no-store"})  # a replaced link must never show its old code


@bp.get("/export/<what>.<fmt>")
@lead_required
def download(what: str, fmt: str):
    if what not in ("journal", "standings") or fmt not in ("json", "csv"):
        return error(404, "unknown_export", "exports are journal.json, journal.csv, standings.json, standings.csv")
    s = services()
    body = export.render(what, fmt, s.bank, s.bank.now())
    mime = "application/json" if fmt == "json" else "text/csv"
    return Response(body, mimetype=mime, headers={"Content-Disposition": f"attachment; filename=terrabank-{what}.{fmt}"})


@bp.get("/print/<kind>.pdf")
@lead_required
def print_pack(kind: str):
    """One document of the print pack, drawn from the same config.toml as the bank."""
    from printables import pack  # ReportLab: loaded on the first print, not on every start of the bank

    s = services()
    names = {"cards": "cards", "boards": "team-boards", "sheets-a3": "shared-boards-a3",
             "sheets-a4": "shared-boards-a4-halves", "bank-sheets": "bank-sheets", "join": "join-cards", "poster": "big-screen-poster", "report": "report",
             "score-track": "score-track", "rate-sign": "exchange-rate-sign", "event-sheet": "event-sheet",
             "rules-summary": "rules-summary", "bonus-dice": "bonus-dice"}
    if kind not in names:
        return error(404, "unknown_document", f"documents: {', '.join(names)}")
    paper = request.args.get("paper") or s.config.print_paper  # [print] paper, as `terrabank print`
    if paper not in ("a4", "letter"):
        return error(400, "bad_paper", "paper must be a4 or letter")
    try:
        base = _phone_base()
        if kind in ("join", "poster"):  # refuse codes that open the scanning phone itself
            addresses.require_reachable(base, request.args.get("loopback") == "1",
                                        "tick \"use it anyway\" under the team links")
    except BankError as exc:
        return error(409 if exc.code == "loopback_address" else 400, exc.code, exc.message, exc.params)
    urls = {team: f"{base}/t/{token}" for team, token in s.access.team_tokens().items()}
    wifi = (s.config.wifi_ssid, s.config.wifi_password) if s.config.wifi_ssid else None
    group = {"sheets-a3": "sheets", "sheets-a4": "sheets", "bank-sheets": "sheets", "poster": "join", "score-track": "sheets",
             "rate-sign": "sheets", "event-sheet": "sheets", "rules-summary": "boards", "bonus-dice": "boards"}.get(kind, kind)
    docs = dict(pack.documents(group, s.config, lang(), bank=s.bank, team_urls=urls, base=base, wifi=wifi,
                               paper=paper))
    sheet = "" if paper == "a4" else f"{paper}-"
    filename = {"sheets-a3": f"shared-boards-a3-{lang()}.pdf", "score-track": f"score-track-{lang()}.pdf",  # A3 always
                "sheets-a4": f"shared-boards-{'a4' if paper == 'a4' else paper}-halves-{lang()}.pdf",
                }.get(kind, f"{names[kind]}-{sheet}{lang()}.pdf")
    return Response(docs[filename](), mimetype="application/pdf",
                    headers={"Content-Disposition": f"attachment; filename={filename}"})


@bp.app_errorhandler(StorageError)
def storage_failed(exc: StorageError):
    """The game file failed outside a command (accounts, team links): its sentence, never a bare 500."""
    if request.path.startswith("/api/"):
        return (*error(503, exc.code, exc.message, exc.params), RETRY_AFTER)
    return Response(exc.message, status=503, mimetype="text/plain", headers=RETRY_AFTER)


@bp.app_errorhandler(UnicodeEncodeError)
def broken_text(_exc):
    """Text that is no character (a lone surrogate) reached a place that writes UTF-8: a 400 with its
    sentence on every route, never an HTML 500 (read_object refuses it first for JSON bodies)."""
    message = "the request holds text that is not a character (a lone surrogate); send it again as plain UTF-8"
    if request.path.startswith("/api/") or request.path.startswith("/trias/api/"):
        return error(400, "bad_text", message)
    return Response(message, status=400, mimetype="text/plain")


@bp.app_errorhandler(413)
def too_large(_exc):
    return error(413, "too_large", "the request is too large; a command is a few hundred bytes")


@bp.app_errorhandler(404)
@bp.app_errorhandler(405)
def not_here(exc):
    """Under /api every refusal is JSON, also for an address or a method that does not exist."""
    if not request.path.startswith("/api/"):
        return exc
    if exc.code == 405:
        return error(405, "wrong_method", f"{request.method} is not used on {request.path[:80]}; see docs/API.md")
    return error(404, "unknown_address", f"there is nothing at {request.path[:80]}; see docs/API.md for the addresses")
