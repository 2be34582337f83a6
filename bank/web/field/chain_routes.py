"""The phones as witnesses of the journal (certificate transparency's gossip is the model).

Every picture carries the chain's head at its entry (bank/web/field/payloads.py); each page keeps the
newest it saw (static/js/witness.js) and, when it comes back to the bank, asks whether the bank's chain
still holds that head. A journal whose tail was deleted, rolled back to a backup or rebuilt does not:
the page says so with both heads, and tells the facilitators.

GET  /api/chain/<seq>       the head the bank's chain holds at entry `seq` (null: no such entry), its
                            head now, the game's mark (Bank.game_mark) and the game it declares it
                            replaced ("previous": {"game", "seq", "hash"} or null, Bank.previous_game);
                            hashes only, no stock: open like /api/public
POST /api/chain/witness     a page's report {"saw": {"seq", "hash", "game"?}} with its team link ("team"), the
                            big screen's key ("key") or a facilitator's session (and CSRF token). The bank
                            checks the claim against its own chain: a head it holds, in this game, is no
                            report; "game" names another game the page saw behind the same link. A
                            report is kept with the accounts, so every server process of the game sees
                            it (bank/store/accounts/witness_reports.py: a few per reporter, confirmed
                            once two agree), and the reports are sent at once to the facilitators'
                            open pages of every process (socket event `chain_witness`, witness_push.py)
GET  /api/chain/witness     the reports kept, for the admin page (facilitators)
"""

from __future__ import annotations

import time

from flask import Blueprint, current_app, jsonify, request

from bank.web.access.auth import csrf_ok, current_login, current_role, error, facilitator_required
from bank.web.body import BodyError, read_object
from bank.web.push.live import display_key_ok
from bank.web.push.witness_push import tell_facilitators

bp = Blueprint("chain", __name__, url_prefix="/api/chain")
_HASH_CHARS = set("0123456789abcdef")


def register(app) -> None:
    app.register_blueprint(bp)


def _bank():
    return current_app.extensions["terrabank"].bank


def _kept():
    """The reports of every process of the game, with the accounts (the SQLite file, or PostgreSQL)."""
    return current_app.extensions["terrabank"].access.witness_reports()


def _head_now() -> dict:
    seq, head = _bank().chain_head()
    return {"seq": seq, "hash": head}


@bp.get("/<int:seq>")
def chain_at(seq: int):
    bank = _bank()  # `game` names the game (Bank.game_mark): another game on this address is no alarm
    # From the file, never from memory: a rewrite under the running bank is seen by the page that asks.
    return jsonify({"seq": seq, "hash": bank.stored_head_at(seq), "head": _head_now(), "game": bank.game_mark(),
                    "previous": bank.previous_game()})


@bp.get("/witness")
@facilitator_required
def reports():
    return jsonify({"reports": _kept().all()})


@bp.post("/witness")
def report():
    try:
        body = read_object(2048, "report")
    except BodyError as exc:
        return error(exc.status, exc.code, exc.message)
    if not _may_report(body):
        return error(403, "witness_refused", "only a page opened with a team link, the big screen's link or a "
                     "facilitator's log-in may report what it saw: open the page from its link")
    saw = body.get("saw")
    if not isinstance(saw, dict) or not _is_head(saw):
        return error(400, "bad_witness", 'send {"saw": {"seq": <entry>, "hash": <its 64 hex characters>}}')
    game = _bank().game_mark()
    other = saw.get("game") if _is_hash(saw.get("game")) and saw.get("game") != game else None
    saw = {"seq": saw["seq"], "hash": saw["hash"], **({"game": other} if other else {})}
    head = _head_now()
    if other is None and _bank().stored_head_at(saw["seq"]) == saw["hash"]:
        return jsonify({"known": True, "head": head})  # this bank's chain holds it: nothing to report
    by, reporter = _reporter(body)
    found = {"saw": saw, "head": head, "game": game, "at": time.time(), "by": by}
    if _kept().add(found, reporter):  # the facilitators' pages of every process hear it (witness_push.py)
        tell_facilitators(current_app._get_current_object())
    return jsonify({"known": False, "head": head})


def _is_head(saw: dict) -> bool:
    seq = saw.get("seq")
    return type(seq) is int and 0 < seq < 2**63 and _is_hash(saw.get("hash")) and (
        saw.get("game") is None or _is_hash(saw.get("game")))


def _is_hash(text) -> bool:
    return isinstance(text, str) and len(text) == 64 and set(text) <= _HASH_CHARS


def _may_report(body: dict) -> bool:
    services = current_app.extensions["terrabank"]
    team, key = body.get("team"), body.get("key")
    if isinstance(team, str) and team and services.access.team_for(team[:100]) is not None:
        return True
    if isinstance(key, str) and key and display_key_ok(key[:100]):
        return True
    return bool(current_role()) and csrf_ok()


def _reporter(body: dict) -> tuple[str, str]:
    """Who saw it: in words the admin page shows (a team's phone, a big screen or a facilitator's page), and
    as the reporter whose reports are counted apart (the team's link, the screen's key, the account)."""
    services = current_app.extensions["terrabank"]
    team, key = body.get("team"), body.get("key")
    if isinstance(team, str) and team:
        found = services.access.team_for(team[:100])
        if found:
            return f"team:{found}", f"team:{found}"
    if isinstance(key, str) and key and display_key_ok(key[:100]):
        return "screen", "screen"
    login = current_login()
    return "facilitator", f"facilitator:{login.user if login else ''}"
