"""A connection to PostgreSQL that timed out in a network cut leaves no socket open behind it.

Before: psycopg's connect that timed out kept its half-made connection in a frame its exception's traceback
held in a cycle, so the socket stayed open until Python's cycle collector happened to run. A serving process
cut from PostgreSQL tries to take its hold back four times a second: the master's open descriptors went from
7 to 21, then 35, over two 45 s cuts (probe, two processes behind a proxy that held the packets), and when the
cut healed PostgreSQL met every one of those connections. Here PostgreSQL behind a cut is a listener that
accepts and never answers; the collector is held off, as a quiet master's may be for minutes.
"""

from __future__ import annotations

import gc
import socket
import threading

import pytest

pytest.importorskip("psycopg")

from bank.store.journal_pg_connect import connect  # noqa: E402
from bank.store.storage import StorageError  # noqa: E402

TRIES = 3


def still_open(sock: socket.socket) -> bool:
    """Whether the client of this accepted connection still holds it (no end of stream within half a second)."""
    sock.settimeout(0.5)
    try:
        while sock.recv(65536):  # libpq's start-up message, then the end of the stream once the client closed
            pass
        return False
    except socket.timeout:
        return True
    except OSError:
        return False


def test_a_connect_that_timed_out_in_a_cut_leaves_no_socket_open():
    cut = socket.create_server(("127.0.0.1", 0))  # accepts, never answers: PostgreSQL behind a cut
    port = cut.getsockname()[1]
    accepted: list[socket.socket] = []

    def accept() -> None:
        while True:
            try:
                accepted.append(cut.accept()[0])
            except OSError:
                return

    threading.Thread(target=accept, daemon=True).start()
    collecting = gc.isenabled()
    gc.disable()
    try:
        for n in range(TRIES):  # a database each: a failure remembered for one URL is not tried again at once
            with pytest.raises(StorageError) as refused:
                connect(f"postgresql://bank@127.0.0.1:{port}/games{n}?connect_timeout=1")
            assert refused.value.code == "database_unreachable"
            del refused
        assert len(accepted) == TRIES
        left_open = [sock for sock in accepted if still_open(sock)]
    finally:
        if collecting:
            gc.enable()
        cut.close()
        for sock in accepted:
            sock.close()
    assert left_open == [], f"{len(left_open)} of {TRIES} timed-out connections still open"
