"""The lead's view of who is logged in where, and the log-outs it can force (docs/API.md, "Sessions").

Routes of the API blueprint, kept apart from api.py; sessions.py holds the table.
"""

from __future__ import annotations

from flask import jsonify

from bank.web.push import live
from bank.web.field.api import bp
from bank.web.access.auth import current_login, error, lead_required, sessions


@bp.get("/sessions")
@lead_required
def session_list():
    """Who is logged in where; "current" marks the lead's own session."""
    own = current_login().key
    return jsonify({"sessions": [{**row, "current": row["id"] == own} for row in sessions().listing()]})


@bp.post("/sessions/<key>/end")
@lead_required
def session_end(key: str):
    """Log one device out, its open pages included."""
    if not sessions().end(key):
        return error(404, "unknown_session", "this session has already ended; reload the list")
    live.end_session_sockets(key, "ended")
    return jsonify({"ended": 1})


@bp.post("/sessions/end-all")
@lead_required
def session_end_all():
    """Log out everywhere (a lost tablet): every session but the lead's own on this device."""
    ended = sessions().end_all(keep=current_login().key)
    for key in ended:
        live.end_session_sockets(key, "ended")
    return jsonify({"ended": len(ended)})
