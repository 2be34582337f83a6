"""A Trias game the server cannot open (its journal edited, damaged or not this game's): said to the table in its
language, and to the log once.

Before, a page or an API call for such a game got the store's English sentence, with the file's path on the server,
as a plain 503 (the app's handler, bank/web/field/api.py): the path told to anyone holding the game's id, which the
board shows, and nothing the table could read. Now the Trias routes answer a page in its language and an API call
with the refusal's code, neither naming a path; the log gets the store's whole sentence once per game and refusal.
Any other store failure (a database away) is answered as the app answers it. An open board's socket asking for it is
refused, said once too (before: a traceback each time it tried again).
"""

from __future__ import annotations

from flask import Response, current_app, render_template, request

from bank.store.storage import StorageError
from bank.web.access.auth import csrf_token, error
from bank.web.i18n import request_language

# The refusals of bank/services/trias_games.py and journal_service.py for a game file that cannot be trusted.
UNOPENED = {"journal_edited", "journal_unreplayable", "game_identity_damaged", "game_file_renamed",
            "game_without_setup", "wrong_kind"}
RETRY_AFTER = {"Retry-After": "2"}  # as bank/web/field/api.py says it
SAID = "trias_unopened_said"  # app.extensions: (code, place) already logged


def register(bp) -> None:
    bp.register_error_handler(StorageError, unopened)


def say(exc: StorageError) -> None:
    """The store's whole sentence in the log, once per game and refusal (a page's socket asks again every few s)."""
    said = current_app.extensions.setdefault(SAID, set())
    if (exc.code, exc.params.get("path")) not in said:
        said.add((exc.code, exc.params.get("path")))
        current_app.logger.error("trias: a game asked for at %s cannot be opened: %s", request.path[:80], exc.message)


def unopened(exc: StorageError):
    if exc.code not in UNOPENED:  # as the app's own handler answers it (bank/web/field/api.py storage_failed)
        return Response(exc.message, status=503, mimetype="text/plain", headers=RETRY_AFTER)
    say(exc)
    if "/api/" in request.path:
        return error(503, exc.code, "this Trias game cannot be opened (its journal was changed or is damaged) and "
                     "nothing is played on it: tell a facilitator; the server's log says what is wrong")
    return render_template("trias/unopened.html", lang=request_language(), csrf=csrf_token(), role=None,
                           user=None), 503
