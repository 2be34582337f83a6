"""The `terrabank` subcommands of the live bank: serve, user, links."""

from __future__ import annotations

import contextlib
import dataclasses
import errno
import getpass
import io
import os
import secrets
import socket
import sys
import threading
from pathlib import Path

from bank.cli import serve_lean, serve_replaced
from bank.cli.serve_wait import wait_for_the_database
from bank.cli.serve_address import (address_path, addresses, launcher,  # noqa: F401 (re-exported)
                                     loopback_warning, remember_address, remembered_address)
from bank.game import fields
from bank.store import gamefile
from bank.store import state_dir
from bank.store import storage_url
from bank.game.config import load_config
from bank.errors import BankError
from bank.store.journal import Journal, known_failure, writable
from bank.store.storage import private_folder
from bank.web.serving.log_lines import process_wide, say


def add_parsers(sub, paths) -> None:
    """Register serve, user and links on the main parser; `paths(args)` gives (config, db)."""
    p = sub.add_parser("serve", help="start the live bank (web pages and phones)")
    p.add_argument("--host", help="address to listen on (default: config [server] host)")
    p.add_argument("--port", type=int, help="port (default: config [server] port); 0: any free port, the one "
                                            "chosen is in the printed address")
    p.add_argument("--base", help="the address phones use, e.g. http://192.168.4.1:5000 (default: this machine's "
                                  "network address); the admin page's links and printed join cards use it")
    p.add_argument("--dev", action="store_true", help="Flask's development server (Werkzeug) instead of the "
                                                     "production one (Gunicorn); for development only")
    p.add_argument("--games", metavar="FOLDER", help="also serve the games of FOLDER, each under /g/<name>/; the "
                                                     "lead of this game creates and lists them on the admin page")
    p.set_defaults(func=lambda args: cmd_serve(args, *paths(args)))

    p = sub.add_parser("user", help="create or replace a facilitator account")
    p.add_argument("username")
    p.add_argument("--role", choices=("lead", "banker", "referee"), required=True)
    p.add_argument("--password-stdin", action="store_true", help="read the password from standard input")
    p.set_defaults(func=lambda args: cmd_user(args, *paths(args)))

    p = sub.add_parser("links", help="print each team's secret phone link")
    p.add_argument("--base", help="the address phones use, e.g. http://192.168.4.1:5000")
    p.set_defaults(func=lambda args: cmd_links(args, *paths(args)))


def _app(config_path: str, db: str, **settings):
    return serve_lean.app(config_path, db, **settings)  # Flask is loaded only for the web commands


@contextlib.contextmanager
def _accounts(config_path: str, db: str):
    """(config, accounts) of the game, without the web app: `user` and `links` are one-off commands and
    need no Flask (about 0.6 CPU-s a start). The game is opened as create_app opens it (game_open.py); the
    app's own files (its cookie key, the Trias folder) are left for `serve` to make."""
    from bank.services.game_open import open_game

    config = load_config(config_path)
    bank, access = open_game(db, config)
    try:
        yield config, access
    finally:
        access.close()
        bank.close()


def print_qr(url: str) -> None:
    """A QR code in the terminal, to open the console from a tablet's camera."""
    import qrcode

    qr = qrcode.QRCode(border=1)
    qr.add_data(url)
    drawn = io.StringIO()
    qr.print_ascii(out=drawn, invert=True)
    say(drawn.getvalue().rstrip("\n"))


def check_port(host: str, port: int) -> None:
    """Refuse at once, before any "running" line, a port another program (or another bank) listens on."""
    probe = socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET, socket.SOCK_STREAM)
    try:
        # As the server will: a port left in TIME_WAIT by a bank just stopped is free to use.
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        probe.bind((host, port))
    except PermissionError:
        raise BankError("port_forbidden", f"this user may not listen on port {port} (ports below 1024 need root); "
                        f"start with a higher port, e.g. {launcher()} serve --port 5000") from None
    except OSError as exc:
        if exc.errno == errno.EADDRINUSE:
            raise BankError("port_in_use", f"port {port} is in use: is the bank already running? Stop it first "
                            f"(Ctrl+C in its window), or start on another port: {launcher()} serve --port {port + 1}") from None
        raise BankError("bad_address", f"cannot listen on {host}:{port} ({exc.strerror}); check [server] host "
                        "in config.toml or give --host 0.0.0.0") from None
    finally:
        probe.close()


