"""`terrabank config check` and `terrabank config schema`.

The operator keeps the game's settings outside the code (/etc/terrabank/config.toml, named by
TERRABANK_CONFIG in the unit and in /etc/terrabank.env), and checks an edit before a reload or a
restart: the first mistake is named by its key (`game.duraton_minutes`), as a start would name it,
with nothing started and nothing changed. `schema` prints the JSON Schema drawn from the reader
(bank/game/config_schema.py), the one committed as docs/config.schema.json.
"""

from __future__ import annotations

import os
import sys

from bank.errors import BankError, ConfigError
from bank.game.config import load_config
from bank.game.game_identity import config_problems, kept_name_problems
from bank.store import storage_url
from bank.store.storage import StorageError

from bank.web.serving.reload import UNREACHED_STATUS  # the game not reached: a reload waits for it, not refused

UNREACHED = ("database_unreachable", "database_connection_lost", "database_slow", "database_busy")


def add_parser(sub, paths) -> None:
    """Register `config check` and `config schema`; `paths(args)` gives (config, db)."""
    p = sub.add_parser("config", help="check config.toml, or print its JSON Schema for an editor")
    which = p.add_subparsers(dest="config_command", required=True, metavar="check|schema")
    c = which.add_parser("check", help="read the config as a start would; name the key of the first mistake")
    c.add_argument("--game-may-wait", action="store_true",
                   help="a sound config whose game cannot be reached now (PostgreSQL down) passes, saying so: "
                        "the unit's reload, whose process waits for the game before it takes the config")
    c.set_defaults(func=lambda args: cmd_check(args, *paths(args)))
    s = which.add_parser("schema", help="print the JSON Schema of config.toml (docs/config.schema.json)")
    s.set_defaults(func=cmd_schema)


def _source(args) -> str:
    """Where the path came from, so an operator sees which file was read (the unit's, or the folder's)."""
    if args.config:
        return "--config"
    return "TERRABANK_CONFIG" if os.environ.get("TERRABANK_CONFIG") else "the current folder"


def cmd_check(args, config_path: str, db: str) -> int:
    """Exit 0 with one line when the config is sound; else main prints the mistake, exit 2 (UNREACHED_STATUS when
    only the game could not be reached to check the config against it)."""
    from printables.printable_names import refusal  # ReportLab is loaded only for this command, not every start

    config = load_config(config_path)  # ConfigError: "<file>: '<dotted key>' <what is wrong and what to write>"
    unprintable = refusal(config, config_path)  # a name that would print with a gap, found before the game
    if unprintable:
        raise ConfigError(unprintable)
    where = storage_url.target(db, config)
    storage = where.name if isinstance(where, storage_url.PostgresTarget) else f"the file {db}"
    try:
        problems = _fits(where, config, db)
    except StorageError as exc:
        if exc.code not in UNREACHED:
            raise
        said = (f"{config_path} reads as a sound config, but the game ({storage}) could not be reached to check "
                f"that it fits: {exc.message}") if exc.code != "database_busy" else (
                f"{config_path} reads as a sound config, but another program holds the game's write lock ({storage}: "
                "an `sqlite3` shell left in a transaction, a database browser, a copy tool), so a new worker could not "
                "open the game now: close that program.")
        if getattr(args, "game_may_wait", False):  # the unit's ExecReload: the process checks it once the game answers
            print(f"{said} A reload waits for the game, then checks the config against it and takes it.")
            return 0
        raise BankError(exc.code, said, path=config_path, exit_status=UNREACHED_STATUS) from None
    if problems:
        raise BankError("config_mismatch", f"{config_path}: the game ({storage}) was made with other ids or order: "
                        f"{'; '.join(problems)}; a start or a reload would refuse it", path=config_path)
    print(f"{config_path} (from {_source(args)}) is a sound game config: {len(config.teams)} teams, "
          f"{config.duration_seconds // 60} minutes in {config.sessions} session{'s' if config.sessions > 1 else ''}, "
          f"language {config.language}; the game: {storage}.")
    return 0


def _fits(where, config, db) -> list:
    """What the game at `where` finds wrong with this config (its ids, their order); none for no game yet."""
    if not where.exists():  # a sound file whose ids the game lacks would be refused by the start (or the reload)
        return []
    journal = where.open()
    try:
        problems = config_problems(journal, config)
        if isinstance(where, storage_url.SqliteTarget):
            _writable_now(journal)
    finally:
        journal.close()
    return problems + kept_name_problems(_kept_names(db, config), config)


def _kept_names(db, config) -> dict:
    """The names the game's teams were opened with (AccessRules.team_names), read as a start reads them."""
    from bank.store.accounts import open_access

    try:
        access = open_access(db, config)
    except StorageError:  # the accounts cannot be opened here (a read-only disk): the start says so, not this check
        return {}
    try:
        return access.team_names()
    finally:
        access.close()


def _writable_now(journal) -> None:
    """StorageError database_busy when another program holds the game file's write lock past a command's wait
    (5 s): a worker started now could not open the game (it answers 503 until the lock is free), so a reload waits
    with the worker it has. Read-only opens did not see it: the reload went through, and the bank answered 503
    for as long as the lock was held. Any other refusal is not this check's to say (a read-only disk: `serve`)."""
    try:
        with journal.transaction():
            pass
    except StorageError as exc:
        if exc.code == "database_busy":
            raise


def cmd_schema(args) -> int:
    from bank.game.config_schema import schema_text

    sys.stdout.write(schema_text())
    return 0
