"""HTML pages, one per audience; each page talks to the JSON API and the socket."""

from __future__ import annotations

from flask import Blueprint, current_app, redirect, render_template, session, url_for

from .auth import csrf_token, current_role

bp = Blueprint("pages", __name__)


def _render(template: str, **context):
    services = current_app.extensions["terrabank"]
    lang = session.get("lang") or services.config.language
    return render_template(template, lang=lang, csrf=csrf_token(), role=current_role(), user=session.get("user"), **context)


def _facilitator_page(template: str):
    if not current_role():
        return redirect(url_for("pages.login"))
    return _render(template)


@bp.get("/")
def home():
    return redirect(url_for("pages.console") if current_role() else url_for("pages.login"))


@bp.get("/login")
def login():
    return _render("login.html")


@bp.get("/console")
def console():
    return _facilitator_page("console.html")


@bp.get("/fight")
def fight():
    return _facilitator_page("fight.html")


@bp.get("/admin")
def admin():
    return _facilitator_page("admin.html")


@bp.get("/display")
def display():
    return _render("display.html")


@bp.get("/t/<token>")
def team(token: str):
    services = current_app.extensions["terrabank"]
    if services.access.team_for(token) is None:
        return _render("team_unknown.html"), 404
    return _render("team.html", token=token)
