"""The frames the push loop writes (hub.py): made once per Engine.IO packet for every page it goes to.

permessage-deflate without context takeover on the server's side (RFC 7692 7.1.1.1: a server may say so
whatever the page offered): a message compresses to the same bytes for every page, so it is compressed
once, and no page holds a compressor.
"""

from __future__ import annotations

import zlib

from bank.web.push import deflate

MIN_COMPRESS = 64  # bytes: a ping or a short reply goes plain (deflate's framing costs more than it saves)
CLOSE_FRAME = b"\x88\x02\x03\xe8"  # a close frame, status 1000 (normal closure)


class HubDeflate(deflate.SmallDeflate):
    """SmallDeflate, the server compressing each message on its own (server_no_context_takeover)."""

    def __init__(self) -> None:
        super().__init__()
        self.server_no_context_takeover = True


def _header(opcode: int, rsv1: bool, length: int) -> bytes:
    first = 0x80 | (0x40 if rsv1 else 0) | opcode  # FIN, RSV1 for a compressed message; a server does not mask
    if length < 126:
        return bytes((first, length))
    if length < 65536:
        return bytes((first, 126)) + length.to_bytes(2, "big")
    return bytes((first, 127)) + length.to_bytes(8, "big")


def frame_of(pkt, compress: bool) -> bytes:
    """The WebSocket frame of an Engine.IO packet, made once per packet and kept on it for the other pages."""
    frames = pkt.__dict__.setdefault("hub_frames", {})
    frame = frames.get(compress)
    if frame is None:
        data = pkt.encode()
        binary = isinstance(data, (bytes, bytearray))
        payload = bytes(data) if binary else data.encode()
        rsv1 = compress and len(payload) >= MIN_COMPRESS
        if rsv1:
            packer = zlib.compressobj(zlib.Z_DEFAULT_COMPRESSION, zlib.DEFLATED, -deflate.WINDOW_BITS,
                                      deflate.MEM_LEVEL)
            payload = (packer.compress(payload) + packer.flush(zlib.Z_SYNC_FLUSH))[:-4]  # RFC 7692 7.2.1
        frame = frames[compress] = _header(0x2 if binary else 0x1, rsv1, len(payload)) + payload
    return frame
