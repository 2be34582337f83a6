"""What a sender can make the worker read before it is refused (bank/web/serving/loop_body.py, worker.py).

Before: the worker's loop read up to 64 KB of any body before the request got a thread, whoever sent it (960
strangers' bodies one byte short held 61 MB); it parsed a chunked body's chunks one by one, as many as came (960
strangers' bodies of 21,800 one-byte chunks kept it from reading any other request for 30 s); and a chunked body
answered unread (a 403, a 413) was drained in its thread by Gunicorn's parser, a chunk at a time, with the same
effect. Now the loop reads 16 KB at most (every route's limit but the lead's paper batch, read in its thread under
its sender's pool), in 64 chunks at most, and a chunked body answered unread closes its connection.
"""

from __future__ import annotations

import socket
import sys
import time
import urllib.request
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[3] / "bench"))
from harness import Api  # noqa: E402
from test_serving import Production  # noqa: E402
from bank.web.serving.loop_body import LOOP_BODY, Chunked, plan  # noqa: E402

CHUNKED_LOG_IN = (b"POST /api/login HTTP/1.1\r\nHost: bank\r\nContent-Type: application/json\r\n"
                  b"Transfer-Encoding: chunked\r\n\r\n")


def test_the_loop_reads_no_more_than_any_route_takes_from_a_stranger():
    assert LOOP_BODY == 16384  # read_object's largest limit but the lead's paper batch (before: 65536)
    assert not plan(b"POST /api/login HTTP/1.1\r\nContent-Length: 20000").in_loop  # its thread, under its pool
    assert plan(b"POST /api/login HTTP/1.1\r\nContent-Length: 16384").in_loop
    head = CHUNKED_LOG_IN
    assert Chunked(len(head)).feed(head + b"1\r\nx\r\n" * 64 + b"0\r\n\r\n") > 0  # a client's few chunks
    assert Chunked(len(head)).feed(head + b"1\r\nx\r\n" * 65) == -1  # before: 21,800 were parsed in the loop


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    with Production(tmp_path_factory.mktemp("by_sender") / "bank", header_seconds=20).prepare().start() as server:
        yield server


def _worst_get(url: str, tries: int = 3) -> float:
    worst = 0.0
    for _ in range(tries):
        started = time.monotonic()
        try:
            urllib.request.urlopen(url + "/api/public", timeout=20).read()
            worst = max(worst, time.monotonic() - started)
        except OSError:
            worst = max(worst, 99.0)
        time.sleep(0.3)
    return worst


@pytest.mark.serial("times a page's answers while strangers' bodies load the worker")
def test_strangers_bodies_of_one_byte_chunks_leave_the_bank_answering(served):
    """240 connections from 4 addresses, each a log-in body of 21,800 one-byte chunks that never ends."""
    body = CHUNKED_LOG_IN + b"1\r\nx\r\n" * 21800
    socks = []
    try:
        for address in range(4):
            for _ in range(60):
                sock = socket.create_connection(("127.0.0.1", served.port), timeout=5,
                                                source_address=(f"127.0.4.{address + 1}", 0))
                try:
                    sock.sendall(body)
                except OSError:
                    pass  # answered and closed before the whole body went
                socks.append(sock)
        worst = _worst_get(served.url)
        print(f"\nthe worst of 3 answers beside 240 bodies of one-byte chunks: {worst:.2f} s")
        assert worst < 2.0  # before: 8-30 s (the loop parsing chunks, then threads draining them)
    finally:
        for sock in socks:
            sock.close()


def test_the_leads_paper_batch_over_what_the_loop_reads_still_books(served):
    lead = Api(served.url, timeout=20).login()
    try:
        text = "\n".join(f"# note {n} " + "x" * 40 for n in range(900))  # 47 KB of notes, read in the lead's thread
        status, reply = lead.request("POST", "/api/paper/batch", {"batch": "big-batch-1", "text": text})
        assert status == 200, reply
        assert len(reply["lines"]) == 900 or reply.get("booked", 0) == 0, reply
    finally:
        lead.close()
