"""A throwaway Redis server for the tests of several server processes.

Debian's redis-server on a free port of 127.0.0.1, nothing saved to disk, stopped at the
end of the test session. `.ci/run` installs it; without it those tests skip and say why.
"""

from __future__ import annotations

import shutil
import socket
import subprocess
import tempfile
import time

from postgres_kit import PortTaken, on_a_free_port


def missing_reason() -> str | None:
    from needs import reason

    return reason("redis-server", "redis")


class Server:
    def __init__(self, also_listen: str | None = None):
        """`also_listen`: an address beside 127.0.0.1 (a veth's host side, tests/netns_kit.py); its clients
        are not loopback's, so protected mode, which refuses them without a password, is off then."""
        self.also_listen = also_listen
        self.folder = tempfile.mkdtemp(prefix="terrabank-redis-")
        self.port = on_a_free_port(self._start)
        self.url = f"redis://127.0.0.1:{self.port}/0"

    def _start(self, port: int) -> int:
        self.port = port
        self.proc = subprocess.Popen(
            ["redis-server", "--port", str(port), "--bind", "127.0.0.1", *([self.also_listen] if self.also_listen else []),
             "--save", "", "--appendonly", "no", "--dir", self.folder,
             "--protected-mode", "no" if self.also_listen else "yes"],
            stdout=subprocess.DEVNULL, stderr=subprocess.STDOUT)
        if self._answers():
            return port
        exited = self.proc.poll() is not None
        self.proc.kill()
        self.proc.wait()
        if exited:
            raise PortTaken()  # redis-server exits at once when it cannot bind
        raise RuntimeError(f"redis-server did not answer on port {port} within 20 s")

    def _answers(self) -> bool:
        """Whether this redis-server answers PING within 20 s (False at once if it exited)."""
        deadline = time.monotonic() + 20
        while True:
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=1) as s:
                    s.sendall(b"PING\r\n")
                    if s.recv(16).startswith(b"+PONG"):
                        return True
            except OSError:
                pass
            if self.proc.poll() is not None or time.monotonic() > deadline:
                return False
            time.sleep(0.05)

    def restart(self, down: float = 1.0) -> None:
        """Stop this redis-server (as `systemctl restart redis-server` does: every client's connection
        and subscription ends, nothing is kept), wait `down` seconds, start it again on its port."""
        self._end()
        time.sleep(down)
        self._start(self.port)

    def stop(self) -> None:
        self._end()
        shutil.rmtree(self.folder, ignore_errors=True)

    def _end(self) -> None:
        self.proc.terminate()
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
