"""The bank service: engine + journal, one lock, one transaction per command."""

from __future__ import annotations

import itertools
import random
import secrets
import threading
import time
from typing import Iterator

from bank.game import engine
from bank.game.game_identity import config_problems, identity_problems  # noqa: F401 (re-exported)
from bank.store import storage_url, succession
from bank.services import timeline
from bank.services.recent_rows import RecentRows
from bank.services.bank_result import Result
from bank.services.bank_clock import HEARTBEAT_SECONDS, TICK_PREFIX, ClockKeeping  # noqa: F401 (re-exported)
from bank.services.bank_verify import fold, tampered, verify_journal
from bank.services.chain_watch import ChainWitness
from bank.errors import BankError, CommandError, IdConflict, NotAllowed
from bank.store.journal import Journal, StorageError
from bank.store.journal_api import retried
# The row helpers live in the store (bank/store/rows.py), shared with journal_service; re-exported here.
from bank.store.rows import MAX_ID_LENGTH, check_command_id, fingerprint, row_problems  # noqa: F401
from bank.game.state import GameState

SNAPSHOT_EVERY = 500
SETUP_ID = "setup"


class _Answered(Exception):
    """Inside a transaction: a retried id's stored result, raised so what the try wrote rolls back."""

    def __init__(self, result: Result):
        super().__init__(result)
        self.result = result


