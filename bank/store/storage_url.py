"""Which store holds the journal: the SQLite file (default) or PostgreSQL, from a URL.

The URL comes from the environment variable TERRABANK_DATABASE_URL, else from
`[storage] url` in config.toml; neither means the SQLite file named by --db, as
always. With a PostgreSQL URL, --db names the game inside the database: its value
without a final ".db" (`--db terrabank.db` is the game "terrabank"), so one database
holds many games. The game's accounts, log-ins and team links follow it there
(bank/store/accounts open_access), and so do its Trias games (bank/store/trias_store.py).
"""

from __future__ import annotations

import os
import time
from contextlib import contextmanager
from pathlib import Path
from urllib.parse import urlsplit

from bank.store.storage import StorageError, display_url  # noqa: F401 (named here by the callers that choose a store)

ENV_VAR = "TERRABANK_DATABASE_URL"
_SCHEMES = ("postgresql", "postgres")
MAX_GAME_NAME = 200


def database_url(config=None) -> str | None:
    """The configured URL (environment first, then config.toml), or None for SQLite."""
    url = os.environ.get(ENV_VAR, "").strip() or (getattr(config, "storage_url", "") or "").strip()
    return url or None


def check_url(url: str, where: str = ENV_VAR) -> str:
    """`url` if it names a PostgreSQL database; StorageError saying what to write otherwise."""
    scheme = urlsplit(url).scheme.lower()
    if scheme in ("sqlite", "file", ""):
        raise StorageError("bad_database_url", f"{where} is {_masked(url)!r}: leave it out to keep the game in the "
                           "SQLite file named by --db, or give a PostgreSQL URL such as "
                           "postgresql://terrabank@localhost/terrabank.", url=_masked(url))
    if scheme not in _SCHEMES:
        raise StorageError("bad_database_url", f"{where} starts with {scheme}://, which Terrabank cannot use: "
                           "give a PostgreSQL URL such as postgresql://terrabank@localhost/terrabank.",
                           url=_masked(url))
    return url


def _masked(url: str) -> str:
    """The URL with its password replaced by ***, for messages and logs."""
    parts = urlsplit(url)
    if parts.password is None:
        return url
    netloc = parts.netloc.replace(f":{parts.password}@", ":***@", 1)
    return parts._replace(netloc=netloc).geturl()


def game_name(path) -> str:
    """The game's name in a shared database: the --db value without a final .db."""
    text = str(path)
    name = text[:-3] if text.endswith(".db") else text
    if not name or len(name) > MAX_GAME_NAME or not name.isprintable():
        raise StorageError("bad_game_name", f"--db {text!r} cannot name a game in the database: use a printable "
                           f"name of at most {MAX_GAME_NAME} characters, e.g. --db summer-camp.", path=text)
    return name


def target(path, config=None, url: str | None = None):
    """Where the game named by `path` lives: SqliteTarget, or PostgresTarget when a URL is set."""
    url = url if url is not None else database_url(config)
    if url is None:
        return SqliteTarget(path)
    where = ENV_VAR if os.environ.get(ENV_VAR, "").strip() else "[storage] url in config.toml"
    return PostgresTarget(check_url(url, where), game_name(path))


@contextmanager
def hold(path, config, who: str, shared: bool = False, lease_it: bool = True):
    """Hold the game named by `path` for `who` while the block runs (a server for its whole life), or
    BankError("bank_running"): the file beside it on this host and, for a game in PostgreSQL, the
    game in the database, so that a server on another host refuses an `init --force` too
    (bank/store/journal_pg_hold.py). `shared`: several servers hearing each other through a queue.
    `lease_it`: a server's hold, kept across a restart of PostgreSQL (journal_pg_lease.py); not a one-off command's."""
    from bank.store import gamefile

    with gamefile.hold(path, who, shared=shared):
        where = target(path, config)
        if not isinstance(where, PostgresTarget):
            yield
            return
        from bank.store.journal_pg_hold import hold as hold_in_database

        with hold_in_database(where.url, where.game, who, shared=shared, lease_it=lease_it):
            yield


