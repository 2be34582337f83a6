"""The game's story replayed on the big screen (issue 35 item 5).

GET  /api/replay?key=<screen key>  what the replay plays (bank/game/replay.py): points over game time per
                                   team, the moments that decided the game, the podium; the big screen's
                                   own link carries the key, a logged-in facilitator needs none
POST /api/replay/start             the lead plays it (again) on every big screen opened with its own link;
                                   only once the game has ended

The screens hear it as the socket event `replay` (static/js/replay.js). A screen on another server
process of the same game (issue 15) does not: the lead opens the replay there with the link's
`&replay=1`.
"""

from __future__ import annotations

from flask import Blueprint, current_app, jsonify, request

from bank.game.replay import story
from bank.web.access.auth import current_role, error, lead_required
from bank.web.push.extensions import socketio_of
from bank.web.push.live import DISPLAY_TOKEN, display_key_ok, owners

bp = Blueprint("replay", __name__, url_prefix="/api/replay")


def register(app) -> None:
    app.register_blueprint(bp)


@bp.get("")
def replay_story():
    services = current_app.extensions["terrabank"]
    key = request.args.get("key", "")
    if not current_role() and not (key and display_key_ok(key)):
        return error(403, "screen_key_needed", "the replay plays on the big screen opened with its own link "
                     "(admin page, 'Big screen link'); this link has no key or an old one: open the new link")
    return jsonify({"seq": services.bank.last_seq, **story(services.config, services.bank.journal_rows(0))})


@bp.post("/start")
@lead_required
def replay_start():
    services = current_app.extensions["terrabank"]
    if services.bank.state.ended is None:
        return error(409, "game_not_ended", "the replay tells a finished game: end the game first "
                     "(or wait for it to end), then press Replay again")
    app = current_app._get_current_object()
    screens = [sid for sid, token in owners(app).tokens().items() if str(token or "").startswith(DISPLAY_TOKEN)]
    for sid in screens:
        socketio_of(app).emit("replay", {}, to=sid, namespace="/")
    return jsonify({"screens": len(screens)})
