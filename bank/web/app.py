"""create_app: the Flask + Flask-SocketIO app around the running games (bank/web/__init__.py says
what each room of the web holds). Imported on demand through `bank.web.create_app`, so that Gunicorn's
master can import the Flask-free serving modules alone (bank/cli/serve_lean.py).
"""

from __future__ import annotations

import os
import secrets
import time
from dataclasses import dataclass
from pathlib import Path

from flask import Flask
from werkzeug.routing import Rule

from bank.game.config import GameConfig, load_config
from bank.services.bank import Bank
from bank.services.game_open import open_game
from bank.store.storage import private_file, private_folder
from bank.store.accounts import AccessRules
from bank.web import health, refusal_text
from bank.web.access import device_cookie
from bank.web.access.auth import load_login
from bank.web.push.extensions import make_socketio
from bank.web.i18n import page_languages, plural_forms, request_language, translate, translate_plural

ROOT = Path(__file__).resolve().parent.parent.parent


class LazyRule(Rule):
    """Werkzeug's route, its two URL builders (url_for's code, compiled from an AST) made at its first url_for
    rather than when the app is built: they were half of create_app's CPU (a worker's start, a game hosted), for
    72 routes of which a page builds the URLs of a few. Matching a request never needs them."""

    def _compile_builder(self, append_unknown: bool = True):
        compile_now, built = super()._compile_builder, []

        def build(rule, **values):
            if not built:  # two threads may both compile it: the same code, either kept
                built.append(compile_now(append_unknown).__get__(rule, None))
            return built[0](**values)
        return build


class BankApp(Flask):
    """Flask, its routes LazyRule's."""

    url_rule_class = LazyRule


@dataclass
class Services:
    """What the routes and socket handlers share: the bank, the config, the accounts."""

    bank: Bank
    config: GameConfig
    access: AccessRules


def create_app(settings: dict | None = None) -> Flask:
    """Build the app. settings: DB, CONFIG (path or GameConfig), TESTING, TICKER, SECRET_KEY_FILE (default:
    <db>.secret beside the SQLite file; a game in PostgreSQL keeps its key in the database);
    Trias: TRIAS_DIR (default <db stem>-trias), TRIAS_PACE (seconds between computer moves, 1.0),
    TRIAS_COMPUTER (start the computer player without TICKER, for tests)."""
    settings = dict(settings or {})
    app = BankApp(__name__, template_folder=str(ROOT / "templates"), static_folder=str(ROOT / "static"))
    from bank.web.access.cookie_session import CookieSessions
    app.session_interface = CookieSessions()  # Flask's signed cookie, its keys derived once
    db = Path(settings.pop("DB", os.environ.get("TERRABANK_DB", "terrabank.db")))
    config = settings.pop("CONFIG", os.environ.get("TERRABANK_CONFIG", "config.toml"))
    if not isinstance(config, GameConfig):
        settings.setdefault("GAMES_CONFIG", config)  # what a hosted game starts from (hosting.py)
        config = load_config(config)
    key_file = settings.pop("SECRET_KEY_FILE", None)
    app.config.update(
        SESSION_COOKIE_HTTPONLY=True,
        SESSION_COOKIE_SAMESITE="Lax",
        MAX_CONTENT_LENGTH=64 * 1024,
    )
    app.config.update(settings)
    app.json.sort_keys = False  # keep the config's order: teams, resources, tracks as written
    # CLOCKS: (system clock, monotonic clock) functions, for tests that jump the machine's clock.
    wall, mono = settings.pop("CLOCKS", (time.time, time.monotonic))
    # The file at --db, or the game of that name in PostgreSQL when a database URL is set; its accounts
    # beside the journal (in the SQLite file, or in PostgreSQL shared by every process of the game).
    bank, access = open_game(db, config, app.config.get("PASSWORD_HASH", "scrypt"), wall=wall, mono=mono)
    try:
        if "SECRET_KEY" not in settings:  # every process of a game in PostgreSQL signs cookies with its one key
            shared = None if key_file else access.shared_secret()
            app.config["SECRET_KEY"] = shared or _secret_key(Path(key_file or db.with_suffix(".secret")))
        app.extensions["terrabank"] = Services(bank, config, access)
        # All three measure time on the bank's time line (bank/services/timeline.py): a jump of the machine's
        # clock neither logs every facilitator out nor stretches a lock.
        app.extensions["terrabank_lockout"] = access.lockout(clock=bank.now)  # failed log-ins survive a restart
        app.extensions["terrabank_sessions"] = access.sessions(clock=bank.now)  # log-ins are rows: they can be ended
        app.session_interface.clock = bank.now  # the cookie's age too (before any request makes its signer)
        device_cookie.register(app)  # the lead's trusted device has a lane in the server's admission of bodies
        _init_trias(app, db)
        _register(app)
        health.register(app, db)  # /healthz, /readyz, one log line per outage
        from bank.web.field import paper_routes
        paper_routes.register(app, db)  # the game state on paper, written to disk by itself; the batch re-entry
        from bank.web.field import replay_routes
        replay_routes.register(app)  # the game's story replayed on the big screen
        from bank.web.field import chain_routes
        chain_routes.register(app)  # the phones as witnesses of the journal
        make_socketio(app, _register_sockets)
        if app.config.get("GAMES_DIR"):  # several games on this server, each under /g/<name>/
            _host_games(app)
        if app.config.get("TICKER", False):
            from bank.web.push.ticker import start_ticker

            # Only the serving process may write: a jump of the machine's clock seen at
            # start pauses a running game clock before anyone books (R34).
            bank.hold_if_suspect()
            start_ticker(app)
        if app.config.get("TICKER") or app.config.get("TRIAS_COMPUTER"):
            app.extensions["trias_computer"].start()  # computer seats play on the server (trias_computer.py)
    except BaseException:  # a worker builds it again later (serving/opening.py): leave no connection open
        access.close()
        bank.close()
        raise
    return app


