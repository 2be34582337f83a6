"""Several games on one server (issue 15): each under /g/<name>/, created and listed by the host's lead.

`terrabank serve --games FOLDER` serves the game of --db at / as always; its lead is the
lead of the host: the admin page lists the hosted games and creates new ones. Each
hosted game is a whole bank of its own, made by the same create_app: its journal,
accounts, sessions, team links, Trias games, secret key and config.toml in
FOLDER/<name>/, its pages and its Socket.IO server under /g/<name>/ (pages build every
path from the page's root, TB.url), its own cookie (named and scoped to its path, so a
log-in in one game is never a log-in in another).

One process serves them all: a hosted game costs its threads (ticker, broadcaster) and
its state in memory, so their number is capped (MAX_GAMES). All games are opened when the
server starts so that every game's clock runs (R34), not only the ones somebody opened.
"""

from __future__ import annotations

import re
import secrets
import shutil
import threading
from dataclasses import dataclass
from pathlib import Path

from bank.errors import BankError

NAME = re.compile(r"^[a-z0-9][a-z0-9-]{0,39}$")
PREFIX = "/g/"
MAX_GAMES = 50  # each game holds a ticker and a broadcaster thread and its state: a few MB each
GAME_FILE = "game.db"


@dataclass(frozen=True)
class Made:
    """A game just created: where it lives and its first lead's password, shown once."""

    name: str
    path: str
    lead_user: str
    lead_password: str


class HostedGames:
    """The games of a host folder: FOLDER/<name>/game.db, config.toml, game.secret, game-trias/."""

    def __init__(self, folder: Path, config_path: Path, make_app, max_games: int = MAX_GAMES,
                 holder: str | None = None, shared: bool = False):
        """`holder`: the serving process takes each game's file as `terrabank serve` does (gamefile.hold),
        so a `serve --db FOLDER/<name>/game.db` or an `init --force` on it is refused while it runs;
        `shared` when several processes serve the folder through a queue (peers.py)."""
        self.folder, self.config_path, self.make_app = Path(folder), Path(config_path), make_app
        self.max_games, self.holder, self.shared = max_games, holder, shared
        self._apps: dict = {}
        self._lock = threading.Lock()  # one creation or first opening at a time

    def names(self) -> list[str]:
        if not self.folder.is_dir():
            return []
        return sorted(p.name for p in self.folder.iterdir() if NAME.match(p.name) and (p / GAME_FILE).exists())

    def app(self, name: str):
        """The game's app, opened on first use; None for a name that is no game here."""
        found = self._apps.get(name)
        if found is not None or not NAME.match(name):
            return found
        with self._lock:
            if name not in self._apps and (self.folder / name / GAME_FILE).exists():
                self._apps[name] = self._open(name)
            return self._apps.get(name)

    def open_all(self, log) -> None:
        """Every game of the folder; one that cannot open (held by another server, damaged) is logged
        and answers its sentence, the others are served."""
        for name in self.names():
            try:
                self.app(name)
            except BankError as exc:
                log.error("hosted game %s not served: %s", name, exc.message)

    def _open(self, name: str):
        where = self.folder / name
        lock = None
        if self.holder:
            from bank.store import gamefile

            lock = gamefile.hold(where / GAME_FILE, self.holder, shared=self.shared)
        try:
            app = self.make_app({"DB": str(where / GAME_FILE), "CONFIG": str(where / "config.toml"),
                                 "SESSION_COOKIE_NAME": f"terrabank-{name}", "SESSION_COOKIE_PATH": f"{PREFIX}{name}/"})
        except BaseException:
            if lock is not None:
                lock.close()
            raise
        app.extensions["terrabank_game_lock"] = lock  # held for the process's life
        return app

    def create(self, name: str) -> Made:
        """A new game from the host's config.toml (edit FOLDER/<name>/config.toml before it starts),
        with a lead account whose password is returned once; refused with a sentence otherwise."""
        name = str(name or "").strip().lower()
        if not NAME.match(name):
            raise BankError("bad_game_name", f"{name or 'an empty name'!s} cannot name a game: use 1 to 40 lower-case "
                            "letters, digits or dashes, starting with a letter or digit (e.g. summer-camp)",
                            name=name)
        with self._lock:
            if (self.folder / name).exists():
                raise BankError("game_exists", f"there is already a game named {name} on this server: choose "
                                "another name, or open it from the list", name=name)
            if len(self.names()) >= self.max_games:
                raise BankError("too_many_games", f"this server already holds {self.max_games} games, its limit: "
                                "remove a finished game's folder, or serve new games from another server",
                                limit=self.max_games)
            where = self.folder / name
            where.mkdir(parents=True)
            try:
                shutil.copyfile(self.config_path, where / "config.toml")
                app = self._open(name)
                password = secrets.token_urlsafe(9)
                app.extensions["terrabank"].access.add_user("lead", password, "lead")
            except Exception:
                lock = locals().get("app") and app.extensions.get("terrabank_game_lock")
                if lock:
                    lock.close()
                shutil.rmtree(where, ignore_errors=True)  # no half-made game left in the list
                raise
            self._apps[name] = app
        return Made(name, f"{PREFIX}{name}/", "lead", password)

    def listing(self) -> list[dict]:
        """What the host's lead sees of each game: its path, its teams, how far it has got."""
        out = []
        for name in self.names():
            app = self.app(name)
            if app is None:  # removed from the folder meanwhile
                continue
            bank = app.extensions["terrabank"].bank
            state = bank.state
            out.append({"name": name, "path": f"{PREFIX}{name}/", "teams": len(app.extensions["terrabank"].config.teams),
                        "entries": bank.last_seq, "clock": state.clock.get("status", "setup"),
                        "ended": state.ended is not None})
        return out


