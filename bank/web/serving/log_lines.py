"""Log lines an operator reads: each with its date, time and process, one per event.

Left to Python's last-resort handler, the bank's own status lines ("lost the database", "the database
answers again", the hold's) are the bare message: a journal read later (`journalctl -o cat`, a
container's log, a file) could not say when an outage began or how long it lasted, nor which of four
processes said it. Flask's lines have a time in another shape, Engine.IO's none, and so would the
start banner, Gunicorn's own lines ("[ERROR] Worker ... was sent SIGKILL", in its shape),
Engine.IO's "Invalid session" and psycopg's warnings ("error ignored exiting ...").

One formatter (`Lines`) for every line of the process, whoever logs it: `process_wide()` (the serve
command, Gunicorn's master and so its forked worker) puts it on the root logger, which every library's
logger reaches; `GunicornLogger` gives it to Gunicorn's own handlers; `say()` prints the banner
through it. `2026-06-14 15:02:11 [812] terrabank: lost the database (...)`: the bank's lines carry
their own "terrabank:"; a library's line is named by its logger and level
(`2026-06-14 15:02:11 [812] gunicorn.error ERROR: Worker (pid:813) was sent SIGKILL!`), and each line
of a traceback carries the same head, so a search for "[812]" finds all of it.

`install()` also hands the Engine.IO and Socket.IO loggers the filter that turns an expected outage
into the one line (bank/web/health.py): a page reconnecting while PostgreSQL is away raised in its
connect handler, and Engine.IO logged a full traceback for each ("message handler error"), 16 to 92
per process in one outage.
"""

from __future__ import annotations

import logging
import sys

FORMAT = "%(asctime)s [%(process)d] %(message)s"
DATE = "%Y-%m-%d %H:%M:%S"
OURS = ("terrabank", "bank")  # the bank's loggers, and the app's own (Flask names it after bank.web.app)
SOCKETS = ("engineio.server", "socketio.server")  # the loggers of a page's live connection


LIBRARY_FORMAT = "%(asctime)s [%(process)d] %(name)s %(levelname)s: %(message)s"
# psycopg's notes that it ignored an error while closing what the outage broke: the outage's own line says it.
QUIET = ("error ignored",)


class Lines(logging.Formatter):
    """Date, time and process on every line; a library's lines also name their logger and level."""

    def __init__(self):
        super().__init__(FORMAT, DATE)
        self._library = logging.Formatter(LIBRARY_FORMAT, DATE)

    def format(self, record: logging.LogRecord) -> str:
        ours = record.name.split(".")[0] in OURS
        text = super().format(record) if ours else self._library.format(record)
        if "\n" not in text:
            return text
        head = f"{self.formatTime(record, DATE)} [{record.process}] "
        first, *rest = text.split("\n")
        return "\n".join([first, *(head + line for line in rest)])


def formatter() -> logging.Formatter:
    return Lines()


def say(text: str = "", file=None) -> None:
    """Print `text` (a line of the start banner, a warning before any logger) with the date, time and
    process, each of its lines: a journal read without systemd's own stamps still says when and who."""
    record = logging.LogRecord("terrabank", logging.WARNING, __file__, 0, text, None, None)
    print(Lines().format(record), file=file or sys.stdout, flush=True)


class _Quiet(logging.Filter):
    def filter(self, record: logging.LogRecord) -> bool:
        return not str(record.msg).startswith(QUIET)


class _UnreadablePolls(logging.Filter):
    """A long poll's body Engine.IO cannot read (more than its 16 packets in one POST, a packet of no known type)
    is the client's doing, but Engine.IO logs it as its own error, with the whole traceback, every time: an
    anonymous client's handshake and such a POST, 165 a second from 4 addresses, wrote 182 KB of tracebacks a
    second (650 MB an hour on a Pi's card, and journald's rate limit then drops the bank's own lines). Said once,
    in one line; the later ones are not logged (the client got its answer)."""

    said = False

    def filter(self, record: logging.LogRecord) -> bool:
        exc = record.exc_info[1] if record.exc_info else None
        if record.msg != "post request handler error" or not isinstance(exc, ValueError):
            return True
        if _UnreadablePolls.said:
            return False
        _UnreadablePolls.said = True
        record.msg = (f"a page sent a long poll Engine.IO cannot read ({type(exc).__name__}: {str(exc)[:80]}); "
                      "further ones are not logged")
        record.args, record.exc_info, record.exc_text = None, None, None
        return True