def _host_games(app: Flask) -> None:
    """This app (the game of --db, at /) also serves the games of GAMES_DIR under /g/<name>/; its lead
    lists and creates them on the admin page (hosting.py). Each is made by create_app with this app's
    settings (the ticker, the password hashing, the phones' address) and its own files."""
    from bank.web.serving import hosting
    from bank.web.push.peers import queue_url

    inherited = {k: v for k, v in app.config.items() if k in ("TICKER", "PASSWORD_HASH", "PHONE_BASE", "TESTING",
                                                           "TRIAS_PACE", "TRIAS_COMPUTER", "CLOCKS")}
    prepare = app.config.get("PREPARE_HOSTED") or (lambda hosted: hosted)  # serving.prepare in the server

    def make(own: dict) -> Flask:
        return prepare(create_app({**inherited, **own}))

    serving = bool(app.config.get("TICKER"))  # the process that serves (not a test, not the CLI's questions)
    shared = queue_url(app.extensions["terrabank"].config) is not None
    games = hosting.install(app, Path(app.config["GAMES_DIR"]), Path(app.config.get("GAMES_CONFIG") or ROOT / "config.toml"),
                            make, holder="terrabank serve --games" if serving else None, shared=shared)
    if serving:
        games.open_all(app.logger)  # every game's clock runs, not only the ones somebody opened (R34)


def _init_trias(app: Flask, db: Path) -> None:
    """Trias games in their own folder beside the bank's file (TRIAS_DIR, default <db stem>-trias), or,
    with a database URL, in that database beside the bank's game (bank/store/trias_store.py chooses)."""
    from bank.web.trias.computer import Computer

    games = app.config.get("TRIAS_GAMES")  # tests may hand in a ready-made one
    if games is None:
        from bank.services.trias_games import open_games

        games = open_games(db, app.extensions["terrabank"].config, app.config.get("TRIAS_DIR"))
    app.extensions["trias_games"] = games
    from bank.web.trias.routes import NEW_GAMES_PER_DEVICE, NEW_GAMES_WINDOW

    # In a database every server process counts a device's new games in the same rows.
    window = games.store.creation_window(NEW_GAMES_PER_DEVICE, NEW_GAMES_WINDOW)
    if window is not None:
        app.extensions["trias_creations"] = window
    app.extensions["trias_computer"] = Computer(app, float(app.config.get("TRIAS_PACE", 1.0)))
    from bank.web.trias import admission as trias_admission

    trias_admission.register(app)  # a seat's phone is admitted by its link, not in the anonymous pool


