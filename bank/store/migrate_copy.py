"""The copy behind `terrabank migrate` (bank/services/migrate.py): a game file's rows into PostgreSQL, verbatim.

Rows are copied as the text the file holds, not decoded and encoded again, so the
bytes the hash chain covers are the same; each row's link is computed the way
bank/store/journal_pg.py computes it on append and must equal the link stored in the file.
Everything goes in ONE transaction (COPY for the journal, chain and snapshots): a
failure anywhere, a crash, a lost connection, leaves no row in the database.
"""

from __future__ import annotations

import sqlite3
import time
from dataclasses import dataclass
from pathlib import Path

from bank.store import chain, sqlite_schema
from bank.errors import BankError
from bank.store.journal import canonical_json, storage_errors
from bank.store.journal_pg import row_bytes
from bank.store.journal_pg_connect import connect, pg_errors, psycopg_module, short_connection
from bank.store.journal_pg_schema import ensure_schema
from bank.store.storage_url import PostgresTarget, display_url

_COLUMNS = "seq, command_id, fingerprint, type, actor, at, command, events"


@dataclass(frozen=True)
class Copied:
    entries: int
    snapshots: int


def target_exists(target: PostgresTarget) -> BankError:
    return BankError("migrate_target_exists", f"A game named {target.game!r} already exists in "
                     f"{display_url(target.url)}: choose another name with --game (e.g. --game "
                     f"{target.game}-pi); nothing was copied.", game=target.game)


def copy_game(db: Path, built: PostgresTarget, head: tuple[int, str]) -> Copied:
    """Copy the file's game into a new game named `built.game`; it must end on `head` (seq, hash)."""
    with storage_errors(db):
        source = sqlite3.connect(db.resolve().as_uri() + "?mode=ro", uri=True, isolation_level=None)
    try:
        with storage_errors(db):
            source.execute("BEGIN")  # every read below sees one moment of the file
        conn = connect(built.url, patient=True)  # one transaction for the whole copy: no session limits
        try:
            with pg_errors(display_url(built.url)):
                ensure_schema(conn)
                with conn.transaction():
                    game = conn.execute("INSERT INTO terrabank.games(name, created_at) VALUES (%s, %s) RETURNING id",
                                        (built.game, time.time())).fetchone()[0]
                    with storage_errors(db):
                        _copy_meta(source, conn, game, db, head)
                        entries = _copy_journal(source, conn, game, db, head)
                        snapshots = _copy_snapshots(source, conn, game, db)
                        _copy_checkpoint(source, conn, game)
        finally:
            conn.close()
    finally:
        source.close()
    return Copied(entries, snapshots)


def put_in_place(built: PostgresTarget, target: PostgresTarget) -> None:
    """Give the checked copy its name; refused (UNIQUE) if a game took that name meanwhile."""
    psycopg = psycopg_module()
    with short_connection(built.url) as conn:
        try:
            with conn.transaction():
                conn.execute("UPDATE terrabank.games SET name = %s WHERE name = %s", (target.game, built.game))
        except psycopg.errors.UniqueViolation:
            raise target_exists(target) from None


def _no_nul(text, what: str, db) -> None:
    """PostgreSQL's TEXT cannot hold a NUL character; SQLite's can."""
    if text is not None and "\x00" in text:
        raise BankError("migrate_nul_character", f"{what} in {db} holds a NUL character, which PostgreSQL "
                        "cannot store: this game cannot be moved (it stays playable in its file); nothing was "
                        "copied.", path=str(db))


def _copy_meta(source, conn, game: int, db, head) -> None:
    meta = dict(source.execute("SELECT key, value FROM meta").fetchall())
    # Where the game came from: read by a person, never by the bank (the chain's seed does not cover it).
    meta["moved_from"] = canonical_json({"file": str(Path(db).resolve()), "at": time.time(),
                                         "entry": head[0], "chain_head": head[1]})
    for key, value in meta.items():
        _no_nul(value, f"The meta value {key!r}", db)
    with conn.cursor() as cur:
        cur.executemany("INSERT INTO terrabank.meta(game, key, value) VALUES (%s, %s, %s)",
                        [(game, key, value) for key, value in meta.items()])


