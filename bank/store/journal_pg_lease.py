"""A server's lease on its game in PostgreSQL: the hold that outlives a database restart.

The hold (bank/store/journal_pg_hold.py) is an advisory lock, and PostgreSQL forgets every
lock when it restarts: for the second or two before the servers' watchers take their holds
back, the game looked free, and a tight loop of `init --force` got in under four running
servers (it succeeded on its 35th try). The fence kept the old game whole, but every server
then refused everything until restarted.

So a server also writes a *lease*: a row saying "this holder holds this game until T", T a
minute ahead on the database's own clock, renewed every few seconds by the hold's watcher
and again the moment it takes the hold back. A row survives the restart; the lock does not.
Every taker of the hold (a server, `init`, `migrate`) is refused while another holder's lease
on the game is live, whatever the folder's permissions (the file lock beside --db is skipped
in a read-only folder). A lease is live until T, except that one written since PostgreSQL's
last start whose session is gone is dead at once: its server stopped or was killed, nobody is
waiting for the database to come back. A clean stop deletes its lease.
"""

from __future__ import annotations

from bank.store.journal_pg_schema import ensure_tables

LEASE_SECONDS = 60  # how long a lease outlives its last renewal: longer than a restart of PostgreSQL
RENEW_SECONDS = 5.0  # how often the hold's watcher renews it
_SCHEMA_LOCK = -4  # second key, under the journal's LOCK_SPACE, while the table is made (access -1, Trias -2, hosted -3)

_TABLE = """
CREATE TABLE IF NOT EXISTS terrabank.hold_leases(
    game TEXT NOT NULL,          -- the game's name: the hold is on the name (init --force gives it a new number)
    holder TEXT NOT NULL,        -- one hold of one process (a random token)
    who TEXT NOT NULL,           -- the holder as its connection names itself, for the refusal's sentence
    shared BOOLEAN NOT NULL,     -- a server hearing the others through a queue
    backend INTEGER NOT NULL,    -- the session holding the lock when the lease was written
    postmaster TIMESTAMPTZ NOT NULL,  -- PostgreSQL's start then: a restart since makes the session's end no proof
    until TIMESTAMPTZ NOT NULL,
    PRIMARY KEY (game, holder));
"""

# Live: not expired, and either PostgreSQL restarted since it was written (its holder may be waiting to
# take the hold back) or the session that wrote it is still there.
_LIVE = ("l.until > clock_timestamp() AND (l.postmaster <> pg_postmaster_start_time() "
         "OR EXISTS (SELECT 1 FROM pg_stat_activity a WHERE a.pid = l.backend))")


def ensure(conn) -> None:
    ensure_tables(conn, "terrabank.hold_leases", _SCHEMA_LOCK, _TABLE)


def blocking(conn, game: str, holder: str, shared: bool) -> str | None:
    """Who holds a live lease on `game` that keeps `holder` out (anyone's keeps an exclusive taker out;
    only an exclusive holder's keeps a server with a queue out), with how long it runs; None if free."""
    row = conn.execute(f"SELECT l.who, ceil(extract(epoch FROM l.until - clock_timestamp()))::int "
                       f"FROM terrabank.hold_leases l WHERE l.game = %s AND l.holder <> %s AND {_LIVE}"
                       + (" AND NOT l.shared" if shared else "") + " ORDER BY l.until DESC LIMIT 1",
                       (game, holder)).fetchone()
    if row is None:
        return None
    # The holder may be gone for good (killed while PostgreSQL restarted): its name alone sent the operator
    # looking for a process that no longer exists. What ends the wait then is the lease's own end.
    return (f"{row[0]}, whose lease on the game runs {row[1]} s more: it takes the game back as soon as "
            f"the database answers; if that process is gone, wait {row[1]} s")


def renew(conn, game: str, holder: str, who: str, shared: bool) -> None:
    """Write or extend this holder's lease, from this session (its backend) on."""
    conn.execute("INSERT INTO terrabank.hold_leases AS l(game, holder, who, shared, backend, postmaster, until) "
                 "VALUES (%s, %s, %s, %s, pg_backend_pid(), pg_postmaster_start_time(), clock_timestamp() + "
                 "make_interval(secs => %s)) ON CONFLICT (game, holder) DO UPDATE SET backend = EXCLUDED.backend, "
                 "postmaster = EXCLUDED.postmaster, until = EXCLUDED.until, who = EXCLUDED.who",
                 (game, holder, who, shared, LEASE_SECONDS))


def end_old_session(conn, game: str, holder: str) -> None:
    """End this holder's own earlier session, if PostgreSQL still keeps it (a network cut: the server side
    has not noticed yet), so that its lock does not refuse the holder its own game. Only that session:
    same backend, same PostgreSQL start, same name; waits up to 2 s for it to end (and let go of its lock)."""
    conn.execute("SELECT pg_terminate_backend(l.backend, 2000) FROM terrabank.hold_leases l JOIN pg_stat_activity a "
                 "ON a.pid = l.backend WHERE l.game = %s AND l.holder = %s AND l.backend <> pg_backend_pid() "
                 "AND l.postmaster = pg_postmaster_start_time() AND a.application_name = left(l.who, 63)",
                 (game, holder))


def release(conn, game: str, holder: str) -> None:
    """A clean stop: the lease goes (and the expired ones of the game with it: nobody waits for them)."""
    conn.execute("DELETE FROM terrabank.hold_leases WHERE game = %s AND (holder = %s OR until < clock_timestamp())",
                 (game, holder))
