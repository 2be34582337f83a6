"""Deadlines of sockets reading a request, enforced by the worker's loop.

Its own module because three others set or clear them: the worker (a head's
deadline), the admission of bodies (a body's, shorter without a secret) and the server.
"""

from __future__ import annotations

import socket
import threading
import time


class Deadlines:
    """Sockets reading a request, each with the time it must be done by.

    The worker's main loop (about once a second) shuts an overdue socket down, which
    ends the thread's blocked read at once: a per-read timeout alone would let a client
    sending one byte every few seconds hold a thread for ever.
    """

    def __init__(self):
        self._lock = threading.Lock()
        self._due: dict[socket.socket, float] = {}
        self._closing: set = set()
        self._whole: set = set()  # sockets whose request's body the worker's loop already read

    def close_after(self, sock) -> None:
        """This connection ends with its reply: a refused body is not read (Gunicorn would drain it
        for up to 5 s in a pool thread, and a slow client would hold that thread meanwhile)."""
        with self._lock:
            self._closing.add(sock)

    def closing(self, sock) -> bool:
        with self._lock:
            found = sock in self._closing
            self._closing.discard(sock)
            return found

    def read_whole(self, sock) -> None:
        """The worker's loop read this request's body before giving it a thread (worker.py LOOP_BODY)."""
        with self._lock:
            self._whole.add(sock)

    def taken_whole(self, sock) -> bool:
        """Whether the loop read this request's body (once: the next request on the connection is asked again)."""
        with self._lock:
            found = sock in self._whole
            self._whole.discard(sock)
            return found

    def set(self, sock, seconds: float) -> None:
        with self._lock:
            self._due[sock] = time.monotonic() + seconds

    def clear(self, sock) -> None:
        with self._lock:
            self._due.pop(sock, None)

    def forget(self, sock) -> None:
        """A closed connection: nothing of it is kept."""
        with self._lock:
            self._due.pop(sock, None)
            self._closing.discard(sock)
            self._whole.discard(sock)

    def overdue(self) -> list:
        now = time.monotonic()
        with self._lock:
            late = [s for s, t in self._due.items() if t < now]
            for s in late:
                del self._due[s]
        return late

    def enforce(self) -> int:
        late = self.overdue()
        for sock in late:
            try:
                sock.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
        return len(late)


DEADLINES = Deadlines()  # one worker process, one table
