"""The game file's neighbours: the lock a running bank holds, and the copy kept before a game is replaced.

`terrabank serve` holds an exclusive lock on `<db>.lock` for its whole life; the
operating system releases it when the process ends, even by SIGKILL or a power
cut, so a lock is never stale. `init` takes the same lock, so it cannot replace a
file a server is still booking into (the server would keep writing to the deleted
file and every acknowledged command after that would be lost).
"""

from __future__ import annotations

import os
import shutil
import sqlite3
import time
from pathlib import Path

from bank.errors import BankError
from bank.store.journal import storage_errors

try:
    import fcntl
except ImportError:  # Windows: no flock, but msvcrt can lock a byte of the file
    fcntl = None
    import msvcrt

STOP_HINT = ("stop it first (Ctrl+C in its window, or: sudo systemctl stop terrabank; several processes: sudo "
             "systemctl stop 'terrabank@*')")


def lock_path(db) -> Path:
    """Where the running bank's lock lives: beside the game file (the real one: a symlink to a
    served game must meet the same lock)."""
    return Path(f"{Path(db).resolve()}.lock")


class GameLock:
    """An exclusive hold on a game file; released by close() or when the process ends."""

    def __init__(self, fd: int | None):
        self.fd = fd

    def close(self) -> None:
        """Let go of the game file (closing the descriptor releases the lock)."""
        if self.fd is not None:
            os.close(self.fd)
            self.fd = None

    def __enter__(self) -> "GameLock":
        return self

    def __exit__(self, *exc) -> None:
        self.close()


def _try_lock(fd: int, shared: bool = False) -> bool:
    try:
        if fcntl is not None:
            fcntl.flock(fd, (fcntl.LOCK_SH if shared else fcntl.LOCK_EX) | fcntl.LOCK_NB)
        else:
            msvcrt.locking(fd, msvcrt.LK_NBLCK, 1)
    except OSError:
        return False
    return True


def _holder(path: Path) -> str:
    """Who holds the lock, as its holder wrote it ("terrabank serve, process 1234"), or ""."""
    try:
        return path.read_text(encoding="utf-8", errors="replace").strip()[:80]
    except OSError:
        return ""


def hold(db, who: str, shared: bool = False) -> GameLock:
    """Take the game file for `who` ("terrabank serve"), or BankError("bank_running") if someone has it.

    `shared`: several servers of one game that hear each other through a queue each
    hold it shared; `init` and a server without a queue still need it alone, so they are refused
    while any of those runs, and those are refused while one of them runs."""
    path = lock_path(db)
    try:
        fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
    except OSError:
        # A folder we cannot write cannot hold a game a server could book into either;
        # the database checks say so with their own sentence.
        return GameLock(None)
    if not _try_lock(fd, shared):
        os.close(fd)
        holder = _holder(path) or "another terrabank process"
        raise BankError("bank_running", f"the bank is already running on {db} ({holder}): {STOP_HINT}, then run this "
                        "command again; nothing was changed", path=str(db))
    try:
        if not shared:  # several holders would overwrite each other's note: keep the first one's
            os.ftruncate(fd, 0)
        elif os.fstat(fd).st_size:
            return GameLock(fd)
        os.write(fd, f"{who}, process {os.getpid()}\n".encode())
    except OSError:
        pass  # the note is only a courtesy for the next refusal's sentence
    return GameLock(fd)


def _private_file(path: Path) -> int:
    """A new file only its owner can read (0600), refusing to reuse an existing one."""
    return os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)


def _backup_name(db: Path) -> Path:
    """terrabank.db -> terrabank-20250614-091500.db beside it (-2, -3... if taken the same second)."""
    stamp = time.strftime("%Y%m%d-%H%M%S")
    for n in range(1, 100):
        candidate = db.with_name(f"{db.stem}-{stamp}{'' if n == 1 else f'-{n}'}{db.suffix}")
        if not candidate.exists():
            return candidate
    raise BankError("backup_failed", f"too many copies of {db} this second; try again in a second")


