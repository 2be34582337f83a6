"""A TCP proxy on 127.0.0.1 that reads the WebSocket frames it forwards and can lose one.

For tests/web/push/test_browser_delta.py: a browser's Socket.IO connection passes
through it; `drop_next(test)` loses the next server->client text message for which
test(text) is true, as a lost or late-overtaken message would; `sent` lists the text
messages the page sent (client->server frames are masked: unmasked here to read them).

The browser offers permessage-deflate and the server (simple-websocket) accepts it;
the proxy removes that offer from the handshake so every frame is plain text to read.
Plain HTTP (Socket.IO's first long-polling requests) is forwarded untouched. Built on
tests/tcp_proxy.Proxy (accepting, closing every connection at the end).
"""

from __future__ import annotations

import re
import socket
import struct
import threading

from tcp_proxy import Proxy

TEXT = 1  # the opcode of a text frame


class WsProxy(Proxy):
    def __init__(self, target_port: int):
        self.received: list[str] = []   # server -> client text messages forwarded
        self.sent: list[str] = []       # client -> server text messages
        self.dropped: list[str] = []
        self.websockets = 0
        self._drop = None
        self._texts = threading.Lock()
        super().__init__(target_port)   # starts accepting: everything _open uses is set above

    def drop_next(self, test) -> None:
        with self._texts:
            self._drop = test

    def _open(self, client: socket.socket) -> None:
        incoming = _Stream(client)
        try:
            server = socket.create_connection(self.target)
        except OSError:
            client.close()
            return
        with self._lock:
            self._pairs.append((client, server))  # reset by close()
        try:
            head = _read_head(incoming)
        except (OSError, EOFError):
            client.close()
            return
        upgrade = b"upgrade: websocket" in head.lower()
        if upgrade:
            head = re.sub(rb"(?im)^sec-websocket-extensions:[^\r\n]*\r\n", b"", head)
            with self._texts:
                self.websockets += 1
        if not upgrade:
            server.sendall(head + incoming.buffer)
            threading.Thread(target=self._pump, args=(client, server), daemon=True).start()
            self._pump(server, client)
            return
        server.sendall(head)
        threading.Thread(target=self._frames, args=(incoming, server, False), daemon=True).start()
        self._frames(_Stream(server), client, True)

    def _frames(self, stream: "_Stream", dst: socket.socket, from_server: bool) -> None:
        """Forward frame by frame (after the server's handshake reply), noting and maybe dropping texts."""
        src = stream.sock
        try:
            if from_server:
                dst.sendall(_read_head(stream))
            while True:
                raw, opcode, text = stream.frame()
                if opcode == TEXT and text is not None:
                    if from_server and self._should_drop(text):
                        continue
                    with self._texts:
                        (self.received if from_server else self.sent).append(text)
                dst.sendall(raw)
        except (OSError, EOFError):
            for s in (src, dst):
                try:
                    s.close()
                except OSError:
                    pass

    def _should_drop(self, text: str) -> bool:
        with self._texts:
            if self._drop is not None and self._drop(text):
                self._drop = None
                self.dropped.append(text)
                return True
        return False


class _Stream:
    def __init__(self, sock: socket.socket):
        self.sock, self.buffer = sock, b""

    def take(self, n: int) -> bytes:
        while len(self.buffer) < n:
            chunk = self.sock.recv(65536)
            if not chunk:
                raise EOFError
            self.buffer += chunk
        out, self.buffer = self.buffer[:n], self.buffer[n:]
        return out

    def frame(self) -> tuple[bytes, int, str | None]:
        """(the frame's bytes, its opcode, its text when it is a whole unfragmented text frame)."""
        head = self.take(2)
        fin, opcode, masked, length = head[0] & 0x80, head[0] & 0x0F, head[1] & 0x80, head[1] & 0x7F
        extra = b""
        if length == 126:
            extra = self.take(2)
            length = struct.unpack("!H", extra)[0]
        elif length == 127:
            extra = self.take(8)
            length = struct.unpack("!Q", extra)[0]
        mask = self.take(4) if masked else b""
        payload = self.take(length)
        data = bytes(b ^ mask[i % 4] for i, b in enumerate(payload)) if masked else payload
        text = data.decode("utf-8", "replace") if fin and opcode == TEXT else None
        return head + extra + mask + payload, opcode, text


def _read_head(stream: _Stream) -> bytes:
    """An HTTP head, up to its blank line (what follows stays in the stream's buffer)."""
    head = b""
    while b"\r\n\r\n" not in head:
        head += stream.take(1)
    return head