def hold_state(path, config):
    """This process's hold on the game in PostgreSQL (journal_pg_hold.HoldState), or None: a SQLite file,
    or no hold taken here (a test, a CLI look). From memory: no network (readiness answers at once)."""
    where = target(path, config)
    if not isinstance(where, PostgresTarget):
        return None
    from bank.store.journal_pg_hold import state

    return state(where.url, where.game)


def as_target(where):
    """`where` itself if it is already a target, else the SQLite file at that path."""
    return where if isinstance(where, (SqliteTarget, PostgresTarget)) else SqliteTarget(where)


class SqliteTarget:
    """One game in one SQLite file (bank/store/journal.py): today's store, the default."""

    # What `init --force` does with the game it replaces, for its messages.
    kept_note = "a dated copy of the old game is kept beside it"

    def __init__(self, path):
        self.path = Path(path)
        self.name = str(path)

    def exists(self) -> bool:
        return self.path.exists()

    def check_creatable(self) -> None:
        if not self.path.parent.is_dir():
            raise StorageError("database_unreachable", f"Cannot create {self.path}: the folder "
                               f"{self.path.parent} does not exist.", path=str(self.path))

    def temporary(self) -> "SqliteTarget":
        return SqliteTarget(self.path.with_name(self.path.name + ".creating"))

    def create(self, config_text: str, identity: dict, previous: dict | None = None):
        from bank.store.journal import Journal
        return Journal.create(self.path, config_text, identity, previous)

    def open(self):
        from bank.store.journal import Journal
        return Journal.open(self.path)

    def remove(self) -> None:
        from bank.store.journal import remove_database
        remove_database(self.path)

    def replace(self, destination: "SqliteTarget") -> None:
        from bank.store.journal import move_database
        move_database(self.path, destination.path)


class PostgresTarget:
    """One game, by name, among the games of one PostgreSQL database (bank/store/journal_pg.py)."""

    # What `init --force` does with the game it replaces (journal_pg.rename_game), for its messages.
    kept_note = "the old game stays in the database under a dated name; nothing is deleted"

    def __init__(self, url: str, game: str):
        self.url, self.game = url, game
        self.name = f"game {game!r} in {display_url(url)}"

    def __repr__(self) -> str:
        return f"PostgresTarget({self.name})"

    def exists(self) -> bool:
        from bank.store import journal_pg
        return journal_pg.game_exists(self.url, self.game)

    def check_creatable(self) -> None:
        pass  # the database is reached (and its errors said) when the game is created

    def temporary(self) -> "PostgresTarget":
        # A name with a line break, which game_name() refuses: no --db can open a game
        # while it is being built; replace() gives it its real name once it is complete.
        return PostgresTarget(self.url, f"{self.game}\n(creating {time.time():.6f})")

    def create(self, config_text: str, identity: dict, previous: dict | None = None):
        from bank.store import journal_pg
        return journal_pg.PostgresJournal.create(self.url, self.game, config_text, identity, previous=previous)

    def open(self):
        from bank.store import journal_pg
        return journal_pg.PostgresJournal.open(self.url, self.game)

    def remove(self) -> None:
        from bank.store import journal_pg
        journal_pg.retire_game(self.url, self.game, "abandoned")

    def replace(self, destination: "PostgresTarget") -> None:
        from bank.store import journal_pg
        journal_pg.rename_game(self.url, self.game, destination.game)

    def summary(self) -> tuple[int, int] | None:
        """(the game's number, commands booked by people), or None if there is no such game."""
        from bank.store import journal_pg_connect
        return journal_pg_connect.game_summary(self.url, self.game)

    def name_of(self, number: int) -> str | None:
        """The name the game numbered `number` carries now: where `init --force` kept the old one."""
        from bank.store import journal_pg_connect
        return journal_pg_connect.game_name_by_number(self.url, number)
