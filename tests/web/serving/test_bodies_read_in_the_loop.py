"""A small request body is read by the worker's loop before the request gets a thread (issue 34, item 4).

Before, a log-in's body was read in a pool thread: strangers dripping log-in bodies held the anonymous
bodies' threads, and every other log-in, the lead's included, got a 503 "busy" until one timed out.
Now the bodies that are still coming wait in the loop (a descriptor each) and the lead logs in.
"""

from __future__ import annotations

import json
import socket
import sys
import time
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[3] / "bench"))
from harness import Api  # noqa: E402
from test_admission import login_head  # noqa: E402
from test_serving import Production, reply_of  # noqa: E402
from bank.web.serving.worker import LOOP_BODY, body_to_read  # noqa: E402


@pytest.fixture(scope="module")
def small(tmp_path_factory):
    # 8 threads: 2 for anonymous bodies (Limits.anonymous_body_slots), as 25 of the 500 in production.
    limits = {"threads": 8, "header_seconds": 20}
    with Production(tmp_path_factory.mktemp("loop_bodies") / "bank", **limits).prepare().start() as server:
        yield server


def dripping_log_ins(server, count: int) -> list:
    """`count` log-ins whose head is sent whole and whose body never ends (one byte now)."""
    head = login_head(server.url)
    socks = []
    for _ in range(count):
        sock = socket.create_connection(("127.0.0.1", server.port), timeout=5, source_address=("127.0.0.7", 0))
        sock.sendall(head)
        socks.append(sock)
    return socks


def test_the_lead_logs_in_while_strangers_drip_log_in_bodies(small):
    strangers = dripping_log_ins(small, 6)
    try:
        time.sleep(1.0)  # their heads are in: before, the first two held the body threads, the rest got 503
        lead = Api(small.url, timeout=15)
        started = time.monotonic()
        lead.login(busy_tries=1)  # before: RuntimeError("login failed: 503 ... busy")
        print(f"\nthe lead logs in beside 6 dripping log-ins in {time.monotonic() - started:.3f} s")
        lead.close()
    finally:
        for sock in strangers:
            sock.close()


def raw(port: int, head: bytes, body: bytes, pause: float = 0.0, expect_continue: bool = False) -> bytes:
    sock = socket.create_connection(("127.0.0.1", port), timeout=10)
    try:
        sock.sendall(head)
        if expect_continue:
            sock.settimeout(10)
            assert sock.recv(100).startswith(b"HTTP/1.1 100 Continue")
        time.sleep(pause)
        sock.sendall(body)
        return reply_of(sock)
    finally:
        sock.close()


def log_in_request(server, expect: bool = False) -> tuple[bytes, bytes]:
    visitor = Api(server.url, timeout=10)
    _, csrf = visitor.request("GET", "/api/csrf")
    visitor.close()
    body = json.dumps({"username": "nobody", "password": "wrong password"}).encode()
    head = (f"POST /api/login HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nCookie: {visitor.cookie}\r\n"
            f"X-CSRF-Token: {csrf['csrf']}\r\nContent-Length: {len(body)}\r\nConnection: close\r\n"
            + ("Expect: 100-continue\r\n" if expect else "") + "\r\n").encode()
    return head, body


def test_a_body_sent_after_its_head_is_answered_as_a_whole(small):
    head, body = log_in_request(small)
    reply = raw(small.port, head + body[:5], body[5:], pause=0.5)  # the loop waits for the rest
    assert reply.startswith(b"HTTP/1.1 401"), reply[:300]  # the wrong password, read whole: not a 400
    assert b"password" in reply.lower() or b"mot de passe" in reply.lower(), reply[-300:]


def test_a_client_waiting_for_100_continue_gets_it_and_its_answer(small):
    head, body = log_in_request(small, expect=True)
    reply = raw(small.port, head, body, expect_continue=True)
    assert reply.startswith(b"HTTP/1.1 401"), reply[:300]


@pytest.mark.parametrize("head, expected", [
    (b"POST / HTTP/1.1\r\nContent-Length: 120", 120),
    (b"POST / HTTP/1.1\r\ncontent-length:  7 ", 7),
    (b"GET / HTTP/1.1\r\nHost: x", 0),
    (b"POST / HTTP/1.1\r\nContent-Length: %d" % (LOOP_BODY + 1), 0),  # an upload: read in its thread
    (b"POST / HTTP/1.1\r\nTransfer-Encoding: chunked", 0),
    (b"POST / HTTP/1.1\r\nContent-Length: 9\r\nExpect: 100-continue", 0),  # it waits for Gunicorn's 100
    (b"POST / HTTP/1.1\r\nContent-Length: 9\r\nContent-Length: 10", 0),  # Gunicorn refuses it
    (b"POST / HTTP/1.1\r\nContent-Length: -1", 0),
])
def test_the_loop_waits_only_for_a_small_plain_body(head, expected):
    assert body_to_read(head) == expected
