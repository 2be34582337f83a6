"""Whether visitors may start Trias games while the field game runs: the lead's choice on the admin page.

Anyone on the Wi-Fi may start a Trias game (a family at the next table needs no facilitator), and each
game gives seat links that hold live pages of their own (bank/web/serving/admission.py keeps them in a
bounded pool apart from the bank's phones). During a field game the lead may still prefer that only
facilitators start them: this option, kept with the accounts (AccessRules.setting), says so. Before the
clock starts and once the game has ended it does not apply.

GET  /api/trias/visitors  {"open": bool, "field_game_running": bool}   (the lead)
POST /api/trias/visitors  {"open": bool}                                (the lead, with the CSRF token)
"""

from __future__ import annotations

from flask import Blueprint, current_app, jsonify

from bank.web.access.auth import current_login, error, lead_required
from bank.web.body import BodyError, read_object

SETTING = "trias_for_visitors"
bp = Blueprint("trias_visitors", __name__)


def _access():
    return current_app.extensions["terrabank"].access


def field_game_running() -> bool:
    """The field game's clock has started and the game has not ended (paused between sessions counts)."""
    state = current_app.extensions["terrabank"].bank.state
    return state.clock.get("status") not in ("setup", "ended") and state.ended is None


def open_to_visitors() -> bool:
    return _access().setting(SETTING, True)


def creation_refused():
    """A 403 with its sentence when a visitor may not start a Trias game now; None when he may."""
    if current_login() is not None or open_to_visitors() or not field_game_running():
        return None
    return error(403, "trias_closed_to_visitors",
                 "during the field game the lead has kept new Trias games for facilitators: ask a facilitator "
                 "to start one, or continue a game already started (its links still work)")


@bp.get("/api/trias/visitors")
@lead_required
def visitors():
    """The admin page reads the choice (static/js/trias_visitors.js)."""
    return jsonify({"open": open_to_visitors(), "field_game_running": field_game_running()})


@bp.post("/api/trias/visitors")
@lead_required
def set_visitors():
    """The lead opens or closes new Trias games to visitors during the field game."""
    try:
        body = read_object(1024, "Trias visitors")
    except BodyError as exc:
        return error(exc.status, exc.code, exc.message)
    if not isinstance(body.get("open"), bool):
        return error(400, "bad_open", 'send {"open": true} to let visitors start Trias games during the field '
                     'game, or {"open": false} to keep that for facilitators')
    _access().set_setting(SETTING, body["open"])
    return visitors()
