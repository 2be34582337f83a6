"""A server whose game was replaced under it ends, for its supervisor to start it on the new game.

`init --force` can get in only while a server's hold on the game is lost (a PostgreSQL restart longer
than the hold's lease, bank/store/journal_pg_hold.py). The server's state is the old game's: left
running, it would refuse every command and log the ticker's refusal every second until someone
restarted it. So the hold's watcher says so in one line and the process ends as for
a stop (drained, SIGTERM to itself), with a status its systemd unit restarts on: 75 (EX_TEMPFAIL),
not 78, which deploy/terrabank@.service keeps for what only the operator can fix.
"""

from __future__ import annotations

import os
import signal
import threading

EXIT_REPLACED = 75
REPLACED = threading.Event()  # set in the process whose watcher found the game replaced (Gunicorn's master)


def _end() -> None:
    REPLACED.set()
    os.kill(os.getpid(), signal.SIGTERM)


def serving(run) -> int:
    """`run()`'s exit status, or EXIT_REPLACED when the game was replaced while it served."""
    from bank.store import journal_pg_hold

    journal_pg_hold.on_replaced(_end)
    try:
        code = run()
    except SystemExit:  # Gunicorn's master ends so, after the SIGTERM `_end` sent
        if not REPLACED.is_set():
            raise
        code = None
    finally:
        journal_pg_hold.on_replaced(_end, remove=True)  # a process serving again later (a test) starts clean
    return EXIT_REPLACED if REPLACED.is_set() else code
