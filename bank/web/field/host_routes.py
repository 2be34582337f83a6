"""The host's games (hosting.py): the lead of the game at / lists and creates the games
served beside it under /g/<name>/. Routes of the API blueprint, kept apart from api.py."""

from __future__ import annotations

from flask import current_app, jsonify, request

from bank.errors import BankError
from bank.store.storage import StorageError
from bank.web.field.api import bp
from bank.web.access.auth import error, lead_required
from bank.web.body import BodyError, read_object

MAX_BODY = 1024  # a name


def _games():
    return current_app.extensions.get("terrabank_hosted")


def _not_hosting():
    return error(404, "not_hosting", "this server serves one game: start it with  terrabank serve --games FOLDER  "
                 "to host several games beside this one")


@bp.get("/host/games")
@lead_required
def hosted_games():
    """The games served beside this one, with each one's path (under this server's address)."""
    games = _games()
    if games is None or request.script_root:  # a hosted game's own lead is not the host's
        return _not_hosting()
    try:
        listed = games.listing()
    except StorageError as exc:  # the database that lists them does not answer: say so, not a traceback
        return error(503, exc.code, exc.message, exc.params)
    return jsonify({"games": listed, "limit": games.max_games})


@bp.post("/host/games")
@lead_required
def create_hosted_game():
    """A new game; its lead's password is in this answer only (the host hands it to that game's lead)."""
    games = _games()
    if games is None or request.script_root:
        return _not_hosting()
    try:
        body = read_object(MAX_BODY, "game")
        made = games.create(body.get("name", ""))
    except BodyError as exc:
        return error(exc.status, exc.code, exc.message)
    except StorageError as exc:  # the database refused or is gone: nothing was listed, try again
        return error(503, exc.code, exc.message, exc.params)
    except BankError as exc:
        return error(409 if exc.code in ("game_exists", "too_many_games") else 400, exc.code, exc.message, exc.params)
    return jsonify({"name": made.name, "path": made.path, "lead_user": made.lead_user,
                    "lead_password": made.lead_password}), 201
