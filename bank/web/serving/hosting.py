"""Several games on one server: each under /g/<name>/, created and listed by the host's lead.

`terrabank serve --games FOLDER` serves the game of --db at / as always; its lead is the
lead of the host: the admin page lists the hosted games and creates new ones. Each
hosted game is a whole bank of its own, made by the same create_app: its journal,
accounts, sessions, team links, Trias games and secret key, its pages and its Socket.IO
server under /g/<name>/ (pages build every path from the page's root, TB.url), its own
cookie (named and scoped to its path, so a log-in in one game is never a log-in in another).

Which games there are follows where their journals live (bank/store/hosted.py): the folders
FOLDER/<name>/ of SQLite files, or, with PostgreSQL, the database's list of the host game's
games (bank/store/hosted_pg.py), read by every process: a game created on one process is
served by the others on its first request, and after any restart.

One process serves them all: a hosted game costs its threads (ticker, broadcaster) and
its state in memory, so their number is capped (MAX_GAMES). All games are opened when the
server starts so that every game's clock runs (R34), not only the ones somebody opened, and
the serving process looks for new ones every few seconds (those another process created).
"""

from __future__ import annotations

import secrets
import threading
import time
from dataclasses import dataclass
from pathlib import Path

from bank.errors import BankError
from bank.store import hosted, storage_url

NAME = hosted.NAME
PREFIX = "/g/"
MAX_GAMES = 50  # each game holds a ticker and a broadcaster thread and its state: a few MB each
GAME_FILE = hosted.GAME_FILE
LOOK_EVERY = 5.0  # seconds between the serving process's looks for games made by another process
# Seconds a game refused for its journal (tampered) is answered from that refusal before it is checked again:
# each request to it would otherwise open the game and read its whole chain again (anyone may ask, at any rate).
RECHECK = 30.0


@dataclass(frozen=True)
class Made:
    """A game just created: where it lives and its first lead's password, shown once."""

    name: str
    path: str
    lead_user: str
    lead_password: str


