"""Facilitator accounts from the admin page (lead only): list, create or replace, delete (docs/API.md, "Accounts").

The same accounts as `terrabank user`, without the command line. Routes of the API
blueprint, kept apart from api.py; access.py holds the table.
"""

from __future__ import annotations

import secrets

from flask import current_app, jsonify

from bank.game import fields
from bank.errors import BankError
from bank.web.push import live
from bank.web.field.api import MAX_BODY, bp
from bank.web.access.auth import current_login, error, lead_required, sessions
from bank.web.body import BodyError, read_object
from bank.web.access.permissions import ROLES


def _access():
    return current_app.extensions["terrabank"].access


def _end_sockets(keys) -> None:
    """Close the open pages of the sessions an account change has just ended."""
    for key in keys:
        live.end_session_sockets(key, "ended")


def _keys_of(username: str) -> list:
    return [row["id"] for row in sessions().listing() if row["user"] == username]


def _text(body: dict, name: str) -> str:
    value = body.get(name, "")
    if not isinstance(value, str):
        raise BodyError(400, "bad_account_form", f"send the {name} as a text")
    return value


@bp.get("/accounts")
@lead_required
def account_list():
    """Every facilitator account and its role; "current" marks the lead's own."""
    me = current_login().user
    return jsonify({"accounts": [{**row, "current": row["username"] == me} for row in _access().users()]})


@bp.post("/accounts")
@lead_required
def account_save():
    """Create or replace an account; without a password, one is generated and shown once in the reply."""
    try:
        body = read_object(MAX_BODY, "account")
        username, role = _text(body, "username").strip(), _text(body, "role")
        password, again = _text(body, "password"), _text(body, "again")
    except BodyError as exc:
        return error(exc.status, exc.code, exc.message)
    if not username or fields.has_control(username) or not fields.visible(username) or len(username) > 40:
        return error(400, "bad_username", "a username is 1 to 40 visible characters with no line break; "
                     "choose a plain name such as alice")
    if role not in ROLES:
        return error(400, "bad_role", f"choose the role: {', '.join(ROLES)}")
    generated = not password
    if generated:
        password = secrets.token_urlsafe(9)
    elif password != again:
        return error(400, "password_mismatch", "the two passwords differ; type the same password twice")
    me, users = current_login().user, {row["username"]: row["role"] for row in _access().users()}
    if users.get(username) == "lead" and role != "lead" and list(users.values()).count("lead") == 1:
        return error(409, "last_lead", "this is the only lead account; make another lead first")
    keys = _keys_of(username)
    try:
        _access().add_user(username, password, role)  # ends the sessions of a replaced account
    except BankError as exc:  # last_lead: another lead was demoted or deleted meanwhile (checked as it is written)
        return error(409 if exc.code == "last_lead" else 400, exc.code, exc.message)
    _end_sockets(keys)
    # Replacing one's own account ends this session too: the page must send the lead to the log-in.
    reply = {"username": username, "role": role, "replaced": username in users, "self": username == me}
    return jsonify({**reply, "password": password} if generated else reply)


@bp.post("/accounts/delete")
@lead_required
def account_delete():
    """Delete an account and log its devices out; never yourself, never the last lead."""
    try:
        username = _text(read_object(MAX_BODY, "account"), "username")
    except BodyError as exc:
        return error(exc.status, exc.code, exc.message)
    if username == current_login().user:
        return error(409, "delete_self", "you cannot delete your own account; log in as another lead to do it")
    if username not in {row["username"] for row in _access().users()}:
        return error(404, "unknown_account", f"there is no account {username[:40]!r}; reload the list")
    keys = _keys_of(username)
    if not _access().remove_user(username):
        return error(409, "last_lead", "this is the only lead account; make another lead first")
    _end_sockets(keys)
    return jsonify({"deleted": username})