def backup(db) -> Path:
    """A 0600 copy of the game beside it, made with SQLite's backup (the -wal is included).

    A file SQLite cannot read (damaged, or not a game at all) is copied byte for byte
    instead, with its -wal, so nothing is lost that a person could still rescue.
    """
    db = Path(db)
    target = _backup_name(db)
    try:
        os.close(_private_file(target))
        try:
            _sqlite_copy(db, target)
        except sqlite3.Error:
            _raw_copy(db, target)
    except OSError as exc:
        for leftover in (target, Path(f"{target}-wal")):
            leftover.unlink(missing_ok=True)
        raise BankError("backup_failed", f"could not keep a copy of {db} as {target} ({exc.strerror or exc}); "
                        "free some space or make the folder writable; nothing was changed", path=str(db)) from None
    return target


def _sqlite_copy(db: Path, target: Path) -> None:
    source = sqlite3.connect(_read_only_uri(db), uri=True)
    try:
        copy = sqlite3.connect(target)
        try:
            source.backup(copy)
            # One self-contained file, without -wal and -shm to lose when it is moved or mailed.
            copy.execute("PRAGMA journal_mode=DELETE")
        finally:
            copy.close()
    finally:
        source.close()


def _raw_copy(db: Path, target: Path) -> None:
    for suffix in ("", "-wal"):
        src = Path(f"{db}{suffix}")
        if not src.exists():
            continue
        dst = Path(f"{target}{suffix}")
        with open(src, "rb") as old, open(_private_file(dst) if suffix else dst, "wb") as new:
            shutil.copyfileobj(old, new)


def _count(conn: sqlite3.Connection, sql: str) -> int | None:
    try:
        return conn.execute(sql).fetchone()[0]
    except sqlite3.Error:
        return None  # a table the old game never had


def contents(db) -> dict | None:
    """What a game file holds, counted read-only: commands booked, accounts, team links; None if unreadable."""
    try:
        conn = sqlite3.connect(_read_only_uri(db), uri=True)
    except sqlite3.Error:
        return None
    try:
        commands = _count(conn, "SELECT COUNT(*) FROM journal WHERE type NOT IN ('setup', 'tick')")
        if commands is None:
            return None
        return {"commands": commands,
                "accounts": _count(conn, "SELECT COUNT(*) FROM facilitators") or 0,
                "links": _count(conn, "SELECT COUNT(*) FROM team_tokens") or 0}
    finally:
        conn.close()


def _rows(db, sql: str) -> list:
    conn = sqlite3.connect(_read_only_uri(db), uri=True)
    try:
        return conn.execute(sql).fetchall()
    except sqlite3.Error:
        return []
    finally:
        conn.close()


def carry_over(old, new, teams, *, links: bool) -> tuple[int, int]:
    """Copy the facilitator accounts (and, if `links`, the links of teams still in the game) from old to new.

    Returns (accounts, links) copied.
    """
    from bank.store.accounts.access import Access  # the tables' owner creates them

    accounts = _rows(old, "SELECT username, password_hash, role, created_at FROM facilitators")
    tokens = [row for row in _rows(old, "SELECT team, token, rotated_at FROM team_tokens") if row[0] in teams] \
        if links else []
    access = Access(new)
    try:
        with storage_errors(new):
            access.conn.execute("BEGIN IMMEDIATE")  # all or nothing: no game with half its accounts
            try:
                access.conn.executemany("INSERT OR REPLACE INTO facilitators VALUES (?, ?, ?, ?)", accounts)
                access.conn.executemany("INSERT OR REPLACE INTO team_tokens VALUES (?, ?, ?)", tokens)
            except BaseException:
                access.conn.execute("ROLLBACK")
                raise
            access.conn.execute("COMMIT")
    finally:
        access.close()
    return len(accounts), len(tokens)


def _read_only_uri(db) -> str:
    """A read-only SQLite URI for `db`, its path quoted: a '#' or '?' in a folder name
    would otherwise cut the path and open (and create) another, empty file."""
    return Path(db).resolve().as_uri() + "?mode=ro"