class HostedGames:
    """The games served beside the host's own, as its registry lists them (bank/store/hosted.py)."""

    def __init__(self, folder: Path, config_path: Path, make_app, max_games: int = MAX_GAMES,
                 holder: str | None = None, shared: bool = False, host=None):
        """`holder`: the serving process holds each game as `terrabank serve` does (its file, or the game in
        PostgreSQL), so a second server of it or an `init --force` on it is refused while it runs;
        `shared` when several processes serve the host through a queue (peers.py); `host`: the host
        game's storage_url target (its games are listed where it lives; None: the folder)."""
        self.folder, self.config_path, self.make_app = Path(folder), Path(config_path), make_app
        self.max_games, self.holder, self.shared = max_games, holder, shared
        self.registry = _registry(self.folder, self.config_path, host)
        self._apps: dict = {}
        self.host_app = None  # the host's app (install): its server admits the hosted games' live pages
        self._lock = threading.Lock()  # one creation or first opening at a time
        self._looking = False
        self._closed = threading.Event()  # close(): the look for new games stops
        self._said: dict[str, str] = {}  # the last failure logged of each game, so that each is one line
        self._refused: dict[str, tuple[float, BankError]] = {}  # name -> (until, refusal): a journal not to trust

    def names(self) -> list[str]:
        return self.registry.names()

    def app(self, name: str):
        """The game's app, opened on first use; None for a name that is no game here."""
        found = self._apps.get(name)
        if found is not None or not NAME.match(name):
            return found
        with self._lock:
            if name not in self._apps and self.registry.knows(name):
                self._apps[name] = self._open(name)
            return self._apps.get(name)

    def open_all(self, log, look_every: float | None = LOOK_EVERY) -> None:
        """Every game of the registry; one that cannot open (held by another server, damaged) is logged
        once and answers its sentence, the others are served. Then, every `look_every` seconds, the
        games created meanwhile by another process, so their clocks run here too."""
        try:
            names = self.names()
        except BankError as exc:
            if self._said.get("") != exc.message:
                log.error("hosted games not listed: %s", exc.message)
            self._said[""] = exc.message
            names = []
        else:
            self._said.pop("", None)
        for name in names:
            try:
                self.app(name)
            except BankError as exc:
                if self._said.get(name) != exc.message:
                    log.error("hosted game %s not served: %s", name, exc.message)
                self._said[name] = exc.message
            else:
                self._said.pop(name, None)
        if look_every and not self._looking:
            self._looking = True
            threading.Thread(target=self._look, args=(log, look_every), name="hosted games", daemon=True).start()

    def _look(self, log, every: float) -> None:
        while not self._closed.wait(every):
            try:
                self.open_all(log, look_every=None)
            except Exception:  # noqa: BLE001 - the look must go on; the next one says it again if it lasts
                log.exception("terrabank: the look for new hosted games failed")

    def _hold(self, name: str):
        return self.registry.hold(name, self.holder, self.shared) if self.holder else None

    def _open(self, name: str):
        refused = self._refused.get(name)
        if refused is not None and refused[0] > time.monotonic():
            raise refused[1]
        lock = self._hold(name)
        try:
            app = self._make(name, self.registry.settings(name))
            self._trusted(name, app)
        except BaseException:
            if lock is not None:
                lock.close()
            raise
        self._refused.pop(name, None)
        app.extensions["terrabank_game_lock"] = lock  # held for the process's life
        return app

    def _trusted(self, name: str, app) -> None:
        """Refuse to serve a game whose journal `serve` would refuse at start (Bank.verify(whole=False)), as it
        refuses the host's own. Before, a hosted game's file edited by hand (a row's amount changed, its chain left as it
        was) was served: its balances from the edited row and, to the phones that witness the journal, the very
        heads they saw (GET /api/chain/<seq> answers the stored chain), so no page said anything."""
        services = app.extensions["terrabank"]
        problems = services.bank.verify(whole=False)
        if not problems:
            return
        for part in (services.bank, services.access, app.extensions.get("trias_games")):
            if part is not None:
                part.close()
        refusal = BankError("database_corrupt", f"the journal of the game {name} cannot be trusted: "
                            f"{'; '.join(problems)}. It is not served: run `terrabank verify` on it to see every "
                            "problem, then restore its last backup (docs/DEPLOY.md), knowing that it loses what was "
                            "booked after it", name=name)
        self._refused[name] = (time.monotonic() + RECHECK, refusal)
        raise refusal

    def _make(self, name: str, settings: dict):
        app = self.make_app({**settings, "SESSION_COOKIE_NAME": f"terrabank-{name}",
                             "SESSION_COOKIE_PATH": f"{PREFIX}{name}/"})
        # Its live pages are admitted by the host's server (admission.py): a replaced link is cut there.
        app.extensions["terrabank_game_name"], app.extensions["terrabank_host_app"] = name, self.host_app
        return app

    def create(self, name: str) -> Made:
        """A new game from the host's config.toml, with a lead account whose password is returned once;
        refused with a sentence otherwise (nothing is made then)."""
        name = str(name or "").strip().lower()
        if not NAME.match(name):
            raise BankError("bad_game_name", f"{name or 'an empty name'!s} cannot name a game: use 1 to 40 lower-case "
                            "letters, digits or dashes, starting with a letter or digit (e.g. summer-camp)",
                            name=name)
        with self._lock:
            if name in self._apps:
                raise hosted.name_taken(name)
            with self.registry.creating(name, self.max_games) as settings:
                lock = None
                try:
                    app = self._make(name, settings)
                    # Held once the game exists: a hold taken in the database before would carry no game's
                    # epoch (bank/store/journal_pg_hold.py), and nobody sees the game before its row anyway.
                    lock = self._hold(name)
                    password = secrets.token_urlsafe(9)
                    app.extensions["terrabank"].access.add_user("lead", password, "lead")
                except BaseException:
                    if lock is not None:
                        lock.close()
                    raise
            app.extensions["terrabank_game_lock"] = lock
            self._apps[name] = app
        return Made(name, f"{PREFIX}{name}/", "lead", password)

    def close(self) -> None:
        """Let go of every game opened here (its journal, accounts, Trias games, hold) and of the registry."""
        self._looking = True  # no new look starts, and the running one stops
        self._closed.set()
        with self._lock:
            apps, self._apps = self._apps, {}
        for app in apps.values():
            services = app.extensions["terrabank"]
            for part in (services.bank, services.access, app.extensions.get("trias_games"),
                         app.extensions.get("terrabank_game_lock")):
                if part is not None:
                    part.close()
        self.registry.close()

    def listing(self) -> list[dict]:
        """What the host's lead sees of each game: its path, its teams, how far it has got (or why it
        cannot be served here)."""
        out = []
        for name in self.names():
            try:
                app = self.app(name)
            except BankError as exc:  # held by another server without a queue, or its journal refused
                out.append({"name": name, "path": f"{PREFIX}{name}/",
                            "error": {"code": exc.code, "message": exc.message, "params": exc.params}})
                continue
            if app is None:  # removed meanwhile
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
    """Serve the games of `folder` beside `app` (the host's own game, at /); options: HostedGames'.
    They are listed where the host's game lives: its folder, or its database (bank/store/hosted.py)."""
    options.setdefault("host", _host_target(app))
    games = HostedGames(folder, config_path, make_app, **options)
    games.host_app = app
    app.extensions["terrabank_hosted"] = games
    app.wsgi_app = GameDispatch(app.wsgi_app, games)
    return games


def _host_target(app):
    """Where the host's own game lives (storage_url target), from the --db its health checks read."""
    db = getattr(app.extensions.get("terrabank_health"), "db", None)
    return None if db is None else storage_url.target(db, app.extensions["terrabank"].config)


def _registry(folder: Path, config_path: Path, host):
    """The list of the games hosted beside `host`: in PostgreSQL when the host's game is there, else the folder."""
    if isinstance(host, storage_url.PostgresTarget):
        from bank.store.hosted_pg import DatabaseRegistry  # psycopg is loaded only for a database

        return DatabaseRegistry(host.url, host.game, folder, config_path)
    return hosted.FolderRegistry(folder, config_path)
