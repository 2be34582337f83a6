"""The bank's clock duties and its catch-up: ticks, holds after a jump of the machine's clock (R34),
the time line's heartbeat, and folding the rows other processes booked.

Split from bank/services/bank.py when that file reached its 400 lines. `Bank` inherits
these; they use its `_lock`, `_journal`, `_state`, `_last_seq`, `_clock`, `config` and its booking
(`_execute`, `_append`, `_commit_state`, `_context`).
"""

from __future__ import annotations

from collections import deque

from bank.game import engine
from bank.services import recent_rows, timeline
from bank.services.bank_result import Result
from bank.store.journal_api import retried
from bank.store.rows import fingerprint
from bank.store.storage import StorageError
from bank.game.state import GameState

HEARTBEAT_SECONDS = 5.0  # while the game clock runs, how often the time line is checkpointed
TICK_PREFIX = "tick:"


class ClockKeeping:
    """Bank's side of the clock: what time does to the game, and the rows booked elsewhere."""

    def hold_if_suspect(self) -> Result | None:
        """At the start of the server: pause a running game clock if the machine's clock
        cannot be trusted for the time the bank was off (R34); None if nothing to do.

        Only the serving process calls this: a CLI command opening the game for a
        look must never write into a game another process is running.
        """
        jump, self._start_jump = self._start_jump, None
        return None if jump is None else self._hold(jump)

    def watch_clock(self) -> Result | None:
        """Called every second by the server: a jump of the machine's clock pauses a running
        game clock and says what was seen (R34); a heartbeat checkpoints the time line."""
        # A jump whose hold could not be written (disk full) is kept and tried again next second:
        # the clock has already taken the new reading as its reference and would not see it twice.
        jump = self._unheld_jump or self._clock.jumped()
        if jump is not None:
            self._unheld_jump = jump
            result = self._hold(jump)
            self._unheld_jump = None
            return result
        if self._state.clock["status"] == "running" and self.now() - self._last_beat >= HEARTBEAT_SECONDS:
            self._beat()
        return None

    def _hold(self, jump: timeline.Jump) -> Result | None:
        """Journal the bank's hold_clock command (it pauses only a running clock)."""
        self.catch_up()  # another process of the game may have paused it already: no empty row then
        if self._state.clock["status"] != "running":
            self._beat()  # the new reading of the system clock is the reference from now on
            return None
        command = {**engine.hold_command(jump.as_cause()),
                   "id": f"{TICK_PREFIX}hold:{self._last_seq + 1}:{self._process_tag}"}
        return self._execute(command, self.now(), tick=True)

    def _beat(self) -> None:
        """Checkpoint the time line outside any command (its own small transaction); none on a rewritten file."""
        if self.rewritten is not None:
            return
        with self._lock:
            point = self._clock.checkpoint()
            with self._journal.transaction():
                self._journal.save_checkpoint(point.timeline, point.wall)
            self._last_beat = point.timeline

    def tick(self, now: float | None = None) -> Result | None:
        """Let the clock act (session ends, deadlines); journal it only if it did something."""
        return retried(lambda: self._tick(self.now() if now is None else now))  # again if another process booked first

    def _tick(self, now: float) -> Result | None:
        with self._lock:
            # Decided on the live state first: a timer calling this every second
            # touches the database only when time actually changed something.
            events, _ = self._decide_tick(self._state, now)
            if not events:
                return None
            self._written = []  # a try rolled back before this one left its rows here: not committed
            with self._journal.transaction(folded=self._last_seq):
                # Decided again on every row committed so far: another process may have booked
                # this very tick a moment ago.
                now = self._catch_up(now)
                events, new_state = self._decide_tick(self._state, now)
                if not events:
                    return None
                seq = self._append_tick(events, new_state, now)
            self._remember_written()  # after COMMIT (bank.py)
            self._commit_state(seq, new_state)
            return Result(seq, events)

    def probe(self) -> None:
        """What a command meets before it decides, nothing written: the hold, the journal's writer and its
        BEGIN, the rows other processes booked. Readiness asks this (bank/web/health.py), so "ready" means
        the next command would book; a StorageError says why not."""
        with self._lock:
            self._catch_up(self.now())  # a plain read first: a database that does not answer is said as such
            with self._journal.transaction(folded=self._last_seq):
                self._catch_up(self.now())

    def catch_up(self, upto: int | None = None) -> int | None:
        """Fold the rows other processes committed since this one last looked.

        Several server processes may run one game; each keeps its own live state, and
        each command already catches up before it decides. This
        is for the rest: a notice from another process, the once-a-second look, a page
        connecting. Returns the new last seq, or None when nothing was new.
        `upto`: the seq a notice told of; no read if this process holds it by the time it has the lock (a
        command of its own, which it waited for, brought the rows with its BEGIN).
        """
        with self._lock:
            before = self._last_seq
            if upto is not None and before >= upto:
                return None
            self._catch_up(self.now())
            return self._last_seq if self._last_seq != before else None

    def _catch_up(self, now: float) -> float:
        """Under the lock: make the live state that of every committed row; returns `now`, moved
        forward if another process journalled a later time (one time line for all processes).

        The rows are committed (by another process), so the new state goes live at once, even
        if the command being decided is then refused or rolled back."""
        # The usual case is no row: one indexed read (in a PostgreSQL transaction: none, they came with BEGIN).
        # The last rows folded are kept for the rounds; a long catch-up holds no more of them than that.
        draft, seq, at, folded = None, self._last_seq, None, deque(maxlen=recent_rows.KEEP)
        for row in self._journal.committed_rows(seq):
            if draft is None:
                draft = self._state.draft()
            if row["seq"] != seq + 1:
                raise StorageError("journal_gap", f"The journal of {self._journal.path} jumps from entry {seq} "
                                   f"to {row['seq']}: run `terrabank verify`; nothing was recorded.")
            for event in row["events"]:
                draft.apply(event)
            seq, at = row["seq"], row["at"]
            folded.append(row)
        if draft is None:
            return now
        self._remember_folded(list(folded))  # committed by another process: the rounds need not read them again
        self._commit_state(seq, draft.commit())
        if at is not None and self._clock.advance_to(at):
            return max(now, at)
        return now

    def _decide_tick(self, state: GameState, now: float) -> tuple[list, GameState]:
        """What the clock tick would do to `state` at `now` (nothing is written)."""
        if not engine.tick_due(state, self.config, now):
            return [], state  # the usual case, decided without copying the state
        return engine.handle(state, self.config, engine.tick_command(), self._context(now))

    def _append_tick(self, events: list, new_state: GameState, now: float) -> int:
        """Inside a transaction: journal a tick that had events, as row tick:<seq>."""
        seq = self._last_seq + 1
        command = {**engine.tick_command(), "id": f"{TICK_PREFIX}{seq}"}
        return self._append(seq, command["id"], fingerprint(command), command, events, now,
                            new_state)