def cmd_serve(args, config_path: str, db: str) -> int:
    """Start the server on all interfaces; print the addresses and a QR code of the console."""
    # Held for the server's whole life (the OS lets go when the process ends, even killed):
    # a second server, or an `init --force`, on this file is refused while it runs.
    # Several servers of one game may run together only when they hear each other through a queue
    # (bank/web/push/peers.py): then each holds the lock shared.
    from bank.web.push.peers import queue_url
    from bank.web.serving.proxies import trusted_proxies

    trusted_proxies()  # a wrong TERRABANK_PROXIES is refused here with its sentence, not in the worker
    config = load_config(config_path)
    wait_for_the_database(db, config)
    shared = queue_url(config) is not None
    who = "terrabank serve" + (" (with a queue)" if shared else "")
    with storage_url.hold(db, config, who, shared=shared), _hold_games(args, who, shared):
        return serve_replaced.serving(lambda: _serve(args, config_path, config, db))


@contextlib.contextmanager
def _hold_games(args, who: str, shared: bool):
    """`--games FOLDER`: its games are this server's too; a second server on the folder is refused."""
    if not getattr(args, "games", None):
        yield
        return
    folder = Path(args.games)
    try:
        private_folder(folder, tighten=False)  # made 0700: it holds every hosted game's file (stock, secrets)
    except OSError as exc:
        raise BankError("games_folder", f"cannot use {folder} for the hosted games ({exc.strerror}): give a folder "
                        "this user may write, e.g. --games /var/lib/terrabank/games", path=str(folder)) from exc
    with gamefile.hold(folder / "hosted", who, shared=shared):
        yield


def _hosting_settings(args, config_path: str) -> dict:
    """create_app's settings for `--games` (bank/web/serving/hosting.py); none without it."""
    return serve_lean.hosting_settings(getattr(args, "games", None), config_path)


def _serve(args, config_path: str, config, db: str) -> int:
    process_wide()  # every library's lines in one shape, from the first (bank/web/serving/log_lines.py)
    check_database(db, config)
    host, port = args.host or config.host, config.port if args.port is None else args.port
    dev = getattr(args, "dev", False)
    listener = None
    if port == 0:  # any free port: bound here and kept, so no other program can take it meanwhile
        listener = listen_any(host)
        port = listener.getsockname()[1]
    else:
        check_port(host, port)  # before the ticker starts or anything is printed
    # Threading mode costs four threads per connected page (Werkzeug's handler, the WebSocket
    # reader, the Engine.IO writer and its ping timer): 800 for 200 phones. At the default
    # 8 MB of stack each that is 6.4 GB of address space, more than a 32-bit Raspberry Pi OS
    # gives a process (3 GB): new threads would fail from about 90 phones on. Only touched
    # stack pages use memory, and 512 KB is ample for Flask, Jinja and json. Set here, for
    # the server's process only, before any of its threads start.
    threading.stack_size(512 * 1024)
    base = None
    if getattr(args, "base", None):
        from bank.web.field.addresses import normalise

        base = normalise(args.base)
    # Production: the app that serves is made in Gunicorn's worker, after the fork (the ticker's
    # threads must start there); this one only answers the start-up questions below, ticker off.
    hosted = _hosting_settings(args, config_path)
    serve_lean.skip_unused_imports(config_path, getattr(args, "games", None), config)  # as the worker will
    app = _app(config_path, db, TICKER=dev, PHONE_BASE=base, **hosted)
    urls = [f"http://{a}:{port}" for a in (addresses() if host == "0.0.0.0" else [host])]
    if base:
        urls = [base] + [u for u in urls if u != base]
    # The big screen's own link: with its key it has live slots of its own, not the anonymous ones.
    key = app.extensions["terrabank"].access.display_key()
    say(f"Terrabank is running. Facilitators: {urls[0]}/console   Big screen: {urls[0]}/display?key={key}")
    for url in urls[1:]:
        say(f"  also at {url}/console")
    from bank.web.serving.proxies import trusted_proxies

    proxied = trusted_proxies() > 0  # the unit behind nginx: its loopback is the point
    warning = loopback_warning(urls[0], proxied)
    if warning:
        say(warning)
    else:  # join cards printed later, maybe on another machine, use the address the phones reach
        remember_address(db, urls[0])
    access = app.extensions["terrabank"].access
    if not access.users():
        first_lead(access, db)
    elif lead_password_path(db).exists():
        say(f"Reminder: {lead_password_path(db).resolve()} still holds the first lead password; "
              "delete it once the password is written down.")
    if hosted:
        games = app.extensions["terrabank_hosted"]
        source = "the database" if games.registry.where == "database" else Path(args.games).resolve()
        say(f"Hosting {len(games.names())} other game(s) from {source}, each at "
              f"{urls[0]}/g/<name>/; the lead of this game creates them on {urls[0]}/admin")
    if not (warning and proxied):  # a QR code of this process's loopback port would lead a phone nowhere
        print_qr(f"{urls[0]}/console")
        say(f"Team phone links: {launcher()} links.  Stop with Ctrl+C.")
    from bank.web.serving import server as serving

    if dev:
        # What Flask-SocketIO's run() does in threading mode (Werkzeug's threaded server), made
        # here so that it can serve on the socket `--port 0` bound above.
        from werkzeug.serving import make_server

        make_server(host, port, serving.prepare(app), threaded=True,
                    fd=listener.fileno() if listener is not None else None).serve_forever()
        return 0
    app.extensions["terrabank"].bank.close()  # the worker opens its own; none crosses the fork
    access.close()
    if isinstance(storage_url.target(db, config), storage_url.PostgresTarget) or not serve_lean.can_exec():
        # A game in PostgreSQL: its hold is a database session of this interpreter, no new one could take it
        # over. Without /proc (macOS) the locks to keep open cannot be found. Both: the master stays as it is.
        serving.run(lambda: _app(config_path, db, TICKER=True, PHONE_BASE=base, **hosted), host, port,
                    game_limits(config), listener=listener, reload_check=(config_path, str(db)))
        return 0
    _exec_lean_master(args, config_path, db, base, host, port, listener, game_limits(config))
    return 0


