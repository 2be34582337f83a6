"""permessage-deflate with a small window and a small zlib memory level.

Every browser offers permessage-deflate, and simple-websocket accepts it with wsproto's
`PerMessageDeflate()` at its defaults: a 32 KB window (15 bits) and zlib's memLevel 8, so the
worker kept a ~256 KB compressor and a 32 KB decompressor for each open page (200 pages:
+34 MB PSS, over P3's 100 MB for the whole tree). Our messages are small (a round's patch
is about 1 KB, a whole picture a few KB): a 4 KB window still reaches the previous message,
and a small hash table costs a few bytes a message (bench/web/push/bench_bytes.py measures it).

`SmallDeflate` answers every offer with `server_max_window_bits=WINDOW_BITS` (RFC 7692 7.1.2.1:
a server may say so even when the offer did not ask), and with `client_max_window_bits` at
most WINDOW_BITS when the page allows it (Chromium and Firefox offer the bare parameter);
a page that did not offer it may compress with 15 bits, so its decompressor keeps 15.

What a page sends is inflated at most `most` bytes a message (MAX_MESSAGE, Engine.IO's own
max_http_buffer_size): wsproto inflates a compressed frame whole, whatever it gives, and deflate
shrinks a run of one letter about a thousand times. One anonymous socket sending 200 MB of "a"
(200 KB on the wire) took the worker from 45 to 372 MB at its peak, 244 MB still held after, and the
push loop inflated it while every page waited; the size check of the loop (hub_page.py) came only
after. Now inflating stops at `most` + 1 bytes and the page is closed with 1009 (message too big).

simple-websocket has no parameter for the extension: `Base._handle_events` builds
`PerMessageDeflate()` from its module's globals for each connection. `install()` replaces that
one global, once, and fails loudly if the libraries no longer have the shape it was written
for (simple-websocket 1.1.0, wsproto 1.3.2).
"""

from __future__ import annotations

import zlib

from wsproto.extensions import PerMessageDeflate
from wsproto.frame_protocol import CloseReason

WINDOW_BITS = 12  # 4 KB: a round's patch and the one before it (10 bits cost +37% bytes at 400 pages)
MEM_LEVEL = 3     # zlib's hash table and literal buffer: 2 x 4 KB instead of 2 x 128 KB at 8
# The compressor then allocates about (1 << WINDOW_BITS + 2) + (1 << MEM_LEVEL + 9) = 20 KB (zconf.h).
MAX_MESSAGE = 64 * 1024  # bytes a page's message may inflate to: Engine.IO's max_http_buffer_size (extensions.py)


class SmallDeflate(PerMessageDeflate):
    """wsproto's permessage-deflate, server side, with WINDOW_BITS and MEM_LEVEL."""

    def __init__(self, most: int = MAX_MESSAGE) -> None:
        super().__init__(server_max_window_bits=WINDOW_BITS)
        self.most = most      # bytes one message of the page may inflate to
        self._inflated = 0    # of the message coming in now

    def frame_inbound_header(self, proto, opcode, rsv, payload_length):
        if self._inbound_compressed is None:  # a new message (wsproto's state: None between messages)
            self._inflated = 0
        return super().frame_inbound_header(proto, opcode, rsv, payload_length)

    def frame_inbound_payload_data(self, proto, data):
        """wsproto's, inflating at most what is left of `most` (+ 1, to tell "too big" from "just fits")."""
        if not self._inbound_compressed or not self._inbound_is_compressible:
            return data
        try:
            out = self._decompressor.decompress(bytes(data), self.most - self._inflated + 1)
        except zlib.error:
            return CloseReason.INVALID_FRAME_PAYLOAD_DATA
        return self._counted(out)

    def frame_inbound_complete(self, proto, fin):
        if self._inflated > self.most:
            return CloseReason.MESSAGE_TOO_BIG
        if not (fin and self._inbound_is_compressible and self._inbound_compressed):
            return super().frame_inbound_complete(proto, fin)
        try:  # the end of the message: its last bytes (RFC 7692 7.2.2), bounded as the rest
            out = self._decompressor.decompress(b"\x00\x00\xff\xff", self.most - self._inflated + 1)
        except zlib.error:
            return CloseReason.INVALID_FRAME_PAYLOAD_DATA
        out = self._counted(out)
        if isinstance(out, CloseReason):
            return out
        if self.client_no_context_takeover:
            self._decompressor = None
        self._inbound_compressed = None
        return out

    def _counted(self, out: bytes):
        """`out`, or MESSAGE_TOO_BIG once the message inflated past `most` (the rest is never inflated)."""
        self._inflated += len(out)
        if self._inflated > self.most or self._decompressor.unconsumed_tail:
            self._inflated = self.most + 1
            return CloseReason.MESSAGE_TOO_BIG
        return out

    def accept(self, offer: str) -> str | None:
        """The response's parameters, or None to decline an offer that cannot be honoured (no deflate then)."""
        try:
            client_bits, server_bits = self._parse_params(offer)
            if server_bits is not None and not 9 <= server_bits <= 15:
                return None  # out of RFC 7692's range: decline, the page goes on uncompressed
            self.server_max_window_bits = min(server_bits or WINDOW_BITS, WINDOW_BITS)
            parameters = [name for name, on in (("client_no_context_takeover", self.client_no_context_takeover),
                                                ("server_no_context_takeover", self.server_no_context_takeover)) if on]
            parameters.append(f"server_max_window_bits={self.server_max_window_bits}")
            if client_bits is None:
                self.client_max_window_bits = 15  # not offered: the page may use the whole window
            else:
                self.client_max_window_bits = min(client_bits, WINDOW_BITS)  # ValueError below 9
                parameters.append(f"client_max_window_bits={self.client_max_window_bits}")
        except ValueError:  # "server_max_window_bits=abc", "client_max_window_bits=3"
            return None
        self._enabled = True
        return "; ".join(parameters)

    def frame_outbound(self, proto, opcode, rsv, data, fin):
        """wsproto's, with the compressor made here first: wsproto's own takes zlib's default memLevel."""
        if self._compressor is None and self._compressible_opcode(opcode):
            self._compressor = zlib.compressobj(zlib.Z_DEFAULT_COMPRESSION, zlib.DEFLATED,
                                                -self.server_max_window_bits, MEM_LEVEL)
        return super().frame_outbound(proto, opcode, rsv, data, fin)


def install() -> None:
    """Make simple-websocket's servers accept permessage-deflate with SmallDeflate (idempotent)."""
    from simple_websocket import ws

    handle = getattr(getattr(ws, "Base", None), "_handle_events", None)
    uses_global = handle is not None and "PerMessageDeflate" in handle.__code__.co_names
    hooks = all(hasattr(PerMessageDeflate, name) for name in ("_parse_params", "_compressible_opcode",
                                                             "frame_outbound", "accept"))
    current = getattr(ws, "PerMessageDeflate", None)
    if not (uses_global and hooks and current in (PerMessageDeflate, SmallDeflate)
            and hasattr(PerMessageDeflate(), "_compressor")):
        raise RuntimeError(
            "bank/web/push/deflate.py was written for simple-websocket 1.1.0 and wsproto 1.3.2, whose "
            "server builds PerMessageDeflate() from simple_websocket.ws's globals; the installed versions "
            "differ, so the small deflate window cannot be set: pin those versions, or adapt "
            "install() to how the new simple-websocket chooses its extensions")
    ws.PerMessageDeflate = SmallDeflate
