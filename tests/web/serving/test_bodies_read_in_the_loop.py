"""A small request body is read by the worker's loop before the request gets a thread.

Before, a log-in's body was read in a pool thread: strangers dripping log-in bodies held the anonymous
bodies' threads, and every other log-in, the lead's included, got a 503 "busy" until one timed out.
Now the bodies that are still coming wait in the loop (a descriptor each) and the lead logs in.
"""

from __future__ import annotations

import json
import socket
import sys
import time
import weakref
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[3] / "bench"))
from harness import Api  # noqa: E402
from test_admission import http_get, login_head  # noqa: E402
from test_serving import Production, reply_of  # noqa: E402
from bank.web.serving.loop_body import LOOP_BODY, Chunked, plan  # noqa: E402


@pytest.fixture(scope="module")
def small(tmp_path_factory):
    # 8 threads: 2 for anonymous bodies (Limits.anonymous_body_slots), as 25 of the 500 in production.
    limits = {"threads": 8, "header_seconds": 20}
    with Production(tmp_path_factory.mktemp("loop_bodies") / "bank", **limits).prepare().start() as server:
        # The lead's tablet logs in once, before any attack: its device cookie, and the team links.
        tablet = Api(server.url, timeout=15).login()
        server.tokens = tablet.request("GET", "/api/teams/links")[1]
        server.device = "; ".join(f"{name}={value}" for name, value in tablet.cookies.items() if name.endswith("-device"))
        tablet.close()
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


def drip_starts(server, head: bytes, count: int, source: str = "127.0.0.7") -> list:
    """`count` requests that sent `head` (and their body's first byte) and never send the rest."""
    socks = []
    for _ in range(count):
        sock = socket.create_connection(("127.0.0.1", server.port), timeout=5, source_address=(source, 0))
        sock.sendall(head)
        socks.append(sock)
    return socks


def replies_now(socks: list, seconds: float = 2.0) -> list:
    """What each socket got within `seconds` (b"" for nothing yet), the "100 Continue" left out."""
    got = []
    deadline = time.monotonic() + seconds
    for sock in socks:
        sock.settimeout(max(0.05, deadline - time.monotonic()))
        try:
            data = sock.recv(4096)
        except OSError:
            data = b""
        got.append(data.replace(b"HTTP/1.1 100 Continue\r\n\r\n", b""))
    return got


def lead_tablet(small, cookie: str) -> Api:
    tablet = Api(small.url, timeout=15)
    name, _, value = cookie.partition("=")
    tablet.cookies = {name: value}
    return tablet


@pytest.mark.parametrize("framing", ["chunked", "expect"])
def test_the_lead_logs_in_while_strangers_drip_chunked_or_expect_log_in_bodies(small, framing):
    """Before: a chunked body, or one sent after "100 Continue", was read in a pool thread: 2 of them held the
    anonymous bodies' threads (25 of 500 in production) and every other log-in got a 503 "busy"."""
    strangers = drip_starts(small, login_head(small.url, framing), 6)
    try:
        time.sleep(1.0)
        lead = Api(small.url, timeout=15)
        started = time.monotonic()
        lead.login(busy_tries=1)
        print(f"\nthe lead logs in beside 6 dripping {framing} log-ins in {time.monotonic() - started:.3f} s")
        lead.close()
        if framing == "expect":  # the loop asked each for its body
            assert all(sock.recv(100).startswith(b"HTTP/1.1 100 Continue") for sock in strangers)
    finally:
        for sock in strangers:
            sock.close()


def test_the_leads_trusted_device_has_a_lane_beside_strangers_bodies_read_in_threads(small):
    """Bodies bigger than the loop reads go to a thread, in the strangers' pool (2 threads here): before, the
    lead's tablet, device cookie or not, got 503 "busy" behind them."""
    strangers = drip_starts(small, login_head(small.url, "big"), 2)
    try:
        time.sleep(0.5)
        tablet = lead_tablet(small, small.device)
        started = time.monotonic()
        tablet.login(busy_tries=1)
        print(f"\nthe lead's tablet logs in beside 2 strangers' big bodies in {time.monotonic() - started:.3f} s")
        tablet.close()
        visitor = Api(small.url, timeout=15)  # a device without the cookie still waits its turn
        with pytest.raises(RuntimeError, match="503"):
            visitor.login(busy_tries=1)
        visitor.close()
    finally:
        for sock in strangers:
            sock.close()


