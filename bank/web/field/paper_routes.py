"""Paper that takes over mid-game: the lead's routes.

GET  /api/paper/state.pdf     the game state on one page, now (A4 or Letter: ?paper=, default [print] paper)
GET  /api/paper/ledgers.pdf   each team's continuation ledger, starting from the state now
GET  /api/paper/bank-down.pdf the bank-down procedure (also in the print pack's sheets)
GET  /api/paper/saved         where the bank writes the state by itself (paper_writer.py) and the files there
GET  /api/paper/syntax        one example of each move form, in the page's language and the game's names
POST /api/paper/batch         {"batch": key, "text": lines}: the paper ledgers' moves booked in order

A batch books each line as an ordinary command (Bank.execute, the lead's permissions), in order;
a refused line is answered with its code, English message and params (the page says it in its
language) and the next lines are still booked. Idempotent, whatever device sends it: a line under a
sheet's id ("feuille 412C-K7", then "3 Verts récolte eau 1") is one move, booked under its sheet and
printed number (bank/web/field/paper_line.py), so the same line sent from a second laptop or a private
window, any number of times, books once; typed again with another move it is refused naming the entry
booked (undo that one first if it is the wrong one), whatever kind of move either reading is (a trade
read with other amounts, a harvest line typed as a trade). A line typed without a sheet (hand-drawn
paper) keeps the batch's identity: the batch key, the command and how many identical commands come
before it in the text, so only the same batch sent again is known again. A sheet's id whose check is not
this game's (bank/game/paper_sheet.py: a rehearsal's ledger, another hosted game's) is refused, and every
line under it too, until the next sheet's id; so is a sheet's id typed with its word misspelled or left out
("feuile 412C-K7", "412C-K7"), which would otherwise leave the next sheet's lines under the sheet above. A line
under a sheet is a move of that sheet's team (a trade or a fight: that team one side of it): another team's
is refused naming both, never booked as the sheet's numbered line.
"""

from __future__ import annotations

import hashlib
import json
import re
import time

from flask import Blueprint, Response, current_app, g, jsonify, request, session

from bank.errors import BankError, IdConflict
from bank.game.paper_sheet import (SheetError, is_header, names_a_sheet, numbered, read_header, sheet_check, sheet_id,
                                   sheet_parts)
from bank.store.journal import StorageError
from bank.web.access.auth import error, lead_required
from bank.web.access.permissions import may
from bank.web.body import BodyError, read_object
from bank.web.field import paper_line, paper_shared, paper_writer, payloads
from bank.web.field.paper_syntax import Grammar, PaperSyntaxError, parse
from bank.web.push import live
from bank.web import write_fault

bp = Blueprint("paper", __name__, url_prefix="/api/paper")
MAX_BATCH_BYTES = 60 * 1024  # a few hundred ledger lines; the app refuses bodies over 64 KB anyway
MAX_LINES = 1000
BATCH_KEY = re.compile(r"^[A-Za-z0-9-]{4,64}$")


def register(app, db) -> None:
    """The routes, and under a serving process the writer of the state to disk (paper_writer.py)."""
    app.register_blueprint(bp)
    paper_writer.install(app, db)


def _services():
    return current_app.extensions["terrabank"]


def _lang() -> str:
    lang = request.args.get("lang") or session.get("lang") or _services().config.language
    return lang if lang in ("fr", "en") else _services().config.language


def _paper():
    paper = request.args.get("paper") or _services().config.print_paper
    if paper not in ("a4", "letter"):
        return None
    return paper


def snapshot_now(services) -> dict:
    """The game as it is now, for the sheet and the ledgers (printables/state_data.py)."""
    from printables.state_data import snapshot  # ReportLab's side: loaded on the first print

    seq, state = payloads.current(services.bank)
    return snapshot(state, services.config, services.bank.now(), seq, time.time(), services.bank.head_at(seq),
                    services.bank.game_mark())


def _pdf(data: bytes, filename: str) -> Response:
    return Response(data, mimetype="application/pdf",
                    headers={"Content-Disposition": f"attachment; filename={filename}", "Cache-Control": "no-store"})


@bp.get("/<kind>.pdf")
@lead_required
def print_paper(kind: str):
    """The state (one page), the continuation ledgers, or the bank-down page, at any moment."""
    if kind not in ("state", "ledgers", "bank-down"):
        return error(404, "unknown_document", "paper documents: state.pdf, ledgers.pdf, bank-down.pdf")
    paper = _paper()
    if paper is None:
        return error(400, "bad_paper", "paper must be a4 or letter")
    s = _services()
    live.catch_up(current_app._get_current_object())  # another server process may have booked
    lang, sheet = _lang(), "" if paper == "a4" else f"{paper}-"
    if kind == "bank-down":
        from printables.state_procedure import render_bank_down

        return _pdf(render_bank_down(s.config, lang, paper), f"bank-down-{sheet}{lang}.pdf")
    snap = snapshot_now(s)
    if kind == "state":
        from printables.state_sheet import render_state

        return _pdf(render_state(snap, s.config, lang, paper), f"game-state-{snap['seq']}-{sheet}{lang}.pdf")
    from printables.state_ledger import render_ledgers

    return _pdf(render_ledgers(snap, s.config, lang, paper), f"continuation-ledgers-{snap['seq']}-{sheet}{lang}.pdf")


