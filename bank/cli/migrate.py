"""`terrabank migrate`: move a game from its SQLite file into PostgreSQL (bank/services/migrate.py)."""

from __future__ import annotations

import os
import shlex
from pathlib import Path

from bank.store import storage_url
from bank.game.config import load_config
from bank.errors import BankError
from bank.store.storage import StorageError


def add_parser(sub, paths) -> None:
    """Register migrate on the main parser; `paths(args)` gives (config, db)."""
    p = sub.add_parser("migrate", help="copy a game from its SQLite file (--db) into PostgreSQL, chain head and all")
    p.add_argument("--game", metavar="NAME", help="its name in the database (default: the file's name without .db); "
                                  "serve it afterwards with --db NAME")
    p.add_argument("--url", metavar="URL", help="the PostgreSQL database (default: $TERRABANK_DATABASE_URL, else [storage] url "
                                 "in the config); a password here shows in the process list: prefer the variable")
    p.set_defaults(func=lambda args: cmd_migrate(args, *paths(args)))


def cmd_migrate(args, config_path: str, db: str) -> int:
    """Copy, verify, report both chain heads; the file is only read."""
    config = load_config(config_path)
    url = args.url or storage_url.database_url(config)
    if not url:
        raise BankError("migrate_no_database", "migrate copies the game into PostgreSQL but no database is named: "
                        f"set {storage_url.ENV_VAR} (or [storage] url in config.toml), or give --url "
                        "postgresql://USER@HOST/DATABASE; see docs/DEPLOY.md.")
    url = storage_url.check_url(url, _url_origin(args))
    from bank.services.migrate import migrate  # the copy's modules (PostgreSQL's among them): this command's only

    moved = migrate(db, config, url, _game(args, db))
    source = Path(db).resolve()
    print(f"Copied {_n(moved.entries, 'journal entry', 'journal entries')} and {_n(moved.snapshots, 'snapshot')}, "
          f"with the game's config and time line, from {source} into the {moved.where}; the file was only read.")
    print(f"journal chain head in the file:       {moved.file_head[1]} (entry {moved.file_head[0]})")
    print(f"journal chain head in the database:   {moved.copy_head[1]} (entry {moved.copy_head[0]})")
    game = shlex.quote(moved.game)
    print(f"Also copied {_n(moved.accounts, 'facilitator account')} (same passwords) and "
          f"{_n(moved.links, 'team link')}: the join cards printed for this game still work. Log-ins were not "
          "copied: each facilitator logs in once more.")
    if not moved.accounts:
        print(f"No account came with it: create the lead with `terrabank --db {game} user NAME --role lead`.")
    print(f"Serve it with: terrabank --db {game} serve")
    return 0


def _url_origin(args) -> str:
    """Where the URL came from, for check_url's sentence."""
    if args.url:
        return "--url"
    return storage_url.ENV_VAR if os.environ.get(storage_url.ENV_VAR, "").strip() else "[storage] url in config.toml"


def _game(args, db: str) -> str:
    if args.game is None:
        from bank.services.migrate import default_game_name

        return default_game_name(db)
    try:
        return storage_url.game_name(args.game)
    except StorageError:
        raise BankError("bad_game_name", f"--game {args.game!r} cannot name a game in the database: use a printable "
                        f"name of at most {storage_url.MAX_GAME_NAME} characters, e.g. --game summer-camp.") from None


def _n(count: int, one: str, many: str | None = None) -> str:
    return f"{count} {one if count == 1 else many or one + 's'}"