class Bank(ClockKeeping, ChainWitness):
    """A running game: the live state, its journal, and the lock that orders commands."""

    def __init__(self, journal: Journal, config, state: GameState, clock: timeline.BankClock | None = None,
                 start_jump: timeline.Jump | None = None, seq: int | None = None):
        """`seq`: the last row folded into `state` (default: the journal's last, read now)."""
        self.config = config
        self._journal = journal
        self._state = state
        self._last_seq = journal.last_seq() if seq is None else seq
        self._lock = threading.Lock()
        self._rng = random.SystemRandom()
        self._clock = clock or timeline.BankClock(time.time(), config.clock_tolerance)
        self._start_jump = start_jump
        self._unheld_jump: timeline.Jump | None = None
        self._last_beat = float("-inf")
        # Names this process in the ids of its own system commands: two processes seeing the same
        # jump of the machine's clock must not book the same id with different contents.
        self._process_tag = secrets.token_hex(3)
        self.reopened: dict | None = None  # set by open() when a game under way is opened again
        # The last rows committed and their heads (bank/services/recent_rows.py): what each broadcast round
        # asks again is answered without a read; `_written` holds the open transaction's rows until COMMIT.
        self._recent = RecentRows()
        self._written: list[tuple[dict, str]] = []

    @classmethod
    def create(cls, path, config, *, force: bool = False, wall=time.time, mono=time.monotonic) -> "Bank":
        """Create a new game at `path` and journal its setup; refuse an existing game.

        `path` names the SQLite file, or the game in PostgreSQL when a database URL is
        configured (bank/store/storage_url.py).
        """
        where = storage_url.target(path, config)
        if not force and where.exists():
            raise StorageError("database_exists", f"A game already exists at {where.name}: use "
                               f"`terrabank init --force` to replace it ({where.kept_note}), or choose "
                               "another --db name.", path=str(path))
        where.check_creatable()
        previous = succession.ending(where) if force else None  # the game this one replaces, declared in the new one
        # Build the game beside the target and put it in place when complete, so a crash
        # never leaves a half-created game where the bank will look for one.
        tmp = where.temporary()
        tmp.remove()
        bank = cls(tmp.create(config.text, config.identity(), previous), config,
                   GameState.initial(config), timeline.BankClock(wall(), config.clock_tolerance, wall=wall, mono=mono))
        try:
            bank._execute({**engine.setup_command(config), "id": SETUP_ID}, bank.now(),
                          tick=False)
            bank._journal.checkpoint()
        except BaseException:
            bank.close()
            tmp.remove()
            raise
        bank.close()
        tmp.replace(where)
        return cls.open(path, config, wall=wall, mono=mono)

    @classmethod
    def open(cls, path, config, *, wall=time.time, mono=time.monotonic) -> "Bank":
        """Open a game: refuse another config's ids, load snapshot + journal tail.

        `wall` and `mono` are the system and monotonic clocks (injected by tests).
        """
        journal = storage_url.target(path, config).open()
        try:
            problems = config_problems(journal, config)
            if problems:
                raise BankError("config_mismatch", f"The game in {path} was made with another "
                                f"config: {'; '.join(problems)}. Restore the config.toml it was "
                                "created with, or create a new game (terrabank init --force).",
                                path=str(path), problems=problems)
            # One view of the game: the snapshot (its seal checked, bank/store/snapshots.py), the rows
            # after it and the last seq agree even while another process books.
            with journal.read_view():
                snapshot = journal.latest_snapshot()
                seq, state = (0, GameState.initial(config)) if snapshot is None else \
                    (snapshot[0], GameState.from_dict(snapshot[1]))
                for row in journal.rows(seq):
                    state, seq = fold(state, row["events"]), row["seq"]
            last, opened_at = _last_checkpoint(journal), wall()
            anchor, jump = timeline.start_anchor(last, opened_at, config.clock_tolerance,
                                                 state.clock["status"] == "running")
        except BaseException:
            journal.close()
            raise
        bank = cls(journal, config, state, timeline.BankClock(anchor, config.clock_tolerance, wall=wall, mono=mono),
                   jump, seq)
        bank.reopened = _reopened(last, opened_at, state)
        return bank

    @property
    def state(self) -> GameState:
        """The live state after the last committed command (read-only)."""
        return self._state

    def now(self) -> float:
        """The bank's time line (bank/services/timeline.py): what game time is measured against."""
        return self._clock.now()

    @property
    def start_jump(self) -> timeline.Jump | None:
        """The implausible system-clock reading seen when the game was opened, if any."""
        return self._start_jump

    @property
    def last_seq(self) -> int:
        """The seq of the last committed journal row."""
        return self._last_seq

    def execute(self, command: dict, now: float | None = None, may_undo=None, check=None) -> Result:
        """Run a command exactly once per id: journal and apply it, or raise BankError.

        `may_undo(command_type) -> bool`, when given, decides whether the sender may
        reverse an entry of that type (a banker may not undo the lead's award). It is
        asked under the bank's lock, with the entry read in the same transaction, so no
        entry booked meanwhile can slip under a check made earlier (NotAllowed).
        `check()` too, once other processes' rows are folded (last_seq is the tip): its BankError refuses.
        """
        cid = check_command_id(command)
        if cid.startswith(TICK_PREFIX):
            raise CommandError("reserved_command_id", f"Command ids starting with "
                               f"'{TICK_PREFIX}' are kept for the clock: use another id.")
        if engine.COMMANDS.get(command.get("type"), (None, ""))[1] == "system":
            raise CommandError("system_command", f"'{command['type']}' commands are made by "
                               "the bank itself and cannot be sent.", type=command["type"])
        return self._execute(command, self.now() if now is None else now, tick=True, may_undo=may_undo, check=check)

    def _execute(self, command: dict, now: float, *, tick: bool, may_undo=None, check=None) -> Result:
        """The check-and-append behind execute() and the setup; again when another process booked first.

        On a store that allows it (SQLite) the first try books without looking the id up: the
        bank's last seq and the journal's tip are in memory, and the row's constraints refuse a retried
        id (id_taken) or a seq another process booked meanwhile (journal_moved_on). Only a refused try
        looks the id up; a try after a refusal looks it up first, as every try on PostgreSQL does."""
        tries = itertools.count()
        optimistic = self._journal.optimistic_ids
        return retried(lambda: self._execute_once(command, now, tick=tick, may_undo=may_undo, check=check,
                                                  look_up=not optimistic or next(tries) > 0))

    def _execute_once(self, command: dict, now: float, *, tick: bool, may_undo=None, check=None, look_up=True) -> Result:
        cid, print_ = command["id"], fingerprint(command)
        with self._lock:
            self._written = []  # a try refused or rolled back before this one left its rows here: not committed
            try:
                with self._journal.transaction(folded=self._last_seq):  # the rows booked since come with BEGIN
                    known = self._journal.find(cid) if look_up else None
                    now = self._catch_up(now)  # rows another process committed: decide on them too
                    if known is not None:
                        return self._duplicate(known, print_)
                    try:
                        if check is not None:
                            check()
                        seq, events, new_state = self._decide_and_append(command, cid, print_, now, tick, may_undo)
                    except BankError as refusal:
                        if not look_up:
                            self._answer_if_retried(cid, print_, refusal, now)
                        raise
            except _Answered as answered:  # raised inside: the transaction rolled back what it wrote
                return answered.result
            # Only a committed command reaches the live state, and the rows remembered.
            self._remember_written()
            self._commit_state(seq, new_state)
            return Result(seq, events)

    def _decide_and_append(self, command: dict, cid: str, print_: str, now: float, tick: bool, may_undo):
        """Inside the transaction: the undo check, a tick that is due, the command's decision and its row."""
        if may_undo is not None and command.get("type") == "reverse":
            self._check_undo(command.get("seq"), may_undo)
        seq, state = self._last_seq, self._state
        if tick:
            tick_events, ticked = self._decide_tick(state, now)
            if tick_events:
                seq, state = self._append_tick(tick_events, ticked, now), ticked
        events, new_state = engine.handle(state, self.config, command, self._context(now))
        seq = self._append(seq + 1, cid, print_, command, events, now, new_state)
        return seq, events, new_state

    def _answer_if_retried(self, cid: str, print_: str, refusal: BankError, now: float) -> None:
        """A try booked without the look-up was refused (the rules, the undo check, the id's UNIQUE, the
        seq's PRIMARY KEY): if the id is booked, answer as the look-up first would have, whatever the
        refusal (a purchase retried after it spent the resources gets its stored result, not "not
        enough resources"; other content under the id, IdConflict). Raises _Answered so the transaction
        rolls back what this try wrote before the refusal: a tick that was due is not kept for a retry
        (the look-up first never wrote it). Returns when the id is new: the refusal stands."""
        try:
            known = self._journal.find(cid)
        except StorageError:
            raise refusal from None  # the store failing now says nothing the first refusal did not
        if known is not None:
            self._catch_up(now)  # the tip is read anew by the look-up: fold the rows missed, as the look-up first did
            raise _Answered(self._duplicate(known, print_))

    def _check_undo(self, seq, may_undo) -> None:
        """Inside the transaction: refuse to reverse an entry the sender may not send.
        An unknown or malformed seq is left to the rules, which say so in their words."""
        if isinstance(seq, bool) or not isinstance(seq, int) or not 0 < seq <= 10**12:
            return
        row = self._journal.row(seq)
        if row is not None and not may_undo(row["type"]):
            raise NotAllowed("forbidden", f"this role may not undo a {row['type']!r} entry: only a "
                             "facilitator who may send it may undo it", command=row["type"], seq=seq)

    def _duplicate(self, known: dict, print_: str) -> Result:
        """A retried id: the stored result if the content matches, else IdConflict."""
        if known["fingerprint"] != print_:
            raise IdConflict("id_conflict", f"The id '{known['command_id']}' was already used "
                             f"for another command (journal seq {known['seq']}): use a new id "
                             "for a new command.", id=known["command_id"], seq=known["seq"])
        return Result(known["seq"], known["events"], duplicate=True)

    def _append(self, seq, cid, print_, command, events, now, new_state) -> int:
        """Insert one journal row, plus a snapshot every SNAPSHOT_EVERY seqs."""
        row = {"seq": seq, "command_id": cid, "fingerprint": print_,
               "type": str(command.get("type")), "actor": command.get("actor"), "at": now,
               "command": command, "events": events}
        seq = self._append_row(row)  # refused on a file rewritten under this bank (chain_watch.py)
        point = self._clock.checkpoint()
        self._journal.save_checkpoint(point.timeline, point.wall)
        self._last_beat = point.timeline
        if seq % SNAPSHOT_EVERY == 0:
            # A committed state is never changed (bank/game/state.py): encode its data as it is, no copy.
            self._journal.write_snapshot(seq, new_state.plain())
        # The head as head_at will read it (a snapshot's binding included); inside the transaction the
        # journal knows it without a statement. Remembered only after COMMIT (_remember_written).
        self._written.append((row, self._journal.head()))  # row["seq"] is the seq booked
        return seq

    def _remember_written(self) -> None:
        """After COMMIT: the rows this transaction wrote, and their heads, answer the next reads."""
        written, self._written = self._written, []
        self._recent.remember([row for row, _ in written], {row["seq"]: head for row, head in written})
        if written:
            self._note_written(written[-1][0]["seq"], written[-1][1])

    def _remember_folded(self, rows: list[dict]) -> None:
        """Rows another process committed, as they are folded (their heads are read when asked)."""
        self._recent.remember(rows)

    def _commit_state(self, seq: int, state: GameState) -> None:
        """After COMMIT: make the new state live. The state first: a reader takes the seq, then
        the state (web/payloads.current), so a picture's seq is never newer than its state."""
        self._state = state
        self._last_seq = seq

    def _context(self, now: float):
        """The engine's view of the world for one decision."""
        return engine.Context(now=now, roll=self._roll, lookup=self._lookup)

    def _roll(self, n: int) -> list:
        """Roll the bonus die n times (R15); faces are recorded in the events."""
        return [self._rng.choice(self.config.dice_faces) for _ in range(n)]

    def _lookup(self, seq: int) -> dict | None:
        """A journal row as {seq, command, events}, for reversals."""
        row = self._journal.row(seq)
        return None if row is None else {k: row[k] for k in ("seq", "command", "events")}

    def journal_rows(self, after_seq: int = 0) -> Iterator[dict]:
        """Committed journal rows after `after_seq`, streamed (exports, catch-up)."""
        return self._journal.rows(after_seq)

    def booked(self, command_id: str) -> dict | None:
        """The committed row booked under `command_id`, or None (a paper line asks what it is the copy of)."""
        with self._lock:
            return self._journal.find(command_id)

    def rows_upto(self, after_seq: int, upto: int) -> list[dict]:
        """The committed rows with after_seq < seq <= upto (`upto` at most a seq this bank has reached): from
        memory when it holds them all (the rounds' case), else read. The rows are shared: do not change them."""
        rows = self._recent.between(after_seq, upto)
        if rows is None:
            rows = list(itertools.takewhile(lambda row: row["seq"] <= upto, self._journal.rows(after_seq)))
        return rows

    def verify(self, whole: bool = True) -> list[str]:
        """Replay the whole journal and check it, and the live state at its seq; [] when sound. `whole=False`: only
        what `serve` checks before anyone plays (bank_verify.tampered). Rows other processes book meanwhile are not a
        difference (bank/services/bank_verify.py)."""
        with self._lock:
            return verify_journal(self._journal, self.config, self._state, self._last_seq) if whole else tampered(self._journal)

    def created_with(self) -> str | None:
        """The config text the game was created with (its meta): the teams' names and order when it began."""
        return self._journal.meta("config_text")

    def close(self) -> None:
        """Close the database."""
        with self._lock:
            self._journal.close()

    def __enter__(self) -> "Bank":
        return self

    def __exit__(self, *exc) -> None:
        self.close()


def _reopened(last: timeline.Checkpoint | None, opened_at: float, state: GameState) -> dict | None:
    """When this process opened a game already under way, and the longest it can have been down:
    the time since the journal's last trace, which the heartbeat renews every few seconds while
    the clock runs (a paused game writes nothing, so "at most"). Shown on the admin page
    (nothing said the bank had restarted). None for a game not under way."""
    if last is None or state.clock["status"] not in ("running", "paused"):
        return None
    return {"at": round(opened_at, 3), "down_at_most": round(max(0.0, opened_at - last.wall), 1),
            "clock": state.clock["status"]}


def _last_checkpoint(journal: Journal) -> timeline.Checkpoint | None:
    """Where the time line stood when the game was last written to.

    A game file from before the time line has no checkpoint: its rows' times were
    read from the system clock, so the last one serves as both.
    """
    stored = journal.last_checkpoint()
    if stored is not None:
        return timeline.Checkpoint(*stored)
    last = journal.row(journal.last_seq())
    return None if last is None else timeline.Checkpoint(last["at"], last["at"])

