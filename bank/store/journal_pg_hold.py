"""A running server's hold on its game in PostgreSQL, seen from every host (issue 15).

On one host `gamefile.hold` locks a file beside the game: a second server, or an
`init --force`, is refused while a server runs. A game in PostgreSQL may be served from
several hosts, and a file lock on one of them is not seen on the others: an
`init --force` there would rename the game under a running server, which would go on
booking the phones' commands into the old game while the facilitators start the new one.

So the hold is also taken in the database: a session-level advisory lock on the game's
name, on a connection the process keeps open for its whole life. Servers that hear each
other through a queue hold it shared; `init` and a server without a queue need it alone.
PostgreSQL lets it go when the connection ends: the process stopped, was killed, or its
host vanished (the connection asks the server to probe it every 10 s, so a dead host
frees the game within about a minute). A server whose connection to PostgreSQL is cut
loses the hold with it; its commands fail meanwhile, with their own sentence.
"""

from __future__ import annotations

import os
import socket
import zlib

from bank.errors import BankError
from bank.store.gamefile import STOP_HINT
from bank.store.journal_pg_connect import connect, display_url, pg_errors

HOLD_LOCK_SPACE = 0x7448  # first key ("tH") of a running server's hold; the second is a hash of the game's name


def lock_key(game: str) -> int:
    """The hold's second key: by name, not number, since `init --force` gives the name a new game number.
    Two names with the same hash (one chance in four billion) would only refuse each other's init."""
    return zlib.crc32(game.encode()) - 2**31  # a signed 32-bit number


class DatabaseHold:
    """The connection that holds the lock; close() (or the process ending) lets go."""

    def __init__(self, conn):
        self.conn = conn

    def close(self) -> None:
        self.conn.close()

    def __enter__(self) -> "DatabaseHold":
        return self

    def __exit__(self, *exc) -> None:
        self.close()


def hold(url: str, game: str, who: str, shared: bool = False) -> DatabaseHold:
    """Hold game `game` of the database at `url` for `who`, or BankError("bank_running") naming the holder."""
    where = f"game {game!r} in {display_url(url)}"
    conn = connect(url)
    try:
        with pg_errors(where):
            # Seen by the next one refused (pg_stat_activity), so its sentence can say who holds the game.
            name = f"{who} on {socket.gethostname()}, process {os.getpid()}"
            conn.execute("SELECT set_config('application_name', %s, false)", (name[:63],))
            for setting, seconds in (("tcp_keepalives_idle", 10), ("tcp_keepalives_interval", 10),
                                     ("tcp_keepalives_count", 4)):
                conn.execute("SELECT set_config(%s, %s, false)", (setting, str(seconds)))
            take = "pg_try_advisory_lock_shared" if shared else "pg_try_advisory_lock"
            got = conn.execute(f"SELECT {take}(%s, %s)", (HOLD_LOCK_SPACE, lock_key(game))).fetchone()[0]
            holder = None if got else _holder(conn, game)
    except BaseException:
        conn.close()
        raise
    if not got:
        conn.close()
        raise BankError("bank_running", f"the bank is already running on {where} ({holder}): {STOP_HINT} on "
                        "that machine, then run this command again; nothing was changed", path=game)
    return DatabaseHold(conn)


def _holder(conn, game: str) -> str:
    """Who holds the game, as its connection named itself; a plain phrase when it cannot be seen."""
    row = conn.execute(
        "SELECT a.application_name FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid "
        "WHERE l.locktype = 'advisory' AND l.granted AND l.classid::bigint = %s AND l.objid::bigint = %s "
        "AND l.objsubid = 2 AND l.pid <> pg_backend_pid() LIMIT 1",
        (HOLD_LOCK_SPACE, lock_key(game) & 0xFFFFFFFF)).fetchone()
    return row[0] if row and row[0] else "another terrabank process"
