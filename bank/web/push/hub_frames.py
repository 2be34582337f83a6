"""The frames the push loop writes (hub.py): made once for every page that receives the same messages.

permessage-deflate with context takeover: a message may point back into the messages the page received
before it, and a round's picture repeats most of the one before (a booked command costs about half the
bytes it costs compressed on its own). A compressor's output can be read by any page whose last window of
received bytes (WINDOW_BITS: 4 KB) is the compressor's own last window, since a match reaches no further
back. So one compressor (a `Stream`) serves every page that received the same messages, a round emitted
to a room is compressed once per stream, not once per page, and no page holds a compressor of its own.

A page that leaves its room's sequence (a message of its own, a round it was left out of while its socket
was still sending) is alone in its stream: compressing for it alone would cost CPU and a compressor per
page again, so its messages are compressed from nothing (RFC 7692 lets a sender not use the history it
may use), shared with every page doing so with the same message. Its inflater still keeps what it
inflates: once its last window holds the same messages as a stream's (a few rounds of its room later),
it is served by that stream again.
"""

from __future__ import annotations

import threading
import weakref
import zlib

from bank.web.push import deflate

MIN_COMPRESS = 64  # bytes: a ping or a short reply goes plain (deflate's framing costs more than it saves)
CLOSE_FRAME = b"\x88\x02\x03\xe8"  # a close frame, status 1000 (normal closure)
NEXT_KEPT = 16  # messages a stream remembers the frame and stream after (a round's rooms, pages catching up)


class HubDeflate(deflate.SmallDeflate):
    """SmallDeflate for a page the hub serves (the hub compresses with hub_frames' streams, not wsproto)."""


def _header(opcode: int, rsv1: bool, length: int) -> bytes:
    first = 0x80 | (0x40 if rsv1 else 0) | opcode  # FIN, RSV1 for a compressed message; a server does not mask
    if length < 126:
        return bytes((first, length))
    if length < 65536:
        return bytes((first, 126)) + length.to_bytes(2, "big")
    return bytes((first, 127)) + length.to_bytes(8, "big")


def encoded(pkt) -> tuple[int, bytes]:
    """(opcode, payload) of an Engine.IO packet, made once and kept on it: every page of a room then hands the
    same bytes object to the streams, whose hash Python computes once."""
    done = pkt.__dict__.get("hub_payload")
    if done is None:
        data = pkt.encode()
        binary = isinstance(data, (bytes, bytearray))
        done = pkt.__dict__["hub_payload"] = (0x2 if binary else 0x1, bytes(data) if binary else data.encode())
    return done


def frame_of(pkt, compress: bool) -> bytes:
    """The WebSocket frame of an Engine.IO packet, compressed on its own (no history), kept on the packet."""
    frames = pkt.__dict__.setdefault("hub_frames", {})
    frame = frames.get(compress)
    if frame is None:
        opcode, payload = encoded(pkt)
        rsv1 = compress and len(payload) >= MIN_COMPRESS
        if rsv1:
            payload = _deflated(_packer(deflate.WINDOW_BITS), payload)
        frame = frames[compress] = _header(opcode, rsv1, len(payload)) + payload
    return frame


def _packer(bits: int):
    return zlib.compressobj(zlib.Z_DEFAULT_COMPRESSION, zlib.DEFLATED, -bits, deflate.MEM_LEVEL)


def _deflated(packer, payload: bytes) -> bytes:
    return (packer.compress(payload) + packer.flush(zlib.Z_SYNC_FLUSH))[:-4]  # RFC 7692 7.2.1


class Stream:
    """A compressor state: the compressed messages its pages received, in order, since it began from nothing."""

    __slots__ = ("packer", "seed", "known", "pages", "next", "__weakref__")

    def __init__(self, known: tuple, packer=None, seed: bytes | None = None):
        self.known = known    # its last messages, the fewest that fill a window (all of them while fewer)
        self.packer = packer  # zlib's compressor in this state; None for a stream begun at `seed` by one page
        self.seed = seed      # (such a stream's compressor is made again from it when a second page shares it)
        self.pages = 0
        self.next: dict = {}  # (opcode, payload) -> (frame from here, weakref to the stream after it)


