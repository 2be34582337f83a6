"""New Trias games per device counted in PostgreSQL, shared by every server process of a bank.

On one machine the count lives in memory (bank/web/rate.py Window: twenty new games per
device in ten minutes). With several `terrabank serve` processes each would count alone,
and a script whose requests the proxy spreads over N processes could start N times as
many. Here the count is rows in the database, checked and added under one advisory lock
per bank game, on the database's clock (the processes' hosts may disagree).

Like the Window it refuses without counting the refusal, and a row dated in the future
(the database's clock set back) is not counted: a clock mistake lets a device start again,
it never locks one out. Rows older than the window are deleted as the bank's devices come.
The table is not the ledger (no append-only guard) and is made with IF NOT EXISTS under
its own lock, so the journal's schema version does not change.
"""

from __future__ import annotations

import zlib

from bank.store.journal_pg_connect import display_url, pg_errors
from bank.store.journal_pg_schema import ensure_tables
from bank.store.storage import StorageError

STARTS_LOCK_SPACE = 0x7454  # first key ("tT") of a bank's new-games lock; a hash of the bank's prefix the second
_SCHEMA_LOCK = -2  # second key, under the journal's LOCK_SPACE, while the table is made (access uses -1)
_TABLE = """
CREATE TABLE IF NOT EXISTS terrabank.trias_starts(
    bank TEXT NOT NULL,                      -- the Trias games' name prefix: "<bank game>/trias/"
    device TEXT NOT NULL,
    at DOUBLE PRECISION NOT NULL);
CREATE INDEX IF NOT EXISTS trias_starts_bank_at ON terrabank.trias_starts(bank, at);
"""


class SharedWindow:
    """At most `limit` new games per device over the last `seconds`, for every process of one bank.

    The interface of bank/web/rate.py Window: `take(key)` counts one use and returns 0, or
    returns the seconds to wait and counts nothing."""

    def __init__(self, pool, bank: str, limit: int, seconds: float):
        self.pool, self.bank, self.limit, self.seconds = pool, bank, limit, seconds
        self._table_made = False
        self._lock_key = zlib.crc32(bank.encode()) - 2**31  # the lock's second key is a signed 32-bit number

    def take(self, key: str) -> float:
        try:
            with self.pool.connection() as conn, pg_errors(display_url(self.pool.url)):
                if not self._table_made:
                    _make_table(conn)
                    self._table_made = True
                return self._take(conn, str(key)[:200])
        except StorageError:
            # Not counted, not refused: the new game itself then meets the database and says what fails.
            return 0.0

    def _take(self, conn, device: str) -> float:
        with conn.transaction():
            conn.execute("SELECT pg_advisory_xact_lock(%s, %s)", (STARTS_LOCK_SPACE, self._lock_key))
            now = conn.execute("SELECT extract(epoch FROM clock_timestamp())::float8").fetchone()[0]
            since = now - self.seconds
            conn.execute("DELETE FROM terrabank.trias_starts WHERE bank = %s AND at <= %s", (self.bank, since))
            used, first = conn.execute("SELECT count(*), min(at) FROM terrabank.trias_starts WHERE bank = %s "
                                       "AND device = %s AND at > %s AND at <= %s",
                                       (self.bank, device, since, now)).fetchone()
            if used >= self.limit:
                return max(0.001, first + self.seconds - now)
            conn.execute("INSERT INTO terrabank.trias_starts(bank, device, at) VALUES (%s, %s, %s)",
                         (self.bank, device, now))
            return 0.0


def _make_table(conn) -> None:
    ensure_tables(conn, "terrabank.trias_starts", _SCHEMA_LOCK, _TABLE)