class GameDispatch:
    """WSGI: /g/<name>/... goes to that game's app (its root becomes SCRIPT_NAME), the rest to the host's."""

    def __init__(self, default_wsgi, games: HostedGames):
        self.default_wsgi, self.games = default_wsgi, games

    def __call__(self, environ, start_response):
        path = environ.get("PATH_INFO", "")
        if not path.startswith(PREFIX):
            return self.default_wsgi(environ, start_response)
        name, _, rest = path[len(PREFIX):].partition("/")
        try:
            app = self.games.app(name)
        except BankError as exc:  # its file is held by another server, or cannot be opened: say so
            return _unavailable(start_response, name, exc.message)
        if app is None:
            return _not_found(start_response, name)
        if not _ and not rest:  # /g/camp -> /g/camp/ so that the page's relative root is right
            location = environ.get("SCRIPT_NAME", "") + f"{PREFIX}{name}/"
            start_response("308 Permanent Redirect", [("Location", location), ("Content-Length", "0")])
            return [b""]
        environ = dict(environ, SCRIPT_NAME=environ.get("SCRIPT_NAME", "") + f"{PREFIX}{name}",
                       PATH_INFO="/" + rest)
        return app(environ, start_response)


def _unavailable(start_response, name: str, why: str):
    body = (f"La partie « {name[:40]} » ne peut pas être servie pour l'instant ; prévenez l'organisateur.\n"
            f"Game '{name[:40]}' cannot be served now; tell the organiser. Why: {why}\n").encode()
    start_response("503 Service Unavailable", [("Content-Type", "text/plain; charset=utf-8"),
                                               ("Content-Length", str(len(body))), ("Retry-After", "30")])
    return [body]


def _not_found(start_response, name: str):
    body = (f"Pas de partie « {name[:40]} » sur ce serveur : vérifiez l'adresse, ou demandez-la à l'organisateur.\n"
            f"No game named '{name[:40]}' on this server: check the address, or ask the organiser.\n").encode()
    start_response("404 Not Found", [("Content-Type", "text/plain; charset=utf-8"),
                                     ("Content-Length", str(len(body)))])
    return [body]


def prepare_hosted(app):
    """serving.prepare for a hosted game: compression and static caching, but not the proxies' headers
    again: the host's app (outermost) already took one forwarded address per trusted proxy for every
    request; a second ProxyFix would believe one address more, one a phone could write itself."""
    from bank.web.serving import server as serving

    app.extensions.setdefault("terrabank_serving", set()).add("proxies")
    return serving.prepare(app)


def install(app, folder: Path, config_path: Path, make_app, **options) -> HostedGames:
    """Serve the games of `folder` beside `app` (the host's own game, at /); options: HostedGames'."""
    games = HostedGames(folder, config_path, make_app, **options)
    app.extensions["terrabank_hosted"] = games
    app.wsgi_app = GameDispatch(app.wsgi_app, games)
    return games
