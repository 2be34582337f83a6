"""The one folder the bank writes its own files to: the state sheets, the phones'
address, the first lead password.

By default each goes beside the game file, as always (a Pi's folder holds the game and may be
written). An operator whose code folder is read-only (docs/DEPLOY.md: /srv/terrabank owned by root)
names one folder instead, `TERRABANK_STATE_DIR`, or lets systemd name it: the units set
`StateDirectory=terrabank`, and systemd passes `STATE_DIRECTORY=/var/lib/terrabank`. Every game then
writes under its own name there (`summer-camp-paper/`, `assoc-g-camp-paper/` for a hosted game; see
`game_key`), in
a folder only the bank's user may enter (0700), each secret file 0600.

The bank never makes a symbolic link there, so it refuses one it finds where its own folder or file
goes (`refuse_link`): a `<game>-paper` link planted by whoever could write the folder would send every
team's stock sheets to a folder of their choosing. The folder the operator names may itself be a link
(their choice); what the bank makes inside it may not.

Not here: a game file's own companions (the sessions generation, the lock, the WAL), which live and
move with the SQLite file; a game in PostgreSQL has none of them on disk.
"""

from __future__ import annotations

import errno
import os
import stat
from pathlib import Path

from bank.store.storage import private_folder

ENV_VAR = "TERRABANK_STATE_DIR"
SYSTEMD_VAR = "STATE_DIRECTORY"  # set by systemd from StateDirectory= (several: separated by ':')


def configured() -> Path | None:
    """The folder named by TERRABANK_STATE_DIR, else by systemd's STATE_DIRECTORY; None: beside the game."""
    chosen = os.environ.get(ENV_VAR, "").strip() or os.environ.get(SYSTEMD_VAR, "").split(":")[0].strip()
    return Path(chosen) if chosen else None


def game_key(db) -> str:
    """The game's name as one file name. A name in the database (relative): all of it, `summer-camp`,
    `assoc/g/camp` -> `assoc-g-camp`. A file given by its full path: its folder's name and its own,
    `/var/lib/terrabank/games/camp/game.db` -> `camp-game` (hosted games' files are all `game.db`)."""
    text = str(db).replace("\\", "/")
    text = text[:-3] if text.endswith(".db") else text
    parts = [part for part in text.split("/") if part not in ("", ".", "..")]
    return "-".join(parts[-2:] if text.startswith("/") else parts) or "game"


def path_for(db, suffix: str) -> Path:
    """Where the game at `db` keeps its `suffix` file (`-paper`, `-address.txt`, `-lead-password.txt`)."""
    folder = configured()
    if folder is None:
        db = Path(db)
        return db.with_name(f"{db.stem}{suffix}")
    return folder / f"{game_key(db)}{suffix}"


def ready_folder_for(path: Path) -> Path:
    """Make the folder that will hold `path`: 0700 when it is the state directory (it holds secrets)."""
    folder = configured()
    if folder is not None and path.parent == folder:
        return private_folder(folder, tighten=False)  # a folder the operator chose: only a new one is made 0700
    return path.parent


class LinkRefused(OSError):
    """A symbolic link stands where the bank writes its own file or folder: nothing is written through it."""

    def __init__(self, path: Path):
        super().__init__(errno.ELOOP, "a symbolic link the bank did not make: nothing was written through it; "
                         "remove the link (rm, not rm -r) and the bank makes its own", str(path))


def refuse_link(path) -> Path:
    """`path`, checked: LinkRefused when it is a symbolic link (missing is fine: the bank makes it)."""
    path = Path(path)
    try:
        found = os.lstat(path)
    except FileNotFoundError:
        return path
    if stat.S_ISLNK(found.st_mode):
        raise LinkRefused(path)
    return path


def own_folder(path) -> Path:
    """The bank's own folder at `path` (made 0700 if missing), refused when it is, or becomes, a link."""
    path = refuse_link(path)
    ready_folder_for(path)
    private_folder(path)
    refuse_link(path)  # planted between the check and the mkdir: mkdir accepted the link to a folder
    return path
