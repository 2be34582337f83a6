"""A TCP proxy on 127.0.0.1 that can cut the network the way a field does.

`cut()` black-holes traffic: bytes are no longer forwarded in either direction, but no
connection is closed, as when a phone walks out of Wi-Fi range (nobody is told; the
browser and the server only notice through their own time-outs). New connections are
accepted and held the same way. `restore()` forwards again what was held; `restore(drop=
True)` instead resets every connection opened so far (the access point forgot them),
so only new connections work. Used by tests/system/test_faults_network.py.
"""

from __future__ import annotations

import socket
import threading
import weakref


class Proxy:
    def __init__(self, target_port: int, target_host: str = "127.0.0.1"):
        self.target = (target_host, target_port)
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.port = self.listener.getsockname()[1]
        self.url = f"http://127.0.0.1:{self.port}"
        self._flowing = threading.Event()
        self._flowing.set()
        self._lock = threading.Lock()
        self._pairs: list[tuple[socket.socket, socket.socket]] = []
        self._closed = False
        threading.Thread(target=self._accept, daemon=True).start()

    def cut(self) -> None:
        """Stop forwarding, close nothing."""
        self._flowing.clear()

    def restore(self, drop: bool = False) -> None:
        """Forward again; with drop=True first reset every connection made so far."""
        if drop:
            with self._lock:
                pairs, self._pairs = self._pairs, []
            for pair in pairs:
                for s in pair:
                    _reset(s)
        self._flowing.set()

    def connections(self) -> int:
        with self._lock:
            return len(self._pairs)

    def close(self) -> None:
        self._closed = True
        self._flowing.set()
        self.listener.close()
        self.restore(drop=True)

    def __enter__(self) -> "Proxy":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def _accept(self) -> None:
        while not self._closed:
            try:
                client, _ = self.listener.accept()
            except OSError:
                return
            threading.Thread(target=self._open, args=(client,), daemon=True).start()

    def _open(self, client: socket.socket) -> None:
        self._flowing.wait()  # while cut, a new connection waits: its SYN got "no answer"
        try:
            server = socket.create_connection(self.target)
        except OSError:
            _reset(client)
            return
        with self._lock:
            self._pairs.append((client, server))
        for src, dst in ((client, server), (server, client)):
            threading.Thread(target=self._pump, args=(src, dst), daemon=True).start()

    def _pump(self, src: socket.socket, dst: socket.socket) -> None:
        """Copy src to dst; while cut, hold what was read (and an end of stream) until restored."""
        try:
            while True:
                data = src.recv(65536)
                self._flowing.wait()
                if not data:
                    if src not in _RESET:  # an end of stream, passed on; a reset ends both sides itself
                        dst.shutdown(socket.SHUT_WR)
                    return
                dst.sendall(data)
        except OSError:
            _reset(src)
            _reset(dst)


_RESET: weakref.WeakSet = weakref.WeakSet()  # the sockets _reset ended, so their pumps pass on no end of stream


def _reset(s: socket.socket) -> None:
    """Close with RST rather than FIN: the other side learns at once that it is gone.

    Its pump thread is blocked in recv() on it: close() alone released nothing while that call held the socket,
    and the RST left only once a byte came (a page learnt that restore(drop=True) had dropped its connection
    from its own ping time-out, 20 s). shutdown(SHUT_RD) wakes that recv() and sends nothing; close() then
    resets."""
    _RESET.add(s)
    try:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, b"\1\0\0\0\0\0\0\0")
        s.shutdown(socket.SHUT_RD)
    except OSError:
        pass
    try:
        s.close()
    except OSError:
        pass
