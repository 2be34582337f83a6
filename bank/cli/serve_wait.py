"""`serve` on a game in PostgreSQL waits for a database that does not answer yet, instead of exiting."""

from __future__ import annotations

import time

from bank.store import storage_url
from bank.web.serving.log_lines import say

WAIT_SECONDS = (2.0, 10.0)  # the first pause and the longest between two tries of a database that does not answer


def wait_for_the_database(db, config, sleep=time.sleep) -> None:
    """A game in PostgreSQL whose database does not answer at start: wait for it, saying so once, and start.

    `serve` exited (status 2) and systemd started it again 2 s later, however long the database was away (its
    host down, or started after this one): half a CPU-second and one more line in the journal at each try, 1,800
    an hour per process. Now one line, a try every WAIT_SECONDS[1] at most, and one line when it answers; a server
    that answers and refuses (a wrong password, no such database) is said and ends `serve` as before."""
    from bank.store.storage import StorageError

    where = storage_url.target(db, config)
    if not isinstance(where, storage_url.PostgresTarget):
        return
    pause, said = WAIT_SECONDS[0], False
    while True:
        try:
            where.exists()
        except StorageError as exc:
            if not _not_answering(exc):
                raise
            if not said:
                say(f"terrabank: {exc.message.removesuffix('; nothing was recorded.')}. Waiting for it: trying again "
                    f"every {WAIT_SECONDS[1]:.0f} s at most (Ctrl+C stops)")
                said = True
            sleep(pause)
            pause = min(pause * 2, WAIT_SECONDS[1])
            continue
        if said:
            say(f"terrabank: the database answers; starting the {where.name}")
        return


# What a PostgreSQL server that answered says when it refuses (libpq's words: psycopg gives no SQLSTATE at connect).
ANSWERED_NO = ("does not exist", "authentication failed", "pg_hba.conf", "permission denied", "password")


def _not_answering(exc) -> bool:
    """Whether the database did not answer (refused, timed out, starting or stopping), rather than answer no."""
    if exc.code not in ("database_unreachable", "database_connection_lost"):
        return False
    said = str(getattr(exc.__context__, "args", [""])[0] if exc.__context__ else exc.message)
    return not any(words in said for words in ANSWERED_NO)