def game_limits(config):
    """The serving limits, with room for every live page the game's config admits: each team's link and the big
    screen's key hold [server] phones_per_team + spare_pages_per_link (a game of 1,000 phones gets the connections)."""
    from bank.web.serving.limits import Limits

    return Limits().for_pages(config.live_pages_per_link * (len(config.teams) + 1))


def _exec_lean_master(args, config_path: str, db: str, base, host: str, port: int, listener, limits) -> None:
    """Gunicorn's master in a new interpreter that never loads Flask (bank/cli/serve_lean.py)."""
    from bank.web.serving import server as serving

    limits, warning = serving.fit_limits(serving.behind_proxies(limits))
    if warning:
        say(warning)
    serving.options(host, port, limits)  # a wrong setting (TERRABANK_DRAIN_SECONDS) is refused here, in words
    locks = [gamefile.lock_path(db)] + ([gamefile.lock_path(Path(args.games) / "hosted")] if getattr(args, "games", None) else [])
    keep = serve_lean.held_descriptors(locks) + ([listener.fileno()] if listener is not None else [])
    params = {"config": config_path, "db": db, "base": base, "games": getattr(args, "games", None), "host": host,
              "port": port, "listener": listener.fileno() if listener is not None else None,
              "limits": dataclasses.asdict(limits)}
    serve_lean.exec_master(params, keep)


def listen_any(host: str) -> socket.socket:
    """A socket listening on `host` at a port the system chooses (`serve --port 0`)."""
    listener = socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET, socket.SOCK_STREAM)
    try:
        # As Gunicorn sets up a listener it binds itself, before bind() and listen() so that
        # every connection inherits them: no Nagle delay on the replies, and the port free
        # for a restart at once (the closed connections' TIME_WAIT allows an address reuse).
        listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        listener.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        listener.bind((host, 0))
        listener.listen(2048)
    except OSError as exc:
        listener.close()
        raise BankError("bad_address", f"cannot listen on {host} ({exc.strerror}); check [server] host "
                        "in config.toml or give --host 0.0.0.0") from None
    return listener


def lead_password_path(db) -> Path:
    """Where a first start run without a terminal (systemd) leaves the lead's password (state directory)."""
    return state_dir.path_for(db, "-lead-password.txt")


# An exit status systemd is told not to restart on (RestartPreventExitStatus= in deploy/*.service):
# a game with no lead whose password cannot be written needs the operator, and a restart every 2 s
# would only repeat the sentence. 78 is EX_CONFIG of sysexits.h: "a configuration error".
NEEDS_OPERATOR = 78