@bp.get("/saved")
@lead_required
def saved():
    """Where the bank writes the game state by itself, how often, and the files kept there."""
    return jsonify(paper_writer.of(current_app).describe())


@bp.get("/syntax")
@lead_required
def syntax():
    """One example of each move form, in the page's language (printables/state_syntax.py)."""
    from printables.state_syntax import examples, notes

    lang = _lang()
    lines = examples(_services().config, lang)
    sheet = "feuille" if lang == "fr" else "sheet"  # a ledger's first line (its id and check), then its numbered moves
    first = sheet_id(0, 0, _services().bank.game_mark())
    return jsonify({"examples": lines, "notes": notes(lang), "placeholder": f"{sheet} {first}\n1 {lines[0]}\n2 {lines[1]}"})


@bp.post("/batch")
@lead_required
def batch():
    try:
        body = read_object(MAX_BATCH_BYTES, "batch")
    except BodyError as exc:
        return error(exc.status, exc.code, exc.message)
    key, text = body.get("batch"), body.get("text")
    if not isinstance(key, str) or not BATCH_KEY.match(key):
        return error(400, "bad_batch_key", "send the batch's key (4 to 64 letters, digits or dashes) with its text; "
                     "the admin page makes one: sending the same text with the same key books nothing twice")
    if not isinstance(text, str):
        return error(400, "missing_text", "send the ledger lines as 'text', one move per line")
    lines = text.splitlines()
    if len(lines) > MAX_LINES:
        return error(413, "too_many_lines", f"a batch holds at most {MAX_LINES} lines; send the ledgers in several batches")
    s = _services()
    before = s.bank.last_seq
    results = book_lines(s, key, lines, session["user"], g.role)
    if s.bank.last_seq != before:
        live.broadcast(s, journal_after=before)
        write_fault.booked(current_app)  # a full disk's end said, as a command's (bank/web/write_fault.py)
    counts = {status: sum(r["status"] == status for r in results) for status in ("booked", "duplicate", "refused", "not_sent")}
    return jsonify({"batch": key, **counts, "lines": results})


def book_lines(services, key: str, lines: list, user: str, role: str) -> list:
    """Each line read and booked in order: {line, text, status, sheet?, number?, seq?, error?}.

    A line under a sheet's id names its printed number: it books once under the sheet and the number,
    whatever the batch or the device (paper_line.py, paper_shared.py). A line typed
    without a sheet keeps the batch's identity: the batch key and how many identical commands come
    before it in the text."""
    grammar = Grammar(services.config, services.bank.state.events, _lang(), services.bank.created_with(),
                      services.access.team_names())
    mark = services.bank.game_mark()  # a sheet's check is this game's (bank/game/paper_sheet.py)
    seen: dict = {}
    numbers: dict = {}  # (sheet, number) -> the text line that gave it, in this batch
    copies = services.access.paper_copies()  # which line stood for the other team's booking (paper_shared.py)
    results, stopped, sheet = [], None, None
    for number, line in enumerate(lines, 1):
        line = line.strip()
        if not line or line.startswith("#"):  # blank lines and notes are allowed between moves
            continue
        if is_header(line):
            try:
                sheet = read_header(line, mark)
            except SheetError as exc:
                sheet = Refused(number)  # the lines below are not booked, nor taken for another sheet's
                results.append({"line": number, "text": line[:200], "status": "refused", "error": _error(exc)})
            continue
        result = {"line": number, "text": line[:200]}
        results.append(result)
        if stopped:
            result.update(status="not_sent", error=stopped)
            continue
        try:
            command, place = _read(line, sheet, grammar)
        except (PaperSyntaxError, SheetError) as exc:
            if names_a_sheet(line):  # "feuile 412C-K7", "412C-K7": the next sheet's lines follow, not this one's
                exc, sheet = SheetError("paper_sheet_id", "write the sheet's id as printed at its top, such as sheet "
                                        "412C-K7", word=line[:40]), Refused(number)
            result.update(status="refused", error=_error(exc))
            continue
        if place is not None and (other := _other_team(services.config, grammar, command, place)):
            result.update(status="refused", error=other)
            continue
        result["command"] = command
        if not may(role, command["type"]):
            result.update(status="refused", error={"code": "forbidden", "message": f"a {role} may not send {command['type']}",
                                                   "params": {"role": role}})
            continue
        canonical = json.dumps(command, sort_keys=True, ensure_ascii=False)
        if place is None:
            seen[canonical] = occurrence = seen.get(canonical, 0) + 1
            identity = f"{key}\n{canonical}\n{occurrence}"
        else:
            result.update(sheet=place[0], number=place[1])
            earlier = numbers.setdefault(place, (number, canonical))
            if earlier[0] != number:  # one printed line typed twice: a typo, or a second copy's line under the first's id
                result.update(status="refused", error=_typed_twice(place, earlier, canonical))
                continue
        try:
            if place is not None:  # one entry per printed line, whatever the move; a trade or fight, one on both ledgers
                result.update(paper_line.book(services.bank, services.config, command, place, user, copies))
                if result["status"] == "duplicate" and not {"same_as", "kept"} & result.keys():  # typed before, or a copy's line
                    result["next_copy"] = next_copy(place[0], mark)  # under the first copy's id
                continue
            cid = "paper:" + hashlib.sha256(identity.encode()).hexdigest()[:40]
            booked = services.bank.execute({**command, "id": cid, "actor": user})
        except IdConflict:  # the same line, booked by another facilitator's account
            result.update(status="duplicate")
        except StorageError as exc:  # the game file failed: nothing more is sent; the same batch later is safe
            write_fault.refused(current_app, exc)  # a full or read-only disk: its line and /readyz, as a command's
            stopped = {"code": exc.code, "message": exc.message, "params": exc.params}
            result.update(status="not_sent", error=stopped)
        except BankError as exc:
            result.update(status="refused", error={"code": exc.code, "message": exc.message, "params": exc.params})
        else:
            result.update(status="duplicate" if booked.duplicate else "booked", seq=booked.seq)
    return results


