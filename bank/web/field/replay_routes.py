"""The game's story replayed on the big screen.

GET  /api/replay?key=<screen key>  what the replay plays (bank/game/replay.py): points over game time per
                                   team, the moments that decided the game, the podium; the big screen's
                                   own link carries the key, a logged-in facilitator needs none
POST /api/replay/start             the lead plays it (again) on every big screen opened with its own link;
                                   only once the game has ended

The screens hear it as the socket event `replay` (static/js/replay.js), on every server process of the
game (bank/web/push/replay_push.py); a screen can also open it with its link's `&replay=1`.
"""

from __future__ import annotations

from flask import Blueprint, current_app, jsonify, request

from bank.game.replay import story
from bank.web.access.auth import current_role, error, lead_required
from bank.web.push.live import display_key_ok
from bank.web.push.replay_push import play_replay

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
    peers = current_app.extensions.get("terrabank_peers")
    here = play_replay(current_app._get_current_object())
    # "screens": those this process told; "others_told": the game's other processes heard it on the queue
    return jsonify({"screens": here, "others_told": bool(peers and peers.listening.is_set())})
