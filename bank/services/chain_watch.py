"""The bank's chain as its witnesses see it, and the bank as a witness of its own file.

The pages keep the chain's head they saw (static/js/witness.js) and ask the bank whether its chain still holds
it. But the bank remembered the heads it wrote and answered from memory, and booked on after another program
rewrote the game's file under it (rows changed, the chain rebuilt: `verify` says ok): the rewrite was seen only
after a restart. Now the bank is a witness too: the newest head this process wrote (or first read) is its
anchor, and

- a booking refuses a row whose previous head is no longer the one the bank knew (the SQLite chain row is
  written only while the stored head is the tip held in memory, bank/store/journal.py; a transaction that read
  the head with its BEGIN, PostgreSQL's, compares it with the anchor): no statement more per command;
- `check_chain()`, off the booking path (the serving process's clock loop, every few seconds), reads the stored
  head at the anchor: one indexed read;
- `sweep_rows()`, after it, reads and hashes the next SWEEP_ROWS rows on the heads stored before them: a row edited
  with its chain left keeps every head, which only `serve` saw, at a restart;
- once any of them saw it, the bank books nothing more on that file (`rewritten`), and the witnesses' questions
  (`stored_head_at`) are answered from the file, never from memory.
Split from bank/services/bank.py (its 400 lines). `Bank` inherits this; it uses its `_lock`, `_journal`, `_last_seq`,
`_recent` and `_written`.
"""

from __future__ import annotations

from bank.store import chain, succession
from bank.store.journal import REWRITTEN, rewritten
from bank.store.storage import StorageError

SWEEP_ROWS = 500  # read and hashed at each look (every 5 s): 1.3 ms CPU (bench_sweep.py); 50,000 rows in 8 minutes


