"""Every line a `serve` writes says when and which process, whoever logs it.

Before: the start banner (print), Gunicorn's own lines (`[2026-06-14 15:02:11 +0000] [812] [ERROR] ...`,
another shape), Engine.IO's "Invalid session" (its own bare handler) and psycopg's warnings (Python's
last-resort handler, the message alone) had no date and process, or not in the bank's shape.
The whole `serve` is in tests/web/test_outage_log_lines.py; here each way in, in one process.
"""

from __future__ import annotations

import io
import logging
import os
import re

from bank.web.serving import log_lines

HEAD = re.compile(rf"^\d{{4}}-\d\d-\d\d \d\d:\d\d:\d\d \[{os.getpid()}\] ")


def lines_of(logger_name: str, level: int, message: str, exc: bool = False) -> list[str]:
    handler = logging.StreamHandler(io.StringIO())
    handler.setFormatter(log_lines.Lines())
    logger = logging.getLogger(logger_name)
    logger.addHandler(handler)
    try:
        if exc:
            try:
                raise ValueError("broken")
            except ValueError:
                logger.exception(message)
        else:
            logger.log(level, message)
    finally:
        logger.removeHandler(handler)
    return handler.stream.getvalue().splitlines()


def test_a_librarys_line_and_each_line_of_a_traceback_carry_the_date_time_and_process():
    line, = lines_of("psycopg", logging.WARNING, "connection is lost")
    assert HEAD.match(line) and line.endswith("psycopg WARNING: connection is lost"), line
    ours, = lines_of("terrabank.health", logging.WARNING, "terrabank: lost the database (x)")
    assert HEAD.match(ours) and ours.endswith("] terrabank: lost the database (x)"), ours
    traceback = lines_of("bank.web.app", logging.ERROR, "tick failed", exc=True)
    assert len(traceback) > 3 and all(HEAD.match(line) for line in traceback), traceback


def test_the_banner_is_said_with_the_date_time_and_process_on_each_line(capsys):
    log_lines.say("Terrabank is running.\n█▀▀█\n█▄▄█")
    out = capsys.readouterr().out.splitlines()
    assert len(out) == 3 and all(HEAD.match(line) for line in out), out


def test_process_wide_sends_every_logger_through_one_formatter_and_takes_engineios_own_handler(capsys):
    engineio = logging.getLogger("engineio.server")
    bare = logging.StreamHandler()  # what Engine.IO adds to a logger with no level: the message alone
    engineio.addHandler(bare)
    root = logging.getLogger()
    before = list(root.handlers)
    try:
        log_lines.process_wide()
        assert bare not in engineio.handlers
        ours = [h for h in root.handlers if getattr(h, "terrabank_lines", False)]
        assert len(ours) == 1 and isinstance(ours[0].formatter, log_lines.Lines)
        log_lines.process_wide()  # twice: still one
        assert len([h for h in root.handlers if getattr(h, "terrabank_lines", False)]) == 1
        logging.getLogger("psycopg").warning("error ignored exiting %r: %s", "pipeline", "lost")
        engineio.error("Invalid session gone")
        err = capsys.readouterr().err.splitlines()
        assert [line for line in err if "error ignored" in line] == []  # the outage's own line says it
        invalid = [line for line in err if "Invalid session" in line]
        assert len(invalid) == 1 and HEAD.match(invalid[0]), err
    finally:
        for handler in list(root.handlers):
            if handler not in before:
                root.removeHandler(handler)
        engineio.removeHandler(bare)


def test_gunicorns_own_lines_come_in_the_banks_shape(capsys):
    from gunicorn.config import Config

    cfg = Config()
    cfg.set("errorlog", "-")
    cfg.set("loglevel", "warning")
    logger = log_lines.gunicorn_logger()(cfg)
    logger.error("Worker (pid:%s) was sent SIGKILL! Perhaps out of memory?", 813)
    err = [line for line in capsys.readouterr().err.splitlines() if "SIGKILL" in line]
    assert len(err) == 1 and HEAD.match(err[0]) and "gunicorn.error ERROR: Worker (pid:813)" in err[0], err
