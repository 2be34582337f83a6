"""A connection evicted at the cap earlier in the same turn of the worker's loop is skipped.

At the connection cap, accepting a newcomer closes the oldest connection that has not sent its
headers (worker.py `evict`). The poller may already have listed that connection as readable in
the same turn: its callback then ran on a closed connection, removed it from a queue it had left,
and the ValueError ("not in deque") killed the worker. Gunicorn restarted it with every connection
lost; under slow headers from 8 addresses phones waited up to 10 s (tests/web/serving/test_slow_senders.py
shows it served; here, the callbacks alone, without timing).
"""

from __future__ import annotations

import selectors
import socket
from collections import deque

from bank.web.serving.worker import worker_classes


class Evicted:
    """What the callbacks read of a connection that evict() has closed."""

    def __init__(self, sock):
        self.sock, self.head, self.released = sock, b"", True


def a_worker():
    _conn, guarded_worker = worker_classes()
    worker = guarded_worker.__new__(guarded_worker)  # the loop's state only: no Gunicorn arbiter
    worker.pending_conns, worker.keepalived_conns = deque(), deque()
    worker.poller, worker.nr_conns = selectors.DefaultSelector(), 0
    return worker


def test_a_head_callback_on_a_connection_evicted_in_the_same_turn_does_nothing():
    ours, theirs = socket.socketpair()
    theirs.close()  # evict() closed it: a read now ends at once
    worker = a_worker()
    try:
        worker.on_pending_socket_readable(Evicted(ours), ours)
        worker.on_client_socket_readable(Evicted(ours), ours)
        assert worker.nr_conns == 0 and not worker.pending_conns and not worker.keepalived_conns
    finally:
        ours.close()
        worker.poller.close()