def _register(app: Flask) -> None:
    from bank.web.field import account_routes
    from bank.web.field import api
    from bank.web.field import host_routes
    from bank.web.field import pages
    from bank.web.field import reload_routes  # noqa: F401  (its route joins the API blueprint)
    from bank.web.field import session_routes
    from bank.web.trias import routes as trias_routes  # noqa: F401  (their routes join the blueprints)

    app.before_request(load_login)
    app.register_blueprint(api.bp)
    app.register_blueprint(pages.bp)
    app.register_blueprint(trias_routes.bp)
    from bank.web.trias import score_routes as trias_score_routes
    app.register_blueprint(trias_score_routes.bp)  # the Trias score calculator and print downloads
    from bank.web.trias import visitors as trias_visitors
    app.register_blueprint(trias_visitors.bp)  # the lead's choice: Trias games for visitors during a field game
    app.after_request(_security_headers)
    app.after_request(_refusal_text)
    app.jinja_env.globals["_"] = _gettext
    app.jinja_env.globals["ngettext"] = _ngettext
    app.jinja_env.globals["page_languages"] = page_languages  # _lang.html: Italian on Trias pages only
    from bank.web.field import outbox

    # The outbox's pages read which commands may wait from the bank's own list, so the two cannot drift.
    app.jinja_env.globals["outbox_queueable"] = sorted(outbox.QUEUEABLE)
    from bank.web.serving import bundles

    bundles.register(app)  # scripts([...]): one file per page once served (bank/web/serving/bundles.py)


def _register_sockets(server) -> None:
    from bank.web.push import live
    from bank.web.trias import live as trias_live

    live.register(server)
    trias_live.register(server)


def _gettext(text: str, **params) -> str:
    """Templates' _("..."): the session's language, else the game's (French by default); Italian on Trias pages only."""
    return translate(request_language(), text, **params)


def _ngettext(singular: str, plural: str, n=None, **params):
    """Templates' ngettext("1 thing", "%(n)s things", n): the count's form. Without n (a script's
    strings), both forms as a list, the script picking one by TB.one (TB.t does when given n)."""
    if n is None:
        return plural_forms(request_language(), singular, plural)
    return translate_plural(request_language(), singular, plural, n, **params)


# A stylesheet's or a script's own CSP header is ignored: the policy is the page's (the one
# worker, /sw.js, gets its own where it is served: bank/web/field/pages.py). Left off them, it
# saves 170 bytes on each of the dozen files a phone loads first.
_NO_POLICY_NEEDED = ("text/css", "text/javascript", "application/javascript")


def _security_headers(response):
    """No CDN, no framing, no token leaking through the Referer header."""
    if response.mimetype not in _NO_POLICY_NEEDED:
        response.headers.setdefault("Content-Security-Policy",
                                    "default-src 'self'; img-src 'self' data:; connect-src 'self' ws: wss:; "
                                    "style-src 'self' 'unsafe-inline'; frame-ancestors 'none'")
    response.headers.setdefault("X-Content-Type-Options", "nosniff")
    response.headers.setdefault("Referrer-Policy", "no-referrer")
    return response


def _refusal_text(response):
    """A JSON refusal of the field game's API also says its sentence in the game's language."""
    from flask import current_app, request

    if response.status_code < 400 or not request.path.startswith("/api/"):
        return response
    return refusal_text.add_text(response, current_app.extensions["terrabank"].config, request_language())


def _secret_key(path: Path) -> str:
    """Generated on the first run and kept beside the SQLite file: no secret in code (a game in
    PostgreSQL keeps its key there instead: AccessRules.shared_secret)."""
    if path.exists():
        private_file(path)  # a secret left readable by everyone by an earlier version
        return path.read_text().strip()
    key = secrets.token_hex(32)
    private_folder(path.parent, tighten=False)  # a folder made here: 0700 (the game file's, the user's choice)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "w") as f:
        f.write(key)
    return key
