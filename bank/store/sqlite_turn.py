"""The write turn of one SQLite file in this process: the bank's own writers wait in line for it.

SQLite's write lock has no queue: a connection that finds it taken sleeps (1 to 100 ms) and tries
again until its busy_timeout. The journal, booking commands back to back under a burst, frees the
lock for microseconds between two transactions, so a log-in's session row or failure count (written
on the accounts' connections) could find it taken at every try for 5 s and answer 503 database_busy,
every holder being the bank itself. So each of the bank's writers of a file (journal.Transaction,
the accounts' writing statements, the failed log-ins' transaction) takes this turn first, in order of
arrival, and asks SQLite only when it is its turn: SQLite's busy_timeout is left for another program
holding the file. No rules, no SQL.
"""

from __future__ import annotations

import os
import threading
import weakref
from collections import deque

from bank.store.storage import StorageError

# A turn waited for this long means a writer holding it is stuck on the file itself (another program
# holding it past the busy timeout, a disk that stalls): the waiter is refused, nothing written.
WAIT = 10.0

_TURNS: weakref.WeakValueDictionary = weakref.WeakValueDictionary()
_TURNS_LOCK = threading.Lock()


class WriteTurn:
    """A reentrant lock served first come, first served (threading.RLock lets a thread that just
    released it take it again before the ones waiting: the journal's writer would starve them)."""

    def __init__(self, path: str):
        self.path = path
        self._cond = threading.Condition(threading.Lock())
        self._owner: int | None = None
        self._depth = 0
        self._line: deque = deque()

    def __enter__(self) -> WriteTurn:
        me = threading.get_ident()
        with self._cond:
            if self._owner == me:  # an accounts' write inside the journal's transaction, on one thread
                self._depth += 1
                return self
            self._line.append(me)
            try:
                if not self._cond.wait_for(lambda: self._owner is None and self._line[0] == me, WAIT):
                    raise StorageError("database_busy", f"The database {self.path} stayed busy for {WAIT:g} seconds "
                                       "(another program holding it, or a disk that stalls): nothing was recorded; "
                                       "send it again in a moment.", path=self.path)
            finally:
                self._line.remove(me)
                self._cond.notify_all()  # the next in line, when this one gave up
            self._owner, self._depth = me, 1
            return self

    def __exit__(self, *exc) -> bool:
        with self._cond:
            self._depth -= 1
            if self._depth == 0:
                self._owner = None
                self._cond.notify_all()
        return False


def turn_for(path) -> WriteTurn:
    """The one turn of this file in this process (kept while a journal or an accounts store uses it)."""
    key = os.path.realpath(path)
    with _TURNS_LOCK:
        turn = _TURNS.get(key)
        if turn is None:
            turn = _TURNS[key] = WriteTurn(key)
        return turn