def test_bodies_claiming_a_team_link_are_capped_per_link_and_per_address(small):
    """Before: a body with a team link (`?team=`) read in a thread had 30 s and was counted nowhere: 8 of them
    held all 8 threads and a phone waited for them."""
    blue, red = small.tokens["blue"], small.tokens["red"]
    held = drip_starts(small, login_head(small.url, "big", f"team={blue}"), 6)
    time.sleep(0.5)  # blue's bodies are in their threads
    others = drip_starts(small, login_head(small.url, "big", f"team={red}"), 2)  # same address: its share is full
    elsewhere = drip_starts(small, login_head(small.url, "big", f"team={red}"), 1, source="127.0.0.8")
    try:
        busy = [r.startswith(b"HTTP/1.1 503") for r in replies_now(held + others + elsewhere)]
        print(f"\nbodies with team links: {sum(busy)} of {len(busy)} refused at once")
        assert sum(busy[:6]) == 2 and busy[6:] == [True, True, False], busy
        status, seconds = http_get(small.port, f"/api/team/{blue}")
        assert status == 200 and seconds < 1.0, (status, seconds)
    finally:
        for sock in held + others + elsewhere:
            sock.close()


@pytest.mark.parametrize("path", ["/api/login", "/api/outbox", "/api/paper/batch", "/api/public"])
def test_a_body_answered_unread_holds_no_thread_after_its_reply(small, path):
    """A body bigger than the loop reads is answered without being read: 413 by the route's length check, or the
    reply of a route that reads no body. Before, Gunicorn then drained the rest in the request's thread for up
    to 5 s, counted in no pool (the body's pool is given back with the reply): 8 such requests from one address,
    each answered at once, held all 8 threads and a phone waited 5 s. Now what is not there yet is not waited
    for: the connection closes after its reply."""
    socks = []
    try:
        for _ in range(8):
            sock = socket.create_connection(("127.0.0.1", small.port), timeout=10, source_address=("127.0.0.9", 0))
            sock.sendall(f"POST {path} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                         f"Content-Length: {LOOP_BODY + 4000}\r\n\r\n{{".encode())
            assert sock.recv(12).startswith(b"HTTP/1.1 "), path  # answered whole or refused: at once
            socks.append(sock)
        status, seconds = http_get(small.port, f"/api/team/{small.tokens['blue']}", timeout=15)
        print(f"\n8 unread bodies answered ({path}): a phone in {seconds:.3f} s")
        assert status == 200 and seconds < 2.0, (status, seconds)  # before: 4.9-5.0 s
    finally:
        for sock in socks:
            sock.close()


def test_a_head_sent_behind_a_request_waits_in_the_loop_not_in_a_thread(small):
    """Pipelining: a request and, in the same packet, the start of another whose head never ends. Before, the
    bytes left behind the first request went straight to a thread (Gunicorn's path for read-ahead), which
    waited for the rest of the head until its deadline: 8 such connections held all 8 threads and a phone
    waited out the head's deadline. Now they are read in the loop, as a new connection's head is; and a
    whole second request behind the first is still answered on the same connection."""
    socks = []
    try:
        for _ in range(8):
            sock = socket.create_connection(("127.0.0.1", small.port), timeout=10, source_address=("127.0.0.9", 0))
            sock.sendall(b"GET /api/public HTTP/1.1\r\nHost: x\r\n\r\nGET /api/public HTTP/1.1\r\nHost: x\r\n")
            assert one_reply(sock).startswith(b"HTTP/1.1 200")
            socks.append(sock)
        status, seconds = http_get(small.port, f"/api/team/{small.tokens['blue']}", timeout=15)
        print(f"\n8 heads behind a request: a phone in {seconds:.3f} s")
        assert status == 200 and seconds < 2.0, (status, seconds)  # before: the head's deadline (20 s here)
        with socket.create_connection(("127.0.0.1", small.port), timeout=10) as sock:
            sock.sendall(b"GET /api/public HTTP/1.1\r\nHost: x\r\n\r\n" * 2 + b"GET /api/public HTTP/1.1\r\nHost: ")
            time.sleep(0.5)  # a slow reader (a loaded phone): both replies wait in one read
            assert one_reply(sock).startswith(b"HTTP/1.1 200") and one_reply(sock).startswith(b"HTTP/1.1 200")
            sock.sendall(b"x\r\n\r\n")  # the third's head ends later: read by the loop, then answered
            assert one_reply(sock).startswith(b"HTTP/1.1 200")
    finally:
        for sock in socks:
            sock.close()


def test_a_connection_whose_body_came_whole_is_kept_for_the_next_request(small):
    """What has already come is still taken: a body the app did not read but that is all in keeps the
    connection alive (two requests, two replies on one connection)."""
    with socket.create_connection(("127.0.0.1", small.port), timeout=10) as sock:
        for _ in range(2):
            sock.sendall(b"POST /api/public HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                         b"Content-Length: 2000\r\n\r\n" + b" " * 2000)
            assert one_reply(sock).startswith(b"HTTP/1.1 405")  # a route that reads no body


_LEFT: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()  # per socket: bytes read past the last reply


def one_reply(sock) -> bytes:
    """One whole reply read by its Content-Length, the connection left open. Bytes of the next reply that came
    in the same read are kept for the next call: two pipelined replies often come in one packet (the reader
    slowed by a loaded machine), and dropping the second's bytes made the test wait for a reply already read."""
    data = _LEFT.pop(sock, b"")
    while b"\r\n\r\n" not in data:
        chunk = sock.recv(4096)
        assert chunk, f"the connection was closed after {data[:200]!r}"
        data += chunk
    head, _, body = data.partition(b"\r\n\r\n")
    length = int(next(line.split(b":")[1] for line in head.split(b"\r\n") if line.lower().startswith(b"content-length")))
    while len(body) < length:
        chunk = sock.recv(4096)
        assert chunk, f"the connection was closed in a reply's body after {data[:200]!r}"
        body += chunk
    _LEFT[sock] = body[length:]
    return head + b"\r\n\r\n" + body[:length]


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
    (b"POST / HTTP/1.1\r\nContent-Length: 120", (120, False, False)),
    (b"POST / HTTP/1.1\r\ncontent-length:  7 ", (7, False, False)),
    (b"GET / HTTP/1.1\r\nHost: x", None),
    (b"POST / HTTP/1.1\r\nContent-Length: %d" % (LOOP_BODY + 1), None),  # an upload: read in its thread
    (b"POST / HTTP/1.1\r\nTransfer-Encoding: chunked", (0, True, False)),
    (b"POST / HTTP/1.1\r\nTransfer-Encoding: Chunked\r\nExpect: 100-Continue", (0, True, True)),
    (b"POST / HTTP/1.1\r\nContent-Length: 9\r\nExpect: 100-continue", (9, False, True)),  # the loop sends the 100
    (b"POST / HTTP/1.0\r\nContent-Length: 9\r\nExpect: 100-continue", (9, False, False)),  # HTTP/1.0: ignored
    (b"POST / HTTP/1.1\r\nContent-Length: 9\r\nExpect: something", None),  # Gunicorn's 417, no body read
    (b"POST / HTTP/1.1\r\nTransfer-Encoding: gzip, chunked", None),
    (b"POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\nContent-Length: 9", None),  # Gunicorn refuses it
    (b"POST / HTTP/1.1\r\nContent-Length: 9\r\nContent-Length: 10", None),  # Gunicorn refuses it
    (b"POST / HTTP/1.1\r\nContent-Length: -1", None),
])
def test_the_loop_reads_every_body_of_a_routes_size_whatever_its_framing(head, expected):
    body = plan(head)
    assert ((body.length, body.chunked, body.expect) if body.in_loop else None) == expected


def test_the_end_of_a_chunked_body_is_found_as_its_bytes_come():
    head = b"POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n"
    whole = head + b"5;x=1\r\nhello\r\n1\r\n!\r\n0\r\nTrailer: t\r\n\r\n"
    reader = Chunked(len(head))
    ends = [reader.feed(whole[:n]) for n in range(len(head), len(whole) + 1)]
    assert ends[:-1] == [None] * (len(ends) - 1) and ends[-1] == len(whole)
    assert Chunked(len(head)).feed(head + b"zz\r\n") == -1  # not a size: Gunicorn refuses it
    assert Chunked(len(head)).feed(head + b"%x\r\n" % (LOOP_BODY + 1)) == -1  # an upload: its thread reads it
    assert Chunked(len(head)).feed(head + b"5\r\nhelloXX") == -1  # no CRLF after the data
    tiny = head + b"1\r\na\r\n" * (2 * LOOP_BODY // 6 + 1)  # small in data, but its framing is not
    assert Chunked(len(head)).feed(tiny) == -1
