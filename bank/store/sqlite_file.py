"""The SQLite file itself: opened with the bank's PRAGMAs, removed and moved in place with its companions.

Split from bank/store/journal.py (issue 23) so the journal module holds the journal's rows,
chain and snapshots, and stays readable; journal.py re-exports these names.
"""

from __future__ import annotations

import os
import sqlite3
from pathlib import Path


def _connect(path, mode: str) -> sqlite3.Connection:
    """Open `path` in URI mode `mode` ("rw", "rwc", "ro") with the bank's PRAGMAs."""
    uri = Path(path).resolve().as_uri() + f"?mode={mode}"
    # isolation_level=None: we issue BEGIN IMMEDIATE/COMMIT ourselves.
    # check_same_thread=False: the Bank serialises access with its own lock.
    conn = sqlite3.connect(uri, uri=True, isolation_level=None, check_same_thread=False)
    try:
        conn.execute("PRAGMA busy_timeout=5000")
        if mode != "ro":
            # WAL: readers never block the writer. FULL: a commit survives a power cut.
            conn.execute("PRAGMA journal_mode=WAL").fetchone()
        conn.execute("PRAGMA synchronous=FULL")
        conn.execute("PRAGMA foreign_keys=ON")
        return conn
    except BaseException:
        conn.close()
        raise



def remove_database(path) -> None:
    """Delete a database file and its WAL/SHM companions (init --force)."""
    # A stale -wal left beside a new file would be replayed into it: remove all three.
    for suffix in ("", "-wal", "-shm"):
        try:
            os.remove(f"{path}{suffix}")
        except FileNotFoundError:
            pass


def move_database(src, dst) -> None:
    """Put a finished database file in place of `dst` (and its companions), durably."""
    remove_database(dst)
    os.replace(src, dst)
    # fsync the folder so a power cut right after `init` cannot undo the rename.
    try:
        fd = os.open(Path(dst).resolve().parent, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass  # some filesystems refuse fsync on a folder; the rename still happened
    finally:
        os.close(fd)
