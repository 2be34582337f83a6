"""A long poll Engine.IO cannot read is said once, in one line, not as a traceback for each (log_lines.py).

Before: Engine.IO logs a client's unreadable long-poll body (more than its 16 packets in one POST) as its own
error with the whole traceback (12 lines), every time: an anonymous client's handshake and such a POST, 165 a
second from 4 addresses against a `serve`, wrote 182 KB of tracebacks a second to its log, drowning the
bank's own lines (and, under systemd, over journald's rate limit, which then drops them).
"""

from __future__ import annotations

import io
import json
import logging

from bank.web.serving import log_lines


def test_a_flood_of_unreadable_long_polls_is_one_line_in_the_log(app, monkeypatch):
    monkeypatch.setattr(log_lines._UnreadablePolls, "said", False)
    log_lines.process_wide()
    handler = logging.StreamHandler(io.StringIO())
    handler.setFormatter(log_lines.Lines())
    engineio = logging.getLogger("engineio.server")
    engineio.addHandler(handler)
    client = app.test_client()
    try:
        for _ in range(30):  # a stranger: no secret, a handshake then 20 packets in one POST
            opened = client.get("/socket.io/?EIO=4&transport=polling")
            sid = json.loads(opened.get_data(as_text=True)[1:])["sid"]
            client.post(f"/socket.io/?EIO=4&transport=polling&sid={sid}", data="\x1e".join(["3"] * 20),
                        content_type="text/plain")
    finally:
        engineio.removeHandler(handler)
    lines = handler.stream.getvalue().splitlines()
    assert "Traceback" not in "\n".join(lines), lines[:14]  # before: 30 tracebacks, 12 lines each
    assert len([line for line in lines if "cannot read" in line]) == 1, lines
    assert "Too many packets in payload" in lines[0]

    broken = logging.LogRecord("engineio.server", logging.ERROR, __file__, 0, "message handler error", None, None)
    assert log_lines._UnreadablePolls().filter(broken)  # the bank's own handlers' errors are still logged


def test_requests_gunicorn_cannot_parse_are_one_line_a_minute_then_counted(capsys, monkeypatch):
    """Before: Gunicorn's "Invalid request from ip=..." for each request it cannot parse (a garbage request line, a
    Content-Length of letters, a header too long): 1,000 a second from 4 addresses wrote 58 KB a second to the log."""
    from gunicorn.config import Config

    cfg = Config()
    cfg.set("errorlog", "-")
    cfg.set("loglevel", "warning")
    logger = log_lines.gunicorn_logger()(cfg)
    clock = [1000.0]
    monkeypatch.setattr("time.monotonic", lambda: clock[0])
    for i in range(500):  # what Gunicorn's handle_error says for each
        logger.warning(f"Invalid request from ip=127.0.9.{i % 4 + 1}: Invalid HTTP request line: 'GARBAGE'")
    logger.warning("Worker (pid:%s) was sent SIGKILL! Perhaps out of memory?", 813)  # any other line is said
    clock[0] += 61
    logger.warning("Invalid request from ip=127.0.9.1: Invalid HTTP Header: 'CONTENT-LENGTH'")
    err = capsys.readouterr().err.splitlines()
    invalid = [line for line in err if "Invalid request" in line]
    assert len(invalid) == 2, invalid[:5]  # before: 501
    assert "499 more invalid requests" in invalid[1], invalid
    assert any("SIGKILL" in line for line in err)
