"""Where a request's body ends, found by the worker's loop before the request gets a thread.

A slow body read in a pool thread holds that thread until its deadline: dripped one byte a second
from a few addresses with a Trias seat link or a team link, such bodies held every thread, the phones
waited for them and the lead could not log in. Every body of a route's size is therefore read
by the loop, whatever its framing: a Content-Length, chunked, or either after `Expect: 100-continue`
(the loop sends the "100 Continue" itself and removes the header, so Gunicorn does not send it again).
A body the loop does not read (bigger than LOOP_BODY, a framing Gunicorn will refuse) goes to a thread
under admission.py's body pools and deadlines.
"""

from __future__ import annotations

# A body up to this size is read by the loop: a log-in, a command or a booking is a few hundred bytes, and no
# route takes more than 16 KB (read_object's limits) but the lead's paper batch (60 KB), which its thread reads
# under its sender's pool (admission.py: a stranger's draws on the anonymous threads, with their short deadline).
# Before, the loop read up to 64 KB from anyone: 960 strangers' bodies one byte short of it held 61 MB in the worker.
LOOP_BODY = 16384
CONTINUE = b"HTTP/1.1 100 Continue\r\n\r\n"
MAX_CHUNK_LINE = 1024  # a chunk's size line (with extensions) or a trailer line: longer goes to Gunicorn
# Chunks of one body the loop reads: a client sends a body in a few (a browser sends a Content-Length). Each costs
# the loop, which every connection waits on, a turn of Python; 960 strangers' bodies of 21,800 one-byte chunks kept
# it from reading any other request for 30 s. More go to a thread, under the sender's pool.
MAX_CHUNKS = 64


class Plan:
    """How the loop reads one request's body: `length` bytes, or `chunked`; `expect`: answer 100 Continue first.
    `handoff`: the thread reads it (no body, too big, or a framing Gunicorn judges)."""

    __slots__ = ("length", "chunked", "expect", "handoff")

    def __init__(self, length: int = 0, chunked: bool = False, expect: bool = False, handoff: bool = False):
        self.length, self.chunked, self.expect, self.handoff = length, chunked, expect, handoff

    @property
    def in_loop(self) -> bool:
        return not self.handoff and (self.chunked or self.length > 0)


def plan(head: bytes) -> Plan:
    """The plan for a request whose head (without its blank line) is `head`."""
    length, chunked, expect, http10 = None, False, False, head.split(b"\r\n", 1)[0].endswith(b"/1.0")
    for line in head.split(b"\r\n")[1:]:
        name, _, value = line.partition(b":")
        name, value = name.strip().lower(), value.strip().lower()
        if name == b"transfer-encoding":
            if chunked or value != b"chunked":  # "gzip, chunked", twice: Gunicorn decides
                return Plan(handoff=True)
            chunked = True
        elif name == b"expect":
            if expect or value != b"100-continue":  # Gunicorn answers 417 at once, reading no body
                return Plan(handoff=True)
            expect = True
        elif name == b"content-length":
            if length is not None or not value.isdigit():
                return Plan(handoff=True)
            length = int(value)
    if chunked and (length is not None or http10):
        return Plan(handoff=True)  # both framings, or chunked in HTTP/1.0: Gunicorn refuses it
    if not chunked and (length is None or length == 0):
        return Plan()  # no body: nothing to read, and a lone Expect is harmless
    if length is not None and length > LOOP_BODY:
        return Plan(handoff=True)
    return Plan(length or 0, chunked, expect and not http10)


def without_expect(head: bytes) -> bytes:
    """The head without its Expect line: the loop answered it."""
    lines = head.split(b"\r\n")
    return b"\r\n".join([lines[0]] + [line for line in lines[1:]
                                      if line.partition(b":")[0].strip().lower() != b"expect"])


class Chunked:
    """Finds the end of a chunked body as its bytes come, without reading any twice.

    feed(data) with everything received so far (head included) returns the offset just past the body's
    last CRLF, None while more is to come, or -1: bigger than LOOP_BODY in data (or twice that with its
    framing), in more than MAX_CHUNKS chunks, or not chunked framing (the thread reads on, and Gunicorn refuses
    what it must)."""

    __slots__ = ("pos", "total", "in_trailers", "most", "chunks")

    def __init__(self, start: int):
        self.pos, self.total, self.in_trailers, self.chunks = start, 0, False, 0
        # The framing counts too: 16 KB as one-byte chunks would be 96 KB to hold (MAX_CHUNKS stops it sooner).
        self.most = start + 2 * LOOP_BODY

    def feed(self, data: bytes) -> int | None:
        if len(data) > self.most:
            return -1
        while True:
            eol = data.find(b"\r\n", self.pos, self.pos + MAX_CHUNK_LINE + 2)
            if eol < 0:
                return None if len(data) - self.pos <= MAX_CHUNK_LINE else -1
            line = data[self.pos:eol]
            if self.in_trailers:
                self.pos = eol + 2
                if not line:
                    return self.pos
                self.chunks += 1  # a trailer line costs the loop as a chunk does
                if self.chunks > MAX_CHUNKS:
                    return -1
                continue
            size_text = line.split(b";", 1)[0].strip()
            if not size_text or any(c not in b"0123456789abcdefABCDEF" for c in size_text):
                return -1
            size = int(size_text, 16)
            if size == 0:
                self.pos, self.in_trailers = eol + 2, True
                continue
            if self.total + size > LOOP_BODY or self.chunks >= MAX_CHUNKS:
                return -1
            after = eol + 2 + size
            if len(data) < after + 2:
                return None  # the chunk's data is still coming: its size line is read again then
            if data[after:after + 2] != b"\r\n":
                return -1
            self.total += size
            self.chunks += 1
            self.pos = after + 2
