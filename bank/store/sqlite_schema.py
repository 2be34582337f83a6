"""The SQLite game file's tables: made with a new game, and brought up to date on open.

A game file made by an earlier Terrabank keeps working: the tables and columns added since
are created on open (its chain computed once from its rows), inside one transaction.
"""

from __future__ import annotations

import sqlite3

from bank.store import chain

SCHEMA_VERSION = "1"

SCHEMA = """
CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE journal(
    seq INTEGER PRIMARY KEY,
    command_id TEXT NOT NULL UNIQUE,
    fingerprint TEXT NOT NULL,
    type TEXT NOT NULL,
    actor TEXT,
    at REAL NOT NULL,
    command TEXT NOT NULL,
    events TEXT NOT NULL
);
CREATE TABLE snapshots(seq INTEGER PRIMARY KEY, state TEXT NOT NULL);
"""

# Added after the first games were made, so created on open when missing.
_ADDED = """
CREATE TABLE IF NOT EXISTS chain(seq INTEGER PRIMARY KEY, hash TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS clock_checkpoint(
    id INTEGER PRIMARY KEY CHECK (id = 1), timeline REAL NOT NULL, wall REAL NOT NULL, seq INTEGER, head TEXT);
CREATE TABLE IF NOT EXISTS chain_snapshot(seq INTEGER PRIMARY KEY, seal TEXT NOT NULL, hash TEXT NOT NULL);
"""
# The checkpoint's record of the last row written (bank/store/chain.py), added to a table
# that may already exist; NULL until the next row or heartbeat, so an older file opens as before.
_TIP_COLUMNS = ("ALTER TABLE clock_checkpoint ADD COLUMN seq INTEGER", "ALTER TABLE clock_checkpoint ADD COLUMN head TEXT")
_UP_TO_DATE = ("SELECT (SELECT COUNT(*) FROM sqlite_master WHERE type = 'table' AND name IN "
               "('chain', 'clock_checkpoint', 'chain_snapshot')) = 3 AND "
               "EXISTS (SELECT 1 FROM pragma_table_info('clock_checkpoint') WHERE name = 'head')")

# The ledger is corrected by new entries, never by editing old ones: the
# database itself refuses UPDATE and DELETE so no code path can rewrite history.
_TRIGGER = """
CREATE TRIGGER IF NOT EXISTS {table}_no_{verb} BEFORE {op} ON {table}
BEGIN SELECT RAISE(ABORT, '{table} rows are append-only: add a correcting entry instead'); END;
"""
_APPEND_ONLY = ("journal", "snapshots", "meta", "chain", "chain_snapshot")

# The chain's head: the last row's hash, or its snapshot's binding when one stands there (bank/store/chain.py).
HEAD = ("SELECT COALESCE(b.hash, c.hash) FROM chain c LEFT JOIN chain_snapshot b ON b.seq = c.seq "
        "ORDER BY c.seq DESC LIMIT 1")
# The time line's checkpoint, with the last row written and its head, in the statement that saves it:
# no statement more per command, and in the row's transaction, so it never runs ahead of it.
SAVE_CHECKPOINT = ("INSERT OR REPLACE INTO clock_checkpoint(id, timeline, wall, seq, head) "
                   f"VALUES (1, ?, ?, (SELECT MAX(seq) FROM chain), ({HEAD}))")
# The same inside the row's transaction, where the journal knows the tip it just wrote (a stale one, from an
# earlier transaction, only lags: the check flags a checkpoint ahead of the journal, never one behind).
SAVE_CHECKPOINT_AT = "INSERT OR REPLACE INTO clock_checkpoint(id, timeline, wall, seq, head) VALUES (1, ?, ?, ?, ?)"


def create(conn: sqlite3.Connection) -> None:
    """Inside a transaction: every table and trigger of a new game."""
    for stmt in SCHEMA.split(";"):
        if stmt.strip():
            conn.execute(stmt)
    add_later_tables(conn)


def up_to_date(conn: sqlite3.Connection) -> bool:
    """Whether the file has every table and column added since the first version."""
    return bool(conn.execute(_UP_TO_DATE).fetchone()[0])


def has_table(conn: sqlite3.Connection, name: str) -> bool:
    return conn.execute("SELECT 1 FROM sqlite_master WHERE type='table' AND name=?", (name,)).fetchone() is not None


def add_later_tables(conn: sqlite3.Connection) -> None:
    """Inside a transaction: the tables and columns added since the first version, their
    append-only triggers, and the chain of rows written before it existed."""
    for stmt in _ADDED.split(";"):
        if stmt.strip():
            conn.execute(stmt)
    if not conn.execute("SELECT 1 FROM pragma_table_info('clock_checkpoint') WHERE name = 'head'").fetchone():
        for stmt in _TIP_COLUMNS:
            conn.execute(stmt)
    for table in _APPEND_ONLY:
        for verb, op in (("update", "UPDATE"), ("delete", "DELETE")):
            conn.execute(_TRIGGER.format(table=table, verb=verb, op=op))
    # Only a game from before the chain gets one computed; the meta row says the chain
    # exists, so dropping its tables by hand cannot make the bank rebuild a clean one.
    if conn.execute("SELECT 1 FROM meta WHERE key='chain'").fetchone() is None:
        rows = conn.execute(f"{chain.SELECT_ROWS} ORDER BY seq").fetchall()
        conn.executemany("INSERT INTO chain(seq, hash) VALUES (?, ?)", chain.replay(rows))
        conn.execute("INSERT INTO meta(key, value) VALUES ('chain', '1')")


def checkpoint_tip(conn: sqlite3.Connection) -> tuple[int | None, str | None] | None:
    """(seq, head) of the last row the checkpoint saw written; None when there is none to compare
    (no checkpoint yet, or a file opened read-only that has not gained the columns)."""
    try:
        return conn.execute("SELECT seq, head FROM clock_checkpoint WHERE id = 1").fetchone()
    except sqlite3.OperationalError:  # no such column: a file from before the checkpoint's tip, read as it is
        return None
