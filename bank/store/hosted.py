"""Which games a host serves beside its own, and where each one's journal is.

`terrabank serve --games FOLDER` serves games under /g/<name>/ (bank/web/serving/hosting.py).
The list of those games follows their journals, as the accounts do (bank/store/accounts):
- the SQLite file (the default): a game is the folder FOLDER/<name>/ holding its game.db,
  its config.toml (a copy of the server's, to edit before the game starts) and its neighbours
  (FolderRegistry, below);
- PostgreSQL (a database URL): a row of terrabank.hosted_games (bank/store/hosted_pg.py), read
  by every process that serves the same host game, so a game created by one is served by all,
  after any restart, on any host, whatever its folder is called.

bank/web/serving/hosting.py chooses the registry by where the host's own game lives. Both answer
the same questions: names(), knows(name), settings(name) (create_app's DB
and CONFIG), hold(name) (the serving process's hold on the game) and creating(name) (a new game's
place, kept only if the block succeeds).
"""

from __future__ import annotations

import re
import shutil
from contextlib import contextmanager
from pathlib import Path

from bank.errors import BankError
from bank.store.storage import private_file, private_folder

NAME = re.compile(r"^[a-z0-9][a-z0-9-]{0,39}$")  # a game's name: its path /g/<name>/, never a file's path
GAME_FILE = "game.db"


def name_taken(name: str) -> BankError:
    return BankError("game_exists", f"there is already a game named {name} on this server: choose another name, "
                     "or open it from the list", name=name)


def too_many(limit: int, remedy: str) -> BankError:
    return BankError("too_many_games", f"this server already holds {limit} games, its limit: {remedy}, or serve "
                     "new games from another server", limit=limit)


class FolderRegistry:
    """The games of a host folder: FOLDER/<name>/game.db, config.toml, game.secret, game-trias/."""

    where = "folder"

    def __init__(self, folder, config_path):
        self.folder, self.config_path = Path(folder), Path(config_path)

    def names(self) -> list[str]:
        if not self.folder.is_dir():
            return []
        return sorted(p.name for p in self.folder.iterdir() if NAME.match(p.name) and (p / GAME_FILE).exists())

    def knows(self, name: str) -> bool:
        return bool(NAME.match(name)) and (self.folder / name / GAME_FILE).exists()

    def settings(self, name: str) -> dict:
        where = self.folder / name
        return {"DB": str(where / GAME_FILE), "CONFIG": str(where / "config.toml")}

    def hold(self, name: str, who: str, shared: bool):
        """The game file's lock (gamefile.hold): a `serve --db FOLDER/<name>/game.db` is refused meanwhile."""
        from bank.store import gamefile

        return gamefile.hold(self.folder / name / GAME_FILE, who, shared=shared)

    @contextmanager
    def creating(self, name: str, limit: int):
        """FOLDER/<name>/ with the server's config.toml, for the block to create the game in; removed if it fails."""
        where = self.folder / name
        if where.exists():
            raise name_taken(name)
        if len(self.names()) >= limit:
            raise too_many(limit, "remove a finished game's folder")
        where.mkdir(mode=0o700, parents=True)  # its game file, secret key, lead's paper state: its owner's alone
        private_folder(where)  # and 0700 whatever the umask did to the mode asked
        try:
            shutil.copyfile(self.config_path, where / "config.toml")
            private_file(where / "config.toml")  # the Wi-Fi password
            yield self.settings(name)
        except BaseException:
            shutil.rmtree(where, ignore_errors=True)  # no half-made game left in the list
            raise

    def close(self) -> None:
        pass