class Streams:
    """Every compressed page's stream, for one window size; any thread may send (one lock for them all).

    A page's place is (stream, its own last messages): send() gives the frame and the page's next place."""

    def __init__(self, bits: int = deflate.WINDOW_BITS):
        self.bits, self.window = bits, 1 << bits
        self.lock = threading.Lock()
        self.root = Stream((), packer=_packer(bits))  # nothing sent yet; pages are never counted on it
        self.by_window: weakref.WeakValueDictionary = weakref.WeakValueDictionary()  # a full `known` -> Stream
        self.compressions = 0  # messages compressed (for tests and benches: once per stream, not per page)

    def send(self, place: tuple | None, opcode: int, payload: bytes) -> tuple[bytes, tuple]:
        """The frame of `payload` for a page at `place` (None: nothing compressed sent yet), and its place after."""
        stream, recent = place or (None, ())
        key = (opcode, payload)
        with self.lock:
            # A page whose last messages are its stream's own (the same tuple: most pages, most rounds) is where
            # it belongs; another may be served by the stream whose last window is its own.
            own = stream is not None and recent is stream.known
            if not own and recent and self._full(recent):
                same = self.by_window.get(recent)
                if same is not None:
                    if same is not stream:
                        self._move(stream, same)
                        stream = same
                    recent, own = same.known, True
            found = stream.next.get(key) if stream is not None else None
            after = found and found[1]()
            if after is None:
                if stream is None or stream.pages <= 1:
                    own, before = False, self.root  # alone: from nothing (see the module's doc)
                else:
                    before = stream
                found = before.next.get(key)
                after = found and found[1]()
                if after is None:
                    found, after = self._compress(before, opcode, payload)
            self._move(stream, after)
        # When this page's last messages were its stream's, they are now the next stream's (an equal tuple: the
        # same object is kept, so the next round takes the first test above).
        return found[0], (after, after.known if own else self._last(recent + (payload,)))

    def leave(self, place: tuple | None) -> None:
        if place is not None:
            with self.lock:
                self._move(place[0], None)

    @staticmethod
    def _move(stream: Stream | None, to: Stream | None) -> None:
        if stream is not None:
            stream.pages -= 1
        if to is not None:
            to.pages += 1

    def _full(self, messages: tuple) -> bool:
        return sum(map(len, messages)) >= self.window

    def _last(self, messages: tuple) -> tuple:
        """The fewest last messages that fill a window (all of them while they do not)."""
        total = 0
        for i in range(len(messages) - 1, -1, -1):
            total += len(messages[i])
            if total >= self.window:
                return messages[i:]
        return messages

    def _compress(self, before: Stream, opcode: int, payload: bytes) -> tuple:
        """(lock held) ((the frame of `payload` from `before`, a weakref to the stream after), that stream)."""
        if before.packer is None:  # a stream begun by one page, now shared: its compressor made again
            before.packer = _packer(self.bits)
            _deflated(before.packer, before.seed)
            before.seed = None
            self.compressions += 1
        packer = before.packer.copy()
        data = _deflated(packer, payload)
        self.compressions += 1
        known = self._last(before.known + (payload,))
        after = self.by_window.get(known) if self._full(known) else None
        if after is None:
            if before is self.root:  # most such streams stay one page's: keep the message, not a compressor
                after = Stream(known, seed=payload)
            else:
                after = Stream(known, packer=packer)
            if self._full(known):
                self.by_window[known] = after
        found = before.next[(opcode, payload)] = (_header(opcode, True, len(data)) + data, weakref.ref(after))
        if len(before.next) > NEXT_KEPT:  # the oldest first: a stream's pages have moved on from it
            del before.next[next(iter(before.next))]
        return found, after


_streams: dict = {}
_streams_lock = threading.Lock()


def streams(bits: int) -> Streams:
    """This process's streams for a window of `bits` (a page may ask for a smaller one than WINDOW_BITS)."""
    with _streams_lock:
        found = _streams.get(bits)
        if found is None:
            found = _streams[bits] = Streams(bits)
        return found
