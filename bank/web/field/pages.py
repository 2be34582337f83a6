"""HTML pages, one per audience; each page talks to the JSON API and the socket."""

from __future__ import annotations

from flask import Blueprint, current_app, jsonify, redirect, render_template, request, session, url_for

from bank.errors import BankError
from bank.web.access.auth import csrf_token, current_role, lead_required
from bank.web.field import addresses
from bank.web.i18n import request_language
from bank.web.push.live import end_display_sockets

bp = Blueprint("pages", __name__)


def _render(template: str, **context):
    lang = request_language()  # Italian is Trias's only: here the game's language (bank/web/i18n.py)
    return render_template(template, lang=lang, csrf=csrf_token(), role=current_role(), user=session.get("user"), **context)


def _notice(kind: str):
    """404 with one sentence in the page's language: "page" (unknown address) or "team" (bad team link)."""
    return _render("notice.html", kind=kind), 404


def _facilitator_page(template: str, **context):
    if not current_role():
        return redirect(url_for("pages.login"))
    return _render(template, **context)


@bp.get("/")
def home():
    return redirect(url_for("pages.console") if current_role() else url_for("pages.login"))


@bp.get("/login")
def login():
    return _render("login.html")


@bp.get("/sw.js")
def service_worker():
    """The worker that opens the console and the fight page while the bank is out of reach (static/js/sw.js),
    served at the game's root: a worker acts on the pages under its own address only."""
    response = current_app.send_static_file("js/sw.js")
    response.headers["Cache-Control"] = "no-cache"  # a new version is taken at the pages' next visit
    response.headers["Content-Security-Policy"] = "default-src 'self'"  # a worker's policy is its script's
    return response


@bp.get("/console")
def console():
    return _facilitator_page("console.html")


@bp.get("/fight")
def fight():
    return _facilitator_page("fight.html")


@bp.get("/admin")
def admin():
    # The games served beside this one (hosting.py): only on the host's own game, at /.
    hosting = "terrabank_hosted" in current_app.extensions and not request.script_root
    return _facilitator_page("admin.html", hosting=hosting)


@bp.get("/display")
def display():
    return _render("display.html")


def _display_link(key: str):
    """The big screen's link on the address the team links use (it named 127.0.0.1 when the admin
    page was opened on the bank's own machine, so a TV on another device got nothing): ?base= (the lead's
    choice on the admin page), else serve --base, else the page's own if others can reach it, else this
    machine's network address."""
    path = f"{request.script_root}/display?key={key}"
    config = current_app.extensions["terrabank"].config
    try:
        base = addresses.normalise(request.args["base"]) if request.args.get("base") else None
    except BankError:
        base = None  # a malformed remembered choice: the bank's own choice, as the team links fall back
    chosen = addresses.choose(base or current_app.config.get("PHONE_BASE"), request.host_url, config.port)
    return jsonify({"key": key, "path": path, "url": chosen["base"] + path, "loopback": chosen["loopback"]})


@bp.get("/api/display/link")
@lead_required
def display_link():
    """The big screen's own link: with its key a screen has its own live slots, not the anonymous ones."""
    return _display_link(current_app.extensions["terrabank"].access.display_key())


@bp.post("/api/display/rotate")
@lead_required
def display_rotate():
    """A new big-screen link; screens open with the old one are closed and refused from now on."""
    key = current_app.extensions["terrabank"].access.rotate_display_key()
    end_display_sockets(key)
    return _display_link(key)


@bp.get("/t")
@bp.get("/t/")
def team_without_token():
    """A link cut short (a QR code half scanned, a typed address): the same sentence as a replaced link."""
    return _notice("team")


@bp.app_errorhandler(404)
def page_unknown(exc):
    """Any unknown address: a sentence in the page's language, not the framework's English 404.

    This replaces api.py's 404 handler (pages is registered after api), so /api/ keeps its JSON here.
    """
    from bank.web.field.api import not_here  # api imports nothing from here: no cycle at load

    if request.path.startswith("/api/"):
        return not_here(exc)
    return _notice("page")


@bp.get("/t/<token>")
def team(token: str):
    services = current_app.extensions["terrabank"]
    if services.access.team_for(token) is None:
        return _notice("team")
    return _render("team.html", token=token)
