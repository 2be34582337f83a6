"""What can go wrong with the game file, said so a facilitator can act on it.

SQLite's errors (full disk, read-only card, damaged file, another program holding
it) become a StorageError with a sentence and a code the pages translate; the game
file is kept readable by its owner only. No rules, no journal logic.
"""

from __future__ import annotations

import os
import sqlite3
import stat
from contextlib import contextmanager
from pathlib import Path
from urllib.parse import urlsplit

from bank.errors import BankError


class StorageError(BankError):
    """The database cannot be used: missing, damaged, read-only, full or foreign."""


def backup_hint(path) -> str:
    """The sentence that tells where a backup should be and how it is restored."""
    p = Path(path)
    backup = p.with_name(f"{p.stem}-backup{p.suffix or '.db'}")
    # A restore is the way back from a damaged file, and it loses what was booked after the copy:
    # say so, and where those commands are, so nobody restores without knowing.
    return (f"Stop the bank and restore your backup copy (e.g. {backup}, made with "
            f'sqlite3 {p.name} ".backup {backup.name}"); commands booked after that copy are not in it: '
            'book them again from the paper ledger. See "Backup and restore" in README.md.')


# (SQLite error names, words of its message) -> our code and what to tell the user.
_KNOWN_FAILURES = [
    (("SQLITE_NOTADB", "SQLITE_CORRUPT"), ("malformed", "not a database"), "database_corrupt",
     "The database {path} is damaged ({detail}). {backup}"),
    (("SQLITE_READONLY",), ("readonly",), "database_read_only",
     "The database {path} cannot be written (read-only file, folder or disk): make it "
     "writable again (file permissions, a disk mounted read-only) and retry; nothing was "
     "recorded."),
    (("SQLITE_FULL",), ("disk is full",), "disk_full",
     "The disk holding {path} is full: free some space and retry; nothing was recorded."),
    (("SQLITE_BUSY", "SQLITE_LOCKED"), ("locked",), "database_busy",
     "The database {path} is held by another program: close it and retry."),
    (("SQLITE_CANTOPEN",), ("unable to open",), "database_unreachable",
     "Cannot open {path}: check that its folder exists and is readable."),
]


def _translate(exc: sqlite3.Error, path) -> StorageError:
    """Turn an sqlite3 exception into a StorageError a facilitator can act on."""
    name, detail = getattr(exc, "sqlite_errorname", "") or "", str(exc)
    for names, words, code, template in _KNOWN_FAILURES:
        if name.startswith(names) or any(word in detail for word in words):
            break
    else:
        code, template = "storage_failed", "The database {path} failed: {detail}."
    if code == "storage_failed" and name.startswith("SQLITE_IOERR") and not has_room(path):
        # Opened on a full disk, SQLite cannot size its -shm file: "disk I/O error" (SQLITE_IOERR_SHMSIZE), which
        # `serve` said as such, as if the card were failing; the way out is to free some space.
        return known_failure("disk_full", path, detail)
    if code == "database_unreachable" and Path(path).is_file() and not writable(path):
        # WAL needs its -shm file beside the database: on a read-only disk SQLite says
        # "unable to open", but the way out is to make the disk writable again.
        return known_failure("database_read_only", path, detail)
    message = template.format(path=path, detail=detail, backup=backup_hint(path))
    return StorageError(code, message, path=str(path), detail=detail)


def known_failure(code: str, path, detail: str = "") -> StorageError:
    """The StorageError of the table above for a problem found by a check, not raised by SQLite."""
    template = next(t for _, _, c, t in _KNOWN_FAILURES if c == code)
    message = template.format(path=path, detail=detail, backup=backup_hint(path))
    return StorageError(code, message, path=str(path), detail=detail)


ROOM = 256 * 1024  # free bytes under which a disk is full for the bank: a booking writes a few pages


def has_room(path) -> bool:
    """Whether the disk holding `path` has ROOM free (True when it cannot be asked: no claim of a full disk)."""
    try:
        disk = os.statvfs(Path(path).resolve().parent)
    except OSError:
        return True
    return disk.f_bavail * disk.f_frsize >= ROOM


def writable(path) -> bool:
    """Whether the database and its folder (for -wal, -shm) can be written; False on a
    read-only disk even for root, who ignores permission bits."""
    p = Path(path).resolve()
    return os.access(p, os.W_OK) and os.access(p.parent, os.W_OK)


@contextmanager
def storage_errors(path):
    """Re-raise any sqlite3 error as a StorageError (no SQLite traceback for users)."""
    try:
        yield
    except sqlite3.Error as exc:
        raise _translate(exc, path) from exc


def private_file(path) -> None:
    """Make an existing file readable by its owner only (password hashes, team tokens)."""
    try:
        if os.stat(path).st_mode & 0o077:
            os.chmod(path, stat.S_IRUSR | stat.S_IWUSR)
    except OSError:
        pass  # not ours to change (another owner, a read-only disk): the bank still runs


def private_folder(path, tighten: bool = True) -> Path:
    """Make `path` (and missing parents) a folder its owner alone may enter (0700): team stock, secrets.

    `tighten`: also narrow a folder that already exists wider (one the bank names and owns, e.g. the
    paper state's); False for a folder the user chose (only a new one is made 0700)."""
    path = Path(path)
    path.mkdir(mode=0o700, parents=True, exist_ok=True)
    if tighten:
        try:
            if os.stat(path).st_mode & 0o077:
                os.chmod(path, stat.S_IRWXU)
        except OSError:
            pass  # not ours to change: the files in it are still 0600
    return path


def display_url(url: str) -> str:
    """host/database of a URL, for messages (never the password)."""
    parts = urlsplit(url)
    host = parts.hostname or "local socket"
    try:
        port = f":{parts.port}" if parts.port else ""
    except ValueError:  # a port that is not a number: psycopg says so when connecting
        port = ""
    return f"PostgreSQL {host}{port}{parts.path or '/'}"