def first_lead(access, db) -> None:
    """A fresh install must be usable at once: a lead account whose password is shown once.

    On a terminal it is printed; otherwise standard output is a log (systemd's journal,
    readable by admins and kept for weeks), so it goes to a file only its owner can read.
    """
    password = secrets.token_urlsafe(9)
    more = f"add more accounts on the admin page, or with: {launcher()} user NAME --role banker"
    if sys.stdout.isatty():
        access.add_user("lead", password, "lead")
        say(f"First start: log in as lead with password {password}\n(write it down; {more})")
        return
    path = lead_password_path(db)
    try:  # the file first: a lead whose password went nowhere would lock everyone out
        state_dir.ready_folder_for(path)
        path.unlink(missing_ok=True)  # a file left by an earlier game may have other permissions
        with os.fdopen(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600), "w") as f:
            f.write(f"Terrabank: log in as lead with password {password}\n"
                    "(delete this file once the password is written down)\n")
    except OSError as exc:
        raise BankError("no_lead", f"the game {db} has no lead account, and its first password cannot be written "
                        f"to {path} ({exc.strerror}); create the lead as this user first: {launcher()} user lead "
                        f"--role lead (or give a folder it may write: {state_dir.ENV_VAR}=/var/lib/terrabank)",
                        exit_status=NEEDS_OPERATOR) from None
    access.add_user("lead", password, "lead")
    say(f"First start: the password of the lead account is in {path.resolve()} (readable by "
          f"this user only; delete the file once it is written down; {more})")


def check_database(db, config=None) -> None:
    """Refuse to serve a game file that is damaged or cannot be written, with the way out.

    Opening the bank reads only the rows after the last snapshot, so damage in older
    entries or in an index would otherwise show only in the middle of the game; SQLite's
    own check reads every page (milliseconds for a long game). A read-only file would
    open, then refuse every command: better said once, before anyone plays.
    """
    where = storage_url.target(db, config)
    if isinstance(where, storage_url.PostgresTarget):  # the journal is in PostgreSQL
        from bank.store.journal_pg import check_before_serving
        return check_before_serving(where.url, where.game)
    if not Path(db).is_file():
        return  # a new game is created on the first start
    if not writable(db):
        raise known_failure("database_read_only", db)
    from bank.services import bank_verify  # here: the rest of `serve` never loads the rules
    journal = Journal.open(db)  # a damaged header or schema is refused here already
    try:
        # Damage, or somebody edited the file by hand: the balances cannot be trusted.
        problems = bank_verify.tampered(journal, own_check="SQLite's check")
    finally:
        journal.close()
    if problems:
        raise known_failure("database_corrupt", db, problems[0])


def cmd_user(args, config_path: str, db: str) -> int:
    """Create or replace a facilitator; the password is asked twice (or read from stdin)."""
    if fields.has_control(args.username) or not fields.visible(args.username):
        # The name is the `actor` of every row the facilitator books: it must show in the journal and report.
        raise BankError("bad_username", f"the username {args.username!r} has no visible letters or holds a "
                        "control character; choose a plain name such as alice")
    password = _read_password(args)
    with _accounts(config_path, db) as (_config, access):
        access.add_user(args.username, password, args.role)
    print(f"Facilitator {args.username} ({args.role}) is ready.")
    return 0


def _read_password(args) -> str:
    """The new password, typed twice (or one line of stdin); no input or Ctrl+C is one clear line, not a traceback."""
    try:
        if args.password_stdin:
            password = sys.stdin.readline().rstrip("\r\n")
        else:
            password = getpass.getpass(f"Password for {args.username}: ")
            if password and getpass.getpass("Again: ") != password:
                raise BankError("password_mismatch", "the two passwords differ; nothing was changed")
    except (EOFError, KeyboardInterrupt):
        print(file=sys.stderr)  # the prompt's line is left open by Ctrl+D / Ctrl+C
        raise BankError("no_password", "no password was given; nothing was changed") from None
    if not password:
        raise BankError("no_password", f"no password was typed; nothing was changed. Run {launcher()} user "
                        f"{args.username} --role {args.role} again and type one (8 characters or more)")
    return password


def cmd_links(args, config_path: str, db: str) -> int:
    """Each team's phone link; print the join cards for the QR codes."""
    from bank.web.field.addresses import normalise

    with _accounts(config_path, db) as (config, access):
        tokens = access.team_tokens()
    # As the join cards and the admin page: --base, else the address `serve` last
    # printed for this game (its real port, e.g. `serve --port 8080`), else the configured port.
    base = normalise(args.base or remembered_address(db) or f"http://{addresses()[0]}:{config.port}")
    warning = loopback_warning(base)
    if warning:
        print(warning, file=sys.stderr)
    for team, token in tokens.items():
        print(f"{team:10} {base}/t/{token}")
    return 0
