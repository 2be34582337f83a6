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

simple-websocket has no parameter for the extension: `Base._handle_events` builds
`PerMessageDeflate()` from its module's globals for each connection. `install()` replaces that
one global, once, and fails loudly if the libraries no longer have the shape it was written
for (simple-websocket 1.1.0, wsproto 1.3.2).
"""

from __future__ import annotations

import zlib

from wsproto.extensions import PerMessageDeflate

WINDOW_BITS = 12  # 4 KB: a round's patch and the one before it (10 bits cost +37% bytes at 400 pages)
MEM_LEVEL = 3     # zlib's hash table and literal buffer: 2 x 4 KB instead of 2 x 128 KB at 8
# The compressor then allocates about (1 << WINDOW_BITS + 2) + (1 << MEM_LEVEL + 9) = 20 KB (zconf.h).


class SmallDeflate(PerMessageDeflate):
    """wsproto's permessage-deflate, server side, with WINDOW_BITS and MEM_LEVEL."""

    def __init__(self) -> None:
        super().__init__(server_max_window_bits=WINDOW_BITS)

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