def next_copy(sheet: str, mark: str) -> str:
    """The id the sheet's next copy is typed under, as printed ("412C-K7/2", "0A/3"): a line answered already
    booked may be a second copy's (numbered from 1 again) typed under this copy's id, in a batch of its own, and
    the bank cannot tell it from the same line typed again; the answer says what to type if it is."""
    name, _, copy = sheet.partition("/")
    seq, letters = sheet_parts(name)
    return f"{name}{'-' + sheet_check(mark, seq, letters) if seq else ''}/{int(copy or 1) + 1}"


class Refused:
    """The sheet of the lines below a header that was refused (another game's check, none, a typo): `line`, the
    header's line in the text. They are not booked, numbered or not."""

    def __init__(self, line: int):
        self.line = line


def _read(line: str, sheet: str | None, grammar: Grammar) -> tuple:
    """(command, (sheet, printed number) or None) of a move line, or PaperSyntaxError / SheetError."""
    if isinstance(sheet, Refused):
        raise SheetError("paper_sheet_refused", f"not booked: the sheet's id above it (text line {sheet.line}) was "
                         "refused; type that id as printed, then send the text again", line=sheet.line)
    found = numbered(line)
    if sheet is not None:
        if found is None:
            raise SheetError("paper_line_number", f"write the line's number as printed on sheet {sheet} first, "
                             "such as 3 then the move", sheet=sheet)
        return parse(found[1], grammar), (sheet, found[0])
    try:
        return parse(line, grammar), None
    except PaperSyntaxError:
        if found is None:
            raise
    raise SheetError("paper_sheet_missing", f"line {found[0]} of which sheet? Write the sheet's id above it, "
                     "as printed at its top, such as sheet 412C-K7", n=found[0])


def _typed_twice(place: tuple, earlier: tuple, canonical: str) -> dict:
    """The refusal of a printed line typed again lower in the text: with another move, one of them is a typo; with
    the same move, the first is booked once, and this one, most often a second copy's line (numbered from 1
    again) typed under the first copy's id, would otherwise be answered already booked and lost."""
    (sheet, n), line = place, earlier[0]
    copy = "a line of its second copy is typed under its id with /2, such as sheet 412C-K7/2"
    if earlier[1] == canonical:
        return {"code": "paper_line_again", "message": f"line {n} of sheet {sheet} is already typed above (text line "
                f"{line}) with this same move, booked once; if this one is on another copy of the sheet: {copy}",
                "params": {"n": n, "sheet": sheet, "line": line}}
    return {"code": "paper_line_twice", "message": f"line {n} of sheet {sheet} is already typed above (text line {line}) "
            f"with another move: check the sheet ({copy})", "params": {"n": n, "sheet": sheet, "line": line}}


TEAMS_NAMED = ("team", "merchant_team", "visited_team", "attacker_team", "defender_team")


def _other_team(config, grammar: Grammar, command: dict, place: tuple) -> dict | None:
    """The refusal of a team's move typed under another team's sheet (its header left out or misspelled, or the
    team's name misread): booked, it would take that sheet's numbered line and be the wrong team's move."""
    owner = paper_shared.sheet_team(config, place[0])[1]
    named = [command[field] for field in TEAMS_NAMED if command.get(field)]
    if owner is None or not named or owner in named:
        return None
    ledger, team = grammar.teams.names.get(owner, owner), grammar.teams.names.get(named[0], named[0])
    return {"code": "paper_line_other_team", "message": f"line {place[1]} of sheet {place[0]} is on the ledger of "
            f"'{ledger}', and this move names '{team}': type it under the id of the sheet it is written on (a move written "
            "on no sheet, without its number, above the first sheet's id), or correct the team's name",
            "params": {"n": place[1], "sheet": place[0], "ledger": ledger, "team": team}}


def _error(exc) -> dict:
    return {"code": exc.code, "message": exc.message, "params": exc.params}
