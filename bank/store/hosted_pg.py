"""The games hosted beside a host game, in PostgreSQL: terrabank.hosted_games.

One row per hosted game: its host (the name of the game of --db served at /, whose lead lists
and creates them), its name (its path, /g/<name>/) and the name of its journal in
terrabank.games. Every process serving the same host game reads the same rows, so a game
created by one process is served by the others at once (a name a process does not know yet is
looked up here before it answers 404), and after any restart of any of them.

A new game's journal is named "<host>/g/<name>": a name, not a path, so every host may keep
its --games folder where it likes. Games made before this table (their journal named after
the file the SQLite store would have used, "<FOLDER>/<name>/game") keep that name: the first
server started on their folder finds them there and lists them, nothing is renamed. A game
made elsewhere under an old name is listed by one statement (docs/DEPLOY.md):
    INSERT INTO terrabank.hosted_games(host, name, game, created_at)
    SELECT 'HOST', 'NAME', name, created_at FROM terrabank.games WHERE name = 'OLD NAME';

A hosted game in the database follows the server's config.toml (the --config every process
is given, as for the host game), so all processes decide with the same rules; the identity
check at opening refuses one whose teams or resources differ, with its sentence.
"""

from __future__ import annotations

import logging
import os
import threading
import time
import zlib
from contextlib import contextmanager
from pathlib import Path

from bank.store.hosted import GAME_FILE, NAME, name_taken, too_many
from bank.store.journal_pg_connect import connect, display_url, game_id_of, pg_errors, retire_game
from bank.store.journal_pg_schema import ensure_schema, ensure_tables
from bank.store.storage import StorageError

HOSTED_LOCK_SPACE = 0x7447  # first key ("tG") of a host's lock while one of its games is created
_SCHEMA_LOCK = -3  # second key, under the journal's LOCK_SPACE, while the table is made (access -1, Trias -2)
LOG = logging.getLogger("terrabank.hosted")

_TABLE = """
CREATE TABLE IF NOT EXISTS terrabank.hosted_games(
    host TEXT NOT NULL,                      -- the game served at / (its --db name), whose lead made this one
    name TEXT NOT NULL,                      -- the game's path: /g/<name>/
    game TEXT NOT NULL UNIQUE,               -- its journal: terrabank.games.name
    created_at DOUBLE PRECISION NOT NULL,
    PRIMARY KEY (host, name));
"""


def journal_name(host: str, name: str) -> str:
    """The journal's name of the game `name` hosted beside `host`: "<host>/g/<name>", as create_app's
    DB setting gives it back (a Path, without its ".db")."""
    return str(Path(f"{host}/g/{name}.db"))[:-3]


def _lock_key(host: str) -> int:
    return zlib.crc32(host.encode()) - 2**31  # a signed 32-bit number