def _copy_journal(source, conn, game: int, db, head) -> int:
    """The rows as the file holds them, each link recomputed over PostgreSQL's bytes and checked
    against the file's chain: a row that would hash differently there stops the copy."""
    stored = dict(source.execute("SELECT seq, hash FROM chain").fetchall())
    # The snapshots the chain binds (bank/store/chain.py): the next row links to the binding, copied as it is.
    bound = {seq: (seal, head) for seq, seal, head in source.execute("SELECT seq, seal, hash FROM chain_snapshot")}
    made = dict(source.execute("SELECT key, value FROM meta").fetchall())  # copied as it is: its seed too
    links, previous, seq = [], chain.start_of(made.get), 0
    with conn.cursor() as cur, cur.copy(f"COPY terrabank.journal(game, {_COLUMNS}) FROM STDIN") as copy:
        for seq, command_id, fingerprint, type_, actor, at, command, events in \
                source.execute(f"SELECT {_COLUMNS} FROM journal ORDER BY seq"):
            texts = (command_id, fingerprint, type_, actor, command, events)
            for text in texts:
                _no_nul(text, f"Journal entry {seq}", db)
            previous = chain.link(previous, seq, float(at), row_bytes(texts))
            if stored.get(seq) != previous:
                raise BankError("migrate_copy_differs", f"Journal entry {seq} of {db} would not hash the same in "
                                "PostgreSQL (its text is not what its chain covers): nothing was copied; run "
                                f"`terrabank --db {db} verify` where it was played.", path=str(db))
            copy.write_row((game, seq, command_id, fingerprint, type_, actor, float(at), command, events))
            links.append((game, seq, previous))
            if seq in bound:
                previous = chain.bind(previous, seq, bound[seq][0])
    if (seq, previous) != tuple(head):
        raise BankError("migrate_copy_differs", f"{db} changed while it was copied (its last entry is now {seq}, "
                        f"it was {head[0]}): nothing was copied; stop whatever writes to it and run migrate "
                        "again.", path=str(db))
    with conn.cursor() as cur, cur.copy("COPY terrabank.chain(game, seq, hash) FROM STDIN") as copy:
        for link in links:
            copy.write_row(link)
    with conn.cursor() as cur, cur.copy("COPY terrabank.chain_snapshot(game, seq, seal, hash) FROM STDIN") as copy:
        for at_seq, (seal, bound_head) in sorted(bound.items()):
            copy.write_row((game, at_seq, seal, bound_head))
    return len(links)


def _copy_snapshots(source, conn, game: int, db) -> int:
    count = 0
    with conn.cursor() as cur, cur.copy("COPY terrabank.snapshots(game, seq, state) FROM STDIN") as copy:
        for seq, state in source.execute("SELECT seq, state FROM snapshots ORDER BY seq"):
            _no_nul(state, f"The snapshot at entry {seq}", db)
            copy.write_row((game, seq, state))
            count += 1
    return count


def _copy_checkpoint(source, conn, game: int) -> None:
    """Where the game's time line stood, so the game resumes where it paused (bank/services/timeline.py)."""
    point = source.execute("SELECT timeline, wall FROM clock_checkpoint WHERE id = 1").fetchone()
    if point is not None:  # with the last row it saw written, which the copy's chain must still reach
        seq, head = sqlite_schema.checkpoint_tip(source) or (None, None)
        conn.execute("INSERT INTO terrabank.clock_checkpoint(game, timeline, wall, seq, head) VALUES (%s, %s, %s, "
                     "%s, %s)", (game, float(point[0]), float(point[1]), seq, head))

