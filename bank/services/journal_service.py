"""A game service on the bank's journal, for any engine: ids, one lock, rebuild, verify.

The bank (bank/services/bank.py) grew its own service around one engine; a second game
(Trias, bank/services/trias_games.py) needs the same discipline without the bank's rules:
an append-only journal in SQLite (WAL, synchronous=FULL, hash chain), a command
applied at most once per id, one lock per game, and the live state rebuilt from
the rows on open. The engine comes in as two functions:

    decide(state, command, seq) -> (events, new_state)   # raises to refuse: nothing is written
    rebuild(rows) -> state                               # the state a list of journal rows gives

No Flask, no rules here.
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Iterator

from bank.errors import BankError, CommandError, IdConflict
from bank.store.journal import REWRITTEN, Journal, StorageError  # noqa: F401 (StorageError re-exported)
from bank.store.journal_api import retried
from bank.store.storage_url import as_target
from bank.store.rows import check_command_id, fingerprint, seq_problems
from bank.store.storage import backup_hint


@dataclass(frozen=True)
class Result:
    """What a command did: its journal seq, its events, and whether it was a retry of an earlier id."""

    seq: int
    events: list
    duplicate: bool = False


class JournalService:
    """One game file: the live state, its journal and the lock that orders its commands."""

    def __init__(self, journal: Journal, state, rebuild: Callable, where=None):
        self._file: Journal | None = journal
        self._path = journal.path
        self._where = as_target(where if where is not None else journal.path)  # to open it again
        self._state = state
        self._rebuild = rebuild
        self._last_seq = journal.last_seq()
        self._lock = threading.RLock()  # re-entrant: an engine's decide may read rows under it
        # The service as a witness of its own file (as the bank's, bank/services/chain_watch.py): the newest
        # (seq, head) it wrote or read at open must stay in the file. A Trias game booked on after another program
        # rebuilt its chain: the journal's own guard checks the head it re-read with the command's look-up.
        self._anchor: tuple[int, str] | None = (self._last_seq, journal.head()) if self._last_seq else None
        self.rewritten: dict | None = None  # {"why"} (and the anchor's "seq", "held" when its head was lost)

    @classmethod
    def create(cls, path, identity: dict, rebuild: Callable, first: dict | None = None,
               decide: Callable | None = None, kind: str = "") -> "JournalService":
        """A new game file at `path` (0600, must not exist) whose meta holds `identity`.

        `first`, when given, is journalled at once under its own "id" (a set-up row),
        so a game never exists on disk without it: a failure removes the file.
        """
        where = as_target(path)  # a file path, or a storage_url target (PostgreSQL)
        journal = where.create(kind, identity)
        service = cls(journal, rebuild([]), rebuild, where)
        if first is not None:
            try:
                service.execute(first, first["id"], first.get("actor"), decide)
            except BaseException:
                service.close()
                where.remove()
                raise
        return service

    @classmethod
    def open(cls, path, rebuild: Callable, kind: str | None = None, trusted: bool = True) -> "JournalService":
        """Open an existing game file and rebuild its state from every row.

        `kind`: refuse a file created for another kind of game (as `create` names it)
        before its rows are replayed, e.g. the bank's database copied among Trias games.
        `trusted`: refuse a journal whose rows no longer match its chain (a row edited, the chain left), naming
        the first such row, as `serve` refuses the bank's (bank/services/bank_verify.py `tampered`); before, a
        Trias game edited while the server was down opened and was played on. False for `verify`, which lists
        every problem of it.
        """
        where = as_target(path)
        journal = where.open()
        try:
            found = journal.meta("config_text")
            if kind is not None and found != kind:
                raise StorageError("wrong_kind", f"{path} is a Terrabank file but not a {kind} game: move it "
                                   "out of this folder", path=str(path), kind=kind)
            broken = journal.chain_problem() if trusted else None  # its own read of the rows: +1 ms CPU a game (bench)
            if broken:
                raise StorageError("journal_edited", f"The journal of {path} cannot be trusted: {broken}. Nothing is "
                                   "played on it: `verify` names every problem; restore the game's file from a backup "
                                   "copy, or start a new game", path=str(path), problem=broken)
            state = rebuild(list(journal.rows()))
        except BankError:
            journal.close()
            raise
        except Exception as exc:  # a row edited by hand may not even fold: a sentence, not a crash
            journal.close()
            raise StorageError("journal_unreplayable", f"The journal of {path} cannot be replayed "
                               f"({type(exc).__name__}: {str(exc)[:80]}): it was changed by hand or damaged. "
                               f"{backup_hint(path)}", path=str(path)) from None
        except BaseException:
            journal.close()
            raise
        return cls(journal, state, rebuild, where)

    @property
    def _journal(self) -> Journal:
        """The open game file, opened again on first use after `release()`."""
        with self._lock:
            if self._file is None:
                self._file = self._where.open()
            return self._file

    @property
    def is_open(self) -> bool:
        """Whether the file's connections are open now (see `release`)."""
        return self._file is not None

    def release(self) -> bool:
        """Close the file's connections until the next use; False if a command holds the game now.

        A folder of games must not keep each one's writer and readers open (about 5 files
        each): at the usual limit of 1,024 files a few hundred games would leave the server
        unable to open anything, the bank's own database included. The state stays in memory.
        A journal on shared PostgreSQL connections (bank/store/journal_pg_pool.py) holds none between
        uses: releasing it only forgets its handle, and the next use finds the game by name again.
        """
        if not self._lock.acquire(blocking=False):
            return False
        try:
            if self._file is not None:
                self._file.close()
                self._file = None
            return True
        finally:
            self._lock.release()

    @property
    def path(self) -> Path:
        return self._path

    @property
    def lock(self) -> threading.RLock:
        """The game's lock: hold it to read the state and rows as one consistent picture."""
        return self._lock

    @property
    def state(self):
        """The live state after the last committed row (never changed in place)."""
        return self._state

    @property
    def last_seq(self) -> int:
        return self._last_seq

    def identity(self) -> dict:
        """The identity dict the game was created with."""
        with self._lock:  # release() must not close the file under this read
            return self._journal.identity()

    def meta(self, key: str) -> str | None:
        with self._lock:  # release() must not close the file under this read
            return self._journal.meta(key)

    def execute(self, command: dict, command_id: str, actor: str | None, decide: Callable,
                after_seq: int | None = None) -> Result:
        """Journal and apply `command` once per id; a retry gets the first result again.

        The same id with other content is refused (IdConflict); whatever `decide`
        raises is re-raised with nothing written. `after_seq`: apply only if the last
        row is still that one (a move chosen for a position that has not changed),
        else CommandError "stale".
        """
        stored = {**command, "id": command_id, "actor": actor}
        check_command_id(stored)
        print_ = fingerprint(stored)
        # Decided again on the rows missed when another process booked the same seq or id first
        # (a row booked outside the game's lock: bank/store/journal_api.py).
        return retried(lambda: self._execute_once(stored, command_id, actor, decide, after_seq, print_))

    def _execute_once(self, stored: dict, command_id: str, actor: str | None, decide: Callable,
                      after_seq: int | None, print_: str) -> Result:
        with self._lock:
            with self._journal.transaction():
                known = self._journal.find(command_id)
                if known is not None:
                    return _duplicate(known, print_)
                self._witness()
                self._catch_up()
                if after_seq is not None and after_seq != self._last_seq:
                    raise CommandError("stale", f"the game moved on (entry {self._last_seq}) since this command "
                                       f"was chosen at entry {after_seq}: choose again", seq=self._last_seq)
                seq = self._last_seq + 1
                events, new_state = decide(self._state, stored, seq)
                row = {"seq": seq, "command_id": command_id, "fingerprint": print_,
                       "type": str(stored.get("type")), "actor": actor, "at": time.time(),
                       "command": stored, "events": events}
                seq = self._journal.append(row)
                head = self._journal.head()  # the row just appended: known, no statement
            # Only a committed row reaches the live state.
            self._last_seq, self._state, self._anchor = seq, new_state, (seq, head)
            return Result(seq, events)

    def _witness(self) -> None:
        """Inside the write transaction: refuse to book on a file that no longer holds the anchor's head (another
        program rewrote the journal, its chain rebuilt, or cut it back). The head the transaction read with the
        command's look-up answers when no other process booked since (no statement more); else one indexed read."""
        if self.rewritten is not None:
            raise self._refusal()
        anchor, journal = self._anchor, self._journal
        if anchor is None:
            return
        held = journal.head() if journal.committed_seq() == anchor[0] else journal.head_at(anchor[0])
        if held != anchor[1]:
            self._found(anchor)
            raise self._refusal()

    def _found(self, anchor: tuple | None = None, problem: str | None = None) -> dict:
        """What `rewritten` keeps: {"why": a sentence}, with the anchor's "seq" and "held" head when it was lost."""
        if self.rewritten is None:
            self.rewritten = ({"why": problem} if anchor is None else {
                "seq": anchor[0], "held": anchor[1],
                "why": f"entry {anchor[0]} no longer holds the chain head this process wrote or read there "
                       f"({anchor[1][:12]})"})
        return self.rewritten

    def _refusal(self) -> StorageError:
        return StorageError(REWRITTEN, f"The journal of {self._path} was changed by another program while the game "
                            f"ran: {self.rewritten['why']}. Nothing was recorded, and nothing more is: keep a copy of "
                            "the file for the inquiry, and start a new game.", **self.rewritten)

    def check_chain(self, if_open: bool = False, rows: bool = False) -> dict | None:
        """Off the booking path: None while the file holds the anchor's head (one indexed read) and, with `rows`,
        while every row matches its chain (a row edited with the chain left, which the anchor cannot see: the rows
        read and hashed, about 1 ms a 126-row game); else what `rewritten` keeps (the service then books nothing
        more). `if_open`: a released file is not opened again for it (its next command checks)."""
        with self._lock:
            if if_open and self._file is None:
                return self.rewritten
            anchor = self._anchor
            if self.rewritten is None and anchor is not None and self._journal.head_at(anchor[0]) != anchor[1]:
                self._found(anchor)
            if self.rewritten is None and rows and (problem := self._journal.chain_problem()):
                self._found(problem=problem)
            return self.rewritten

    def duplicate_of(self, command_id: str) -> Result | None:
        """The result stored under `command_id`, as a retry, or None."""
        with self._lock:  # release() must not close the file under this read
            known = self._journal.find(command_id)
        return None if known is None else Result(known["seq"], known["events"], duplicate=True)

    def _catch_up(self) -> None:
        """Inside the write transaction: rebuild if another process (a CLI beside the server)
        appended rows since, so a command is never decided on a stale state. Inside it, the last seq
        as the transaction began (its append claims the next one); outside, the last one now."""
        on_disk = self._journal.committed_seq()
        if on_disk != self._last_seq:  # (the rows read may go further: another process booked meanwhile)
            rows = [r for r in self._journal.rows() if r["seq"] <= on_disk]
            self._state, self._last_seq = self._rebuild(rows), on_disk

    def refresh(self) -> bool:
        """Pick up rows another process appended; True if there were any."""
        with self._lock:
            before = self._last_seq
            self._catch_up()
            return self._last_seq != before

    def find(self, command_id: str) -> dict | None:
        """The row journalled under `command_id`, or None."""
        with self._lock:  # release() must not close the file under this read
            return self._journal.find(command_id)

    def row(self, seq: int) -> dict | None:
        with self._lock:  # release() must not close the file under this read
            return self._journal.row(seq)

    def rows(self, after_seq: int = 0) -> Iterator[dict]:
        """Committed rows after `after_seq`, in order.

        Read whole under the lock: a game's journal is short, and a stream left half read
        would hold a connection that `release()` must be free to close.
        """
        with self._lock:
            return iter(list(self._journal.rows(after_seq)))

    def head(self) -> str:
        """The hash chain's head (write it down to anchor the chain)."""
        with self._lock:  # release() must not close the file under this read
            return self._journal.head()

    def verify(self) -> list[str]:
        """Every problem found: chain, missing seqs, rows unlike their print, replay != live.

        Read in one view of the journal, and the live state compared with the replay
        of the rows up to its own seq: rows another process adds meanwhile are not a difference."""
        with self._lock:
            with self._journal.read_view():
                broken = self._journal.chain_problem()
                rows = list(self._journal.rows())
            problems = [broken] if broken else []
            problems += seq_problems(rows)
            try:
                if self._rebuild([r for r in rows if r["seq"] <= self._last_seq]) != self._state:
                    problems.append("the live state differs from the replayed journal")
                if rows and rows[-1]["seq"] > self._last_seq:
                    self._rebuild(rows)  # the rows booked since by another process replay too
            except Exception as exc:  # a tampered event may not even apply
                problems.append(f"the journal cannot be replayed ({type(exc).__name__}: {exc})")
            integrity = self._journal.integrity_check()
            if integrity != "ok":
                problems.append(f"{self._journal.check_name}: {integrity}")
            return problems

    def settings(self) -> dict:
        with self._lock:  # release() must not close the file under this read
            return self._journal.settings()

    def close(self) -> None:
        with self._lock:
            if self._file is not None:
                self._file.close()
                self._file = None


def _duplicate(known: dict, print_: str) -> Result:
    """A retried id: the stored result if the content matches, else IdConflict."""
    if known["fingerprint"] != print_:
        raise IdConflict("id_conflict", f"The id '{known['command_id']}' was already used for another "
                         f"command (journal seq {known['seq']}): use a new id for a new command.",
                         id=known["command_id"], seq=known["seq"])
    return Result(known["seq"], known["events"], duplicate=True)