class DatabaseRegistry:
    """The hosted games of one host game, in the database at `url` (see the module's text)."""

    where = "database"

    def __init__(self, url: str, host: str, folder, config_path):
        self.url, self.host = url, host
        self.folder, self.config_path = Path(folder), Path(config_path)
        self.label = f"the games hosted beside {host!r} in {display_url(url)}"
        self._conn, self._pid = None, os.getpid()
        self._conn_lock = threading.Lock()  # one statement at a time on the registry's connection
        self._games: dict[str, str] = {}  # name -> journal name, once read (a row's game never changes)
        self._looked_in_folder = False

    # --- reading ---------------------------------------------------------------------------

    def names(self) -> list[str]:
        if not self._looked_in_folder:
            self._adopt_old_games(p.name for p in self._folder_games())
            self._looked_in_folder = True
        with self._connection() as conn:
            return [r[0] for r in conn.execute("SELECT name FROM terrabank.hosted_games WHERE host = %s "
                                               "ORDER BY name", (self.host,))]

    def knows(self, name: str) -> bool:
        return NAME.match(name) is not None and self._game(name) is not None

    def settings(self, name: str) -> dict:
        game = self._game(name)
        if game is None:
            raise StorageError("hosted_game_missing", f"{self.label} no longer list {name}: it was removed "
                               "from terrabank.hosted_games; ask the server's operator.", name=name)
        return {"DB": f"{game}.db", "CONFIG": str(self.config_path)}

    def _game(self, name: str) -> str | None:
        found = self._games.get(name)
        if found is None:
            found = self._row(name)
            if found is None and (self.folder / name).is_dir():  # made on this folder before the table
                self._adopt_old_games([name])
                found = self._row(name)
            if found is not None:
                self._games[name] = found
        return found

    def _row(self, name: str) -> str | None:
        with self._connection() as conn:
            row = conn.execute("SELECT game FROM terrabank.hosted_games WHERE host = %s AND name = %s",
                               (self.host, name)).fetchone()
        return row[0] if row else None

    # --- holding and creating ---------------------------------------------------------------

    def hold(self, name: str, who: str, shared: bool):
        """The serving process's hold on the game in the database (journal_pg_hold), seen from every host."""
        from bank.store.journal_pg_hold import hold

        return hold(self.url, self._game(name), who, shared=shared)

    @contextmanager
    def creating(self, name: str, limit: int):
        """create_app's settings for the new game `name`; its row is written when the block succeeds. One
        creation per host at a time across processes (an advisory lock, held until the row is committed),
        so two leads pressing at once on two processes get one game and one refusal."""
        game = journal_name(self.host, name)
        conn = self._connect()
        try:
            with pg_errors(self.label):
                conn.execute("BEGIN")
                conn.execute("SELECT pg_advisory_xact_lock(%s, %s)", (HOSTED_LOCK_SPACE, _lock_key(self.host)))
                taken = conn.execute("SELECT 1 FROM terrabank.hosted_games WHERE host = %s AND name = %s",
                                     (self.host, name)).fetchone()
                count = conn.execute("SELECT count(*) FROM terrabank.hosted_games WHERE host = %s",
                                     (self.host,)).fetchone()[0]
                # A journal of that name without its row: a creation cut short (the process died before its
                # row was written). Nobody can have reached it: the block opens it and makes its lead again.
                unfinished = game_id_of(conn, game) is not None
            if taken:
                raise name_taken(name)
            if count >= limit:
                raise too_many(limit, "take a finished game off the list (DELETE its row from "
                               "terrabank.hosted_games; its journal stays)")
            self._games[name] = game  # for the block's hold; nobody else reaches it before the row is committed
            try:
                yield {"DB": f"{game}.db", "CONFIG": str(self.config_path)}
            except BaseException:
                self._games.pop(name, None)
                if not unfinished:
                    self._abandon(game)
                raise
            try:
                with pg_errors(self.label):
                    conn.execute("INSERT INTO terrabank.hosted_games(host, name, game, created_at) VALUES "
                                 "(%s, %s, %s, %s)", (self.host, name, game, time.time()))
                    conn.execute("COMMIT")
            except BaseException:
                self._games.pop(name, None)
                raise
        finally:
            conn.close()  # without its COMMIT: rolled back, the lock let go

    def _abandon(self, game: str) -> None:
        """Take the name of a game whose creation failed (its rows stay: nothing is deleted in the database)."""
        try:
            retire_game(self.url, game, "abandoned")
        except StorageError as exc:
            LOG.warning("terrabank: could not set aside the half-made game %r (%s); the next creation of its "
                        "name opens it again", game, exc.message)

    # --- games made before this table ------------------------------------------------------

    def _folder_games(self):
        if not self.folder.is_dir():
            return []
        return [p for p in self.folder.iterdir() if NAME.match(p.name) and p.is_dir()]

    def _adopt_old_games(self, names) -> None:
        """List, under their old journal names, the games a server made in this folder before the table."""
        names = [n for n in names if NAME.match(n)]
        if not names:
            return
        with self._connection() as conn:
            for name in names:
                for old in dict.fromkeys((str(self.folder / name / GAME_FILE)[:-3],
                                          str(self.folder.resolve() / name / GAME_FILE)[:-3])):
                    made = conn.execute("SELECT created_at FROM terrabank.games WHERE name = %s", (old,)).fetchone()
                    if made is None:
                        continue
                    added = conn.execute("INSERT INTO terrabank.hosted_games(host, name, game, created_at) VALUES "
                                         "(%s, %s, %s, %s) ON CONFLICT DO NOTHING RETURNING name",
                                         (self.host, name, old, made[0])).fetchone()
                    if added:
                        LOG.warning("terrabank: hosted game %s is listed again, from its journal %r in %s (made "
                                    "before hosted games were kept in the database)", name, old,
                                    display_url(self.url))
                    break

    # --- the connection ----------------------------------------------------------------------

    def _connect(self):
        conn = connect(self.url)
        try:
            with pg_errors(self.label):
                ensure_schema(conn)
                ensure_tables(conn, "terrabank.hosted_games", _SCHEMA_LOCK, _TABLE)
        except BaseException:
            conn.close()
            raise
        return conn

    @contextmanager
    def _connection(self):
        """The registry's one connection, made again after PostgreSQL restarted or the link broke."""
        with self._conn_lock:
            if self._pid != os.getpid():  # a forked worker: the parent's connection is not ours to use or close
                self._conn, self._pid = None, os.getpid()
            if self._conn is None or self._conn.broken or self._conn.closed:
                if self._conn is not None:
                    self._conn.close()
                self._conn = None
                self._conn = self._connect()
            with pg_errors(self.label):
                yield self._conn

    def close(self) -> None:
        with self._conn_lock:
            if self._conn is not None:
                self._conn.close()
                self._conn = None
