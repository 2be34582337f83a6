"""Where the Trias games of a bank are kept: a folder of SQLite files, or the bank's PostgreSQL database.

`choose` is the one place that decides, for the web app and the terminal alike:
- a folder named by hand (`trias --games FOLDER`, the app's TRIAS_DIR) is that folder;
- else, with a database URL (bank/store/storage_url.py: TERRABANK_DATABASE_URL or `[storage] url`),
  the games live in that database beside the bank's game, each a game of its own named
  `<bank game>/trias/<game id>` (the bank game "terrabank" has "terrabank/trias/k7m2q9xp"):
  the same layout as `terrabank-trias/k7m2q9xp.db` beside `terrabank.db`, so every server
  process of one bank game sees the same Trias games, and each bank game (a hosted
  association's several games) keeps its own;
- else the folder `<db stem>-trias/` beside the bank's file, as always (nothing changes on a Pi).

In the database every game of a process goes through one small set of shared connections
(bank/store/journal_pg_pool.py), so hundreds of open games hold a handful of connections, not
hundreds. A game there holds no connection between uses, so there is nothing to release.
"""

from __future__ import annotations

from pathlib import Path

from bank.store.storage import StorageError
from bank.store.storage_url import PostgresTarget, database_url, display_url, target

GAMES_PART = "/trias/"  # between the bank game's name and a Trias game's id
ID_LENGTH = 8  # a Trias game's id (trias_games.py draws them)


def default_folder(db) -> Path:
    """Where the Trias games of a bank database live without a database URL: `<stem>-trias/` beside it."""
    db = Path(db)
    return db.with_name(f"{db.stem}-trias")


def choose(db, config=None, folder=None, url: str | None = None):
    """The store of the Trias games of the bank game at `db` (see the module's text for the order)."""
    if folder:
        return FolderStore(folder)
    url = url if url is not None else database_url(config)
    if url:
        where = target(db, url=url)  # a URL that is not PostgreSQL's is refused here, naming its setting
        return DatabaseStore(where.url, where.game)
    return FolderStore(default_folder(db))


class FolderStore:
    """One SQLite file per game in a folder. Each open game holds files: keep only a few open."""

    holds_files = True
    shared = False  # written by this process, and now and then by the terminal beside it

    def __init__(self, folder):
        self.folder = Path(folder)
        self.where = str(self.folder)

    def target(self, game_id: str) -> Path:
        return self.folder / f"{game_id}.db"

    def exists(self, game_id: str) -> bool:
        return self.target(game_id).is_file()

    def name(self, game_id: str) -> str:
        """The game's place, for sentences."""
        return str(self.target(game_id))

    def heads(self) -> dict:
        """{game id: last seq or None if unknown without opening it}: every game file of the folder."""
        if not self.folder.is_dir():
            return {}
        return {path.stem: None for path in sorted(self.folder.glob("*.db"))}

    def count(self) -> int:
        return sum(1 for _ in self.folder.glob("*.db"))

    def prepare(self) -> None:
        try:
            self.folder.mkdir(mode=0o700, parents=True, exist_ok=True)
        except OSError as exc:
            raise StorageError("games_folder_unusable", f"cannot keep Trias games in {self.folder} "
                               f"({exc.strerror or exc}): choose a folder that can be written to",
                               path=str(self.folder)) from None

    def creation_window(self, limit: int, seconds: float):
        """None: the app's count of new games per device in memory is the one (one process per folder)."""
        return None

    def full(self, held: int) -> StorageError:
        return StorageError("games_folder_full", f"{self.folder} already holds {held} Trias games, the most "
                            "one bank keeps: move finished games to another folder (still readable there with "
                            "`terrabank trias --games FOLDER show`), then start the new one",
                            path=str(self.folder), games=held)

    def close(self) -> None:
        pass


class DatabaseStore:
    """The games named `<bank game>/trias/<id>` in a PostgreSQL database, on shared connections."""

    holds_files = False
    shared = True  # other server processes write these games all the time: read them fresh
    # This bank's games: its prefix and an id, not the games of a bank named "<this bank>/trias/x".
    _MINE = "starts_with(name, %s) AND char_length(name) = %s"

    def __init__(self, url: str, bank_game: str, pool=None):
        from bank.store.journal_pg_pool import ConnectionPool

        self.url, self.prefix = url, f"{bank_game}{GAMES_PART}"
        self.pool = pool or ConnectionPool(url)
        self.folder = None
        self.where = f"{display_url(url)} (games named {self.prefix}ID)"

    def target(self, game_id: str) -> "PooledTarget":
        return PooledTarget(self.pool, self.prefix + game_id)

    def name(self, game_id: str) -> str:
        """The game's place, for sentences."""
        return self.target(game_id).name

    def exists(self, game_id: str) -> bool:
        return self._query("SELECT 1 FROM terrabank.games WHERE name = %s", (self.prefix + game_id,)) != []

    def heads(self) -> dict:
        """{game id: last seq} of every game of this bank, in one query. A game whose set-up row is
        not committed yet (being created by another process) is left out until it is."""
        found = self._query("SELECT substr(g.name, %s), (SELECT MAX(seq) FROM terrabank.journal j "
                            f"WHERE j.game = g.id) FROM terrabank.games g WHERE {self._MINE} ORDER BY g.id",
                            (len(self.prefix) + 1, self.prefix, len(self.prefix) + ID_LENGTH))
        return {game_id: head for game_id, head in found if head}

    def count(self) -> int:
        return self._query(f"SELECT COUNT(*) FROM terrabank.games WHERE {self._MINE}",
                           (self.prefix, len(self.prefix) + ID_LENGTH))[0][0]

    def prepare(self) -> None:
        pass  # the tables are made with the pool's first connection

    def creation_window(self, limit: int, seconds: float):
        """New games per device counted in the database, for every server process of this bank."""
        from bank.store.trias_starts_pg import SharedWindow
        return SharedWindow(self.pool, self.prefix, limit, seconds)

    def full(self, held: int) -> StorageError:
        return StorageError("trias_games_full", f"{display_url(self.url)} already holds {held} Trias games of "
                            f"the bank game {self.prefix[:-len(GAMES_PART)]!r}, the most one bank keeps: rename "
                            f"finished ones out of {self.prefix}ID (they stay in the database, e.g. UPDATE "
                            "terrabank.games SET name = 'archive/' || name WHERE name = ...), then start the new one",
                            path=self.prefix, games=held)

    def _query(self, sql: str, params) -> list:
        from bank.store.journal_pg_connect import pg_errors
        with self.pool.connection() as conn, pg_errors(display_url(self.url)):
            return conn.execute(sql, params).fetchall()

    def close(self) -> None:
        self.pool.close()


class PooledTarget(PostgresTarget):
    """One Trias game in the database, opened and written through its store's shared connections."""

    def __init__(self, pool, game: str):
        super().__init__(pool.url, game)
        self.pool = pool

    def create(self, config_text: str, identity: dict, previous: dict | None = None):
        from bank.store.journal_pg import PostgresJournal
        return PostgresJournal.create(self.url, self.game, config_text, identity, pool=self.pool, previous=previous)

    def open(self):
        from bank.store.journal_pg import PostgresJournal
        return PostgresJournal.open(self.url, self.game, pool=self.pool)
