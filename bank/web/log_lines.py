"""Log lines an operator reads (issue 36, item 4): each with its date, time and process, one per event.

Before, the bank's own status lines ("lost the database", "the database answers again", the hold's)
went through Python's last-resort handler, the bare message: a journal read later (`journalctl -o cat`,
a container's log, a file) could not say when an outage began or how long it lasted, nor which of
four processes said it. Flask's lines had a time in another shape, Engine.IO's none.

`install()` gives the bank's loggers ("terrabank.*", the app's "bank.*") and Flask's handler one
format, `2026-06-14 15:02:11 [812] terrabank: lost the database (...)`, and hands the Engine.IO and
Socket.IO loggers the filter that turns an expected outage into the one line (bank/web/health.py):
a page reconnecting while PostgreSQL is away raised in its connect handler, and Engine.IO logged a
full traceback for each ("message handler error"), 16 to 92 per process in one outage.
"""

from __future__ import annotations

import logging
import sys

FORMAT = "%(asctime)s [%(process)d] %(message)s"
DATE = "%Y-%m-%d %H:%M:%S"
OURS = ("terrabank", "bank")  # the bank's loggers, and the app's own (Flask names it after bank.web.app)
SOCKETS = ("engineio.server", "socketio.server")  # the loggers of a page's live connection


def formatter() -> logging.Formatter:
    return logging.Formatter(FORMAT, DATE)


class _Stderr:
    """Standard error as it is at each line, not as it was when the handler was made (a test's capture,
    since closed, would make every later line a "Logging error")."""

    def write(self, text: str) -> int:
        return sys.stderr.write(text)

    def flush(self) -> None:
        sys.stderr.flush()


def install(app, outage_filter: logging.Filter) -> None:
    """The format on the bank's loggers (once per process), the outage filter on the live connections'."""
    from flask.logging import default_handler

    default_handler.setFormatter(formatter())  # the same shape for an app whose logger is not the bank's
    for name in OURS:
        logger = logging.getLogger(name)
        if not any(getattr(h, "terrabank_lines", False) for h in logger.handlers):
            handler = logging.StreamHandler(_Stderr())
            handler.setFormatter(formatter())
            handler.terrabank_lines = True
            logger.addHandler(handler)
    if app.logger.name.split(".")[0] in OURS:
        app.logger.removeHandler(default_handler)  # its lines reach the bank's handler: said once, not twice
    for name in SOCKETS:
        logger = logging.getLogger(name)
        if not any(type(f) is type(outage_filter) for f in logger.filters):
            logger.addFilter(outage_filter)