def process_wide() -> None:
    """Every logger of this process through `Lines` (once): one handler on the root logger, which the
    bank's and every library's loggers reach; Engine.IO's own bare handler (it adds one to a logger with
    no level) replaced by it. Called before Gunicorn forks the worker, which keeps it."""
    root = logging.getLogger()
    if not any(getattr(h, "terrabank_lines", False) for h in root.handlers):
        handler = logging.StreamHandler(_Stderr())
        handler.setFormatter(Lines())
        handler.terrabank_lines = True
        root.addHandler(handler)
    psycopg = logging.getLogger("psycopg")
    if not any(isinstance(f, _Quiet) for f in psycopg.filters):
        psycopg.addFilter(_Quiet())
    engineio = logging.getLogger(SOCKETS[0])
    if not any(isinstance(f, _UnreadablePolls) for f in engineio.filters):
        engineio.addFilter(_UnreadablePolls())
    for name in SOCKETS:
        logger = logging.getLogger(name)
        if logger.level == logging.NOTSET:
            logger.setLevel(logging.ERROR)  # Engine.IO's own choice for logger=False, without its handler
        for handler in list(logger.handlers):
            if not getattr(handler, "terrabank_lines", False):
                logger.removeHandler(handler)


INVALID = "Invalid request from ip="  # Gunicorn's line for a request it cannot parse (workers/base.py handle_error)
INVALID_EVERY = 60.0  # seconds: at most one such line, the next one counts those not logged


def gunicorn_logger():
    """Gunicorn's logger class with `Lines` on its handlers (its own shape had the date in brackets), and at most one
    "Invalid request from ip=..." line a minute: Gunicorn says one for each request it cannot parse, and anyone on the
    Wi-Fi may send them (1,000 a second from 4 addresses wrote 58 KB a second to the log); the next line says how
    many were not logged."""
    import time

    from gunicorn.glogging import Logger

    class GunicornLogger(Logger):
        quiet_until, unsaid = float("-inf"), 0

        def setup(self, cfg):
            super().setup(cfg)
            for logger in (self.error_log, self.access_log):
                for handler in logger.handlers:
                    handler.setFormatter(Lines())

        def warning(self, msg, *args, **kwargs):
            if isinstance(msg, str) and msg.startswith(INVALID):
                now = time.monotonic()
                if now < self.quiet_until:
                    self.unsaid += 1
                    return
                if self.unsaid:
                    msg = f"{msg} (and {self.unsaid} more invalid requests not logged in the minute before)"
                self.quiet_until, self.unsaid = now + INVALID_EVERY, 0
            super().warning(msg, *args, **kwargs)

    return GunicornLogger


class _Stderr:
    """Standard error as it is at each line, not as it was when the handler was made (a test's capture,
    since closed, would make every later line a "Logging error")."""

    def write(self, text: str) -> int:
        return sys.stderr.write(text)

    def flush(self) -> None:
        sys.stderr.flush()


def install(app, outage_filter: logging.Filter) -> None:
    """The format on every logger (once per process), the outage filter on the live connections'."""
    from flask.logging import default_handler

    process_wide()
    default_handler.setFormatter(formatter())  # the same shape for an app whose logger is not the bank's
    if app.logger.name.split(".")[0] in OURS:
        app.logger.removeHandler(default_handler)  # its lines reach the root's handler: said once, not twice
    for name in SOCKETS:
        logger = logging.getLogger(name)
        if not any(type(f) is type(outage_filter) for f in logger.filters):
            logger.addFilter(outage_filter)
