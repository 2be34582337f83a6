"""What the bank asks of a journal, whatever holds it.

Two implementations: bank/store/journal.py (one SQLite file per game, the default, nothing
changes for a Pi) and bank/store/journal_pg.py (PostgreSQL, several games in one database).
bank/store/storage_url.py chooses between them from the database URL. Bank (bank/services/bank.py)
and JournalService (bank/services/journal_service.py) use only what is listed here, so a third
store, or several server processes on one game, need no change in them.

Guarantees every implementation keeps:
- rows are append-only: the database itself refuses UPDATE and DELETE of journal,
  snapshot, meta and chain rows (a correction is a new row);
- a command id is stored at most once per game (a unique constraint, not a check);
- a decision is made on every booked row: each process appends at the seq after the last row it
  folded, the primary key refuses it when another process booked that seq first, and the command
  is decided again on the rows it missed (`retried`, below); nothing is written twice or lost.
  SQLite's `transaction()` holds the game's write lock from BEGIN IMMEDIATE to COMMIT, but the
  bank decides on the tip it keeps in memory (no read before the row), so a row another
  process booked since its last transaction is found by the same refusal; PostgreSQL's takes the
  game's lock with BEGIN, before the head is read: the processes of one game wait their turn, and
  only a program writing beside the bank can make a try lose;
- each row's hash is chained to the previous one (bank/store/chain.py), the same bytes on
  both stores, so a game keeps its chain head whichever store holds it.
"""

from __future__ import annotations

from contextlib import AbstractContextManager
from typing import Callable, Iterator, Protocol, TypeVar

from bank.store.storage import StorageError

# The refusals meaning "another process booked this seq, or this command id, at the same moment":
# nothing was written, and the same command decided again on the rows it missed will be booked
# (or answered as the retry it is).
RETRIED = ("journal_moved_on", "id_taken")
TRIES = 6  # a try loses only to a row booked outside the game's lock (SQLite: another process's since our tip)
T = TypeVar("T")


def retried(attempt: Callable[[], T], tries: int = TRIES) -> T:
    """attempt() (one transaction: catch up, decide, append) again while another process booked the
    seq or the id it claimed first; its last refusal once `tries` are spent (only a program writing
    to the game outside the bank can make every try lose)."""
    for n in range(1, tries + 1):
        try:
            return attempt()
        except StorageError as exc:
            if exc.code not in RETRIED or n == tries:
                raise
    raise AssertionError("unreachable")


class JournalStore(Protocol):
    """One game's journal, meta, snapshots and time-line checkpoint."""

    path: object  # what names the game in messages (a file path, or the game in a database)
    check_name: str  # what `verify` calls integrity_check()'s findings
    # True: the bank books a command's first try without find() (SQLite): append() refuses a
    # booked id with "id_taken" and a seq another process booked with "journal_moved_on", and only then
    # is the id looked up. False (PostgreSQL): find() first on every try.
    optimistic_ids: bool

    # The game's write lock and one database transaction; ROLLBACK on any exception. `folded`: the last
    # seq the caller applied, whose later rows (committed_rows) PostgreSQL reads in BEGIN's round trip.
    def transaction(self, folded: int | None = None) -> AbstractContextManager: ...

    def find(self, command_id: str) -> dict | None: ...
    def append(self, row: dict) -> int: ...
    def rows(self, after_seq: int = 0) -> Iterator[dict]: ...
    # (row, the chain's head at its entry as stored), in the same read: an export's rows with their heads.
    def rows_with_heads(self, after_seq: int = 0) -> Iterator[tuple[dict, str | None]]: ...
    def row(self, seq: int) -> dict | None: ...
    def last_seq(self) -> int: ...
    # The last seq committed by any process; inside `transaction()`, read when it began, before it
    # writes (SQLite: the tip kept from its last transaction, checked by the append's seq): what a
    # process compares with the rows it has folded (its append claims the next seq).
    def committed_seq(self) -> int: ...
    # The rows after `after_seq` up to committed_seq(), in order: inside `transaction()` those a decision
    # builds on; outside, every one committed now (PostgreSQL: one read, no committed_seq() before it).
    def committed_rows(self, after_seq: int) -> Iterator[dict]: ...

    def head(self) -> str: ...
    def chain_at(self, seq: int) -> str | None: ...
    # The head at a row as stored (its snapshot's binding if one stands there): what the phones witness.
    def head_at(self, seq: int) -> str | None: ...
    # Read in one view (below): a row committed meanwhile by another process is no break.
    def chain_problem(self) -> str | None: ...
    # The same for rows first..last, each on the head stored before it: a sweep's window, off the booking path.
    def chain_problem_between(self, first: int, last: int) -> str | None: ...
    # Every read of the calling thread inside sees one moment of the game (SQLite: one read
    # transaction; PostgreSQL: REPEATABLE READ), while other processes go on booking.
    def read_view(self) -> AbstractContextManager: ...

    def meta(self, key: str) -> str | None: ...
    def identity(self) -> dict: ...
    def settings(self) -> dict: ...

    # Snapshots are sealed with the chain's hash at their row (bank/store/snapshots.py): the newest
    # sealed one, checked (StorageError if edited); all of them unchecked; the seals that fail.
    def latest_snapshot(self) -> tuple[int, dict] | None: ...
    def snapshots(self) -> Iterator[tuple[int, dict]]: ...
    def snapshot_problems(self) -> list[str]: ...
    def write_snapshot(self, seq: int, state: dict) -> None: ...

    def save_checkpoint(self, timeline: float, wall: float) -> None: ...
    def last_checkpoint(self) -> tuple[float, float] | None: ...

    # "ok", or what the database's own checks found.
    def integrity_check(self) -> str: ...

    # Make everything written durable in its final place (SQLite: empty the WAL).
    def checkpoint(self) -> None: ...

    def close(self) -> None: ...


class JournalTarget(Protocol):
    """Where a game's journal lives: creates, opens, replaces it (bank/store/storage_url.py)."""

    name: str  # for messages: the file, or the game's name in the database

    def exists(self) -> bool: ...
    def check_creatable(self) -> None: ...
    # Where a new game is built before `replace` puts it in place (never half-created).
    def temporary(self) -> "JournalTarget": ...

    def create(self, config_text: str, identity: dict, previous: dict | None = None) -> JournalStore: ...
    def open(self) -> JournalStore: ...
    def remove(self) -> None: ...
    # Put this (finished, closed) game where `destination` names, durably.
    def replace(self, destination: "JournalTarget") -> None: ...
