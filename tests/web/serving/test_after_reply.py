"""A command's live-update round starts once its reply is written (bank/web/serving/after_reply.py).

Before, the broadcaster thread was woken before the reply went out and shared the GIL
with it: the facilitator's reply waited for a round of live updates. These tests hold
the round back and check the reply still arrives, that the round then goes, and that a
facilitator who hangs up at once still has the command reach every page.
"""

from __future__ import annotations

import json
import socket
import threading
import time

import pytest
from browserkit import stop_servers
from harness import Api

from bank.web.push import live
from bank.web.serving import thread as serving_thread
from bank.web.serving.after_reply import AfterReply, later

HARVEST = {"type": "harvest", "team": "red", "card": "harvester-1", "resource": "water"}


# --- the WSGI wrapper, as a server drives it ---------------------------------------------------

def app_leaving(work_log: list, raises: bool = False):
    from flask import Flask

    flask_app = Flask(__name__)

    @flask_app.post("/c")
    def command():
        later(lambda: work_log.append("round"))
        if raises:
            raise RuntimeError("the reply failed after the command was booked")
        return "booked"

    return flask_app


def drive(wsgi, log: list) -> None:
    """What Gunicorn and Werkzeug do: call, write every chunk, then close() in a finally."""
    environ = {"REQUEST_METHOD": "POST", "PATH_INFO": "/c", "SERVER_NAME": "x", "SERVER_PORT": "80",
               "wsgi.url_scheme": "http", "wsgi.input": None, "CONTENT_LENGTH": "0"}
    body = wsgi(environ, lambda status, headers, exc_info=None: None)
    try:
        for chunk in body:
            log.append(("written", chunk))
    finally:
        body.close()
        body.close()  # a server closing twice must not run the round twice


def test_the_round_runs_after_the_last_byte_is_written_and_once():
    log: list = []
    flask_app = app_leaving(log)
    drive(AfterReply(flask_app.wsgi_app), log)
    assert log == [("written", b"booked"), "round"]


def test_without_a_server_that_defers_it_the_round_runs_at_once_as_the_test_client_needs():
    log: list = []
    with app_leaving(log).test_client() as client:
        reply = client.post("/c")
        assert log == ["round"]  # before the test even reads the reply
        assert reply.data == b"booked"


def test_a_command_whose_reply_fails_still_has_its_round():
    log: list = []
    flask_app = app_leaving(log, raises=True)
    flask_app.config["PROPAGATE_EXCEPTIONS"] = False  # Flask answers 500, as in production
    drive(AfterReply(flask_app.wsgi_app), log)
    assert log[-1] == "round" and log.count("round") == 1


# --- the real server ----------------------------------------------------------------------------

@pytest.fixture
def served(app):
    server = serving_thread.serve_in_thread(app)
    lead = Api(server.url)
    lead.login("lead", "correct horse")
    status, body = lead.request("POST", "/api/commands", {"type": "start_clock"}, {"Idempotency-Key": "start"})
    assert status == 200, body
    yield server, lead
    lead.close()
    server.stop()
    stop_servers()


def hold_rounds(app, monkeypatch) -> threading.Event:
    """Make the broadcaster's next wake-up wait until the returned event is set (10 s at most)."""
    sender = live.broadcaster(app)
    release, real_ask = threading.Event(), sender.ask

    def held_ask():
        release.wait(10)
        return real_ask()

    monkeypatch.setattr(sender, "ask", held_ask)
    return release


def wait_until_sent(app, seq: int, timeout: float = 10.0) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if live.broadcaster(app).journal_seq >= seq:
            return True
        time.sleep(0.02)
    return False


def test_the_facilitator_gets_the_reply_before_the_live_round_starts(app, served, monkeypatch):
    server, lead = served
    release = hold_rounds(app, monkeypatch)
    lead.timeout = 5.0  # before the change the reply waited for the held round: 10 s here
    lead.close()  # the next request opens a connection with that timeout
    try:
        status, body = lead.request("POST", "/api/commands", HARVEST, {"Idempotency-Key": "h1"})
    finally:
        release.set()
    assert status == 200, body
    assert wait_until_sent(app, body["seq"]), "the round after the reply never went"


def test_a_facilitator_who_hangs_up_at_once_still_has_the_command_reach_every_page(app, served):
    server, lead = served
    payload = json.dumps(HARVEST).encode()
    head = (f"POST /api/commands HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
            f"Content-Length: {len(payload)}\r\nCookie: {lead.cookie}\r\nX-CSRF-Token: {lead.csrf}\r\n"
            f"Idempotency-Key: gone\r\n\r\n").encode()
    with socket.create_connection(("127.0.0.1", server.port), timeout=5) as sock:
        sock.sendall(head + payload)  # and closed without reading a byte of the reply
    # The command was booked whatever the client did; its round goes to the pages.
    bank = app.extensions["terrabank"].bank
    deadline = time.monotonic() + 10
    # Found by its id: the clock's ticks book rows of their own meanwhile.
    while not any(row["command_id"] == "gone" for row in bank.journal_rows()):
        assert time.monotonic() < deadline, "the command of the client that hung up was never booked"
        time.sleep(0.02)
    status, body = lead.request("POST", "/api/commands", HARVEST, {"Idempotency-Key": "gone"})
    assert status == 200 and body["duplicate"], body  # booked once, by the request that hung up
    assert wait_until_sent(app, body["seq"])
