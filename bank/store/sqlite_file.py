"""The SQLite file itself: opened with the bank's PRAGMAs, removed and moved in place with its companions.

Split from bank/store/journal.py so the journal module holds the journal's rows,
chain and snapshots, and stays readable; journal.py re-exports these names.
"""

from __future__ import annotations

import os
import sqlite3
import threading
import time
from pathlib import Path

# Test-only: with this set to a file's path, every SQL statement the store's connections run is
# appended there, one line each ("<time>\t<thread>\t<statement>"), so a test can count what a served process
# runs. Read once per connection opened; unset (always, outside tests) it costs nothing.
TRACE_ENV = "TERRABANK_SQL_TRACE"
_TRACE_LOCK = threading.Lock()


def _connect(path, mode: str) -> sqlite3.Connection:
    """Open `path` in URI mode `mode` ("rw", "rwc", "ro") with the bank's PRAGMAs."""
    uri = Path(path).resolve().as_uri() + f"?mode={mode}"
    # isolation_level=None: we issue BEGIN IMMEDIATE/COMMIT ourselves.
    # check_same_thread=False: the Bank serialises access with its own lock.
    conn = traced(sqlite3.connect(uri, uri=True, isolation_level=None, check_same_thread=False))
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


def traced(conn):
    """`conn`, its statements written to TERRABANK_SQL_TRACE's file when that is set (tests only).

    The statements are SQLite's expanded text, parameters included: a trace file holds secrets; it is a
    test's temporary file, never a game's."""
    target = os.environ.get(TRACE_ENV)
    if target:
        def note(sql: str) -> None:
            line = f"{time.time():.3f}\t{threading.current_thread().name}\t{' '.join(sql.split())[:100]}\n"
            with _TRACE_LOCK, open(target, "a", encoding="utf-8") as out:
                out.write(line)
        conn.set_trace_callback(note)
    return conn


def sessions_generation_file(path) -> str:
    """The game's session generation file (bank/store/accounts/sessions.py `generation_file`, which
    calls this): it lives and dies with the game file, so it is named here beside its companions."""
    return os.path.realpath(path) + "-sessions"


def remove_database(path) -> None:
    """Delete a database file, its WAL/SHM companions and its sessions generation file (init --force)."""
    # A stale -wal left beside a new file would be replayed into it: remove all three. The generation
    # file goes too (taken before the game file, whose realpath names it): a removed game leaves nothing.
    for name in (sessions_generation_file(path), *(f"{path}{suffix}" for suffix in ("", "-wal", "-shm"))):
        try:
            os.remove(name)
        except FileNotFoundError:
            pass


def move_database(src, dst) -> None:
    """Put a finished database file in place of `dst` (and its companions), durably."""
    remove_database(dst)
    src_generation = sessions_generation_file(src)
    os.replace(src, dst)
    try:  # the generation moves with its game (the replaced game's went with remove_database)
        os.replace(src_generation, sessions_generation_file(dst))
    except FileNotFoundError:
        pass
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