class ChainWitness:
    """Bank's side of the chain: its heads for the pictures, the witnesses' questions, and its own check."""

    rewritten: dict | None = None  # {"saw": {seq, hash}, "head": {seq, hash} or None}: what check_chain found
    _anchor: tuple[int, str] | None = None  # the newest (seq, head) this process wrote, or read at its first check
    _game_mark: str | None = None  # game_mark(), read once: the meta it comes from never changes
    _swept = 0  # the last entry sweep_rows read

    def _append_row(self, row: dict) -> int:
        """Inside the transaction: the journal's append, refused on a file rewritten under this bank."""
        journal, anchor = self._journal, self._anchor
        if self.rewritten is not None:
            raise rewritten(journal.path, self.rewritten["saw"]["seq"], self.rewritten["saw"]["hash"],
                            self.rewritten.get("why"))
        # The transaction's first row, on a head read with this transaction (PostgreSQL's BEGIN, SQLite's first
        # booking): the head at the anchor's entry is read already, no statement more. A tip kept from an earlier
        # transaction (SQLite's) answers the anchor itself here: the chain row's statement checks it.
        if not self._written and anchor is not None and journal.committed_seq() == anchor[0] \
                and journal.head() != anchor[1]:
            self._noticed(*anchor)
            raise rewritten(journal.path, *anchor)
        try:
            return journal.append(row)
        except StorageError as exc:
            if exc.code == REWRITTEN:
                self._noticed(exc.params["seq"], exc.params["held"])
            raise

    def _noticed(self, seq: int, held: str, head: dict | None = None) -> None:
        if self.rewritten is None:
            self.rewritten = {"saw": {"seq": seq, "hash": held}, "head": head}

    def _note_written(self, seq: int, head: str) -> None:
        """After COMMIT: the newest entry this process wrote is its anchor."""
        self._anchor = (seq, head)

    def check_chain(self) -> dict | None:
        """Whether the game's file still holds the head this process wrote (or first read) at its anchor: None
        while it does; else {"saw": {seq, hash}, "head": {seq, hash}}, the head the bank knew and the file's head
        now (kept: the bank books nothing more). Off the booking path: one read on a reader connection."""
        found = self.rewritten
        if found is None:
            anchor = self._anchor
            if anchor is None:
                seq, head = self.chain_head()
                if seq:
                    self._anchor = (seq, head) if self._anchor is None else self._anchor
                return None
            if self._journal.head_at(anchor[0]) == anchor[1]:
                return None
            self._noticed(*anchor)
            found = self.rewritten
        if found["head"] is None:
            seq, head = self.chain_head()
            found["head"] = {"seq": seq, "hash": head}
        return found

    def sweep_rows(self, most: int = SWEEP_ROWS) -> dict | None:
        """Off the booking path, after check_chain: the next `most` rows read and hashed on the heads stored before
        them, from entry 1 again once the end is reached. A row edited with its chain left keeps every head, so
        check_chain and the pages cannot see it (before: only `serve` at a restart did). Found: kept as `rewritten`
        with "why" (the bank books nothing more), and returned; else None."""
        if self.rewritten is not None:
            return self.rewritten
        # The rows this bank committed (folded from other processes each second): not the journal's tip, which on
        # SQLite is read on the writer connection the bank's lock alone may use, and shows a booking not yet committed.
        last = self._last_seq
        first = self._swept + 1 if self._swept < last else 1
        upto = min(last, first + most - 1)
        problem = self._journal.chain_problem_between(first, upto) if last else None
        self._swept = upto
        if problem is None:
            return None
        held = self._journal.head_at(upto) or ""
        self._noticed(upto, held, {"seq": upto, "hash": held})
        self.rewritten["why"] = problem
        return self.rewritten

    def chain_head(self) -> tuple[int, str]:
        """(seq, hash) of the last journal row, its hash chained to every row before it."""
        with self._lock, self._journal.read_view():  # the entry and its hash from one moment
            return self._journal.last_seq(), self._journal.head()

    def head_at(self, seq: int) -> str | None:
        """The chain's head at entry `seq` as stored (None: no such entry): what each picture carries for the
        phones that witness the journal (static/js/witness.js). Remembered: a committed entry's
        head never changes, and each round's pictures ask it again; the entries this process wrote, from
        the moment they were committed."""
        found = self._recent.head(seq)
        if found is None:
            found = self._journal.head_at(seq)
            if found is not None:
                self._recent.note_head(seq, found)
        return found

    def journal_rows_with_heads(self, after_seq: int = 0):
        """(row, the chain's head at its entry as stored) for the committed rows after `after_seq`, streamed in
        one read (exports: a head read per row cost a statement per row, a round trip on PostgreSQL)."""
        return self._journal.rows_with_heads(after_seq)

    def stored_head_at(self, seq: int) -> str | None:
        """The chain's head at entry `seq` as the game's file holds it now (None: no such entry): what a witness
        asks (bank/web/field/chain_routes.py). Never from memory: after a rewrite under the bank, memory answers
        the head the witness kept and it would never see the file changed."""
        return self._journal.head_at(seq)

    def chain_at(self, seq: int) -> str | None:
        """The chain's hash at entry `seq`, recomputed from the rows (None: no such entry)."""
        return self._journal.chain_at(seq)

    def game_mark(self) -> str:
        """What names this game to the pages that witness its journal (static/js/witness.js): a hash of when
        it was created (its meta), not of its first entry, so a journal rebuilt from entry 1 is still this
        game and the pages compare their heads with it; `init --force` makes another game, which
        declares the one it replaced (previous_game)."""
        if self._game_mark is None:
            self._game_mark = chain.game_mark(self._journal.meta("created_at"), self._journal.meta("identity"))
        return self._game_mark

    def previous_game(self) -> dict | None:
        """The game this one replaced, as its creation declared it ({"game": mark, "seq", "hash": its last
        entry and head}), bound into this game's chain (bank/store/chain.py); None: it replaced none (or was
        made before games declared it). A page that held a head of that game is told of a new game."""
        return succession.declared(self._journal.meta(chain.PREVIOUS_KEY))
