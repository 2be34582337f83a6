"""The computer seats of every Trias game, played on the server by one background thread per app.

A computer seat thinks as soon as its position comes (a human moved, an undo, its own last
action), and shows its move no earlier than its pace after that change, so that the screens can
follow its turn step by step: an action shows max(thinking, pace) after the one before it, not
thinking plus pace. A choice made for a position that has moved on meanwhile (a human's undo or
move while it thought) is dropped, and the seat thinks again for the new position.

The pace is the table's (TRIAS_PACE, 1 s: one action a second is what a table follows, as on
board-game sites), but a whole turn must fit in what a table waits for a level (`TABLE_TURN`:
5 s for hard, 2 s for easy, trias.bots.TURN_BOUND), and a turn may take up to 2 + action points
decisions (trias/bots/turn.py: 6 at 3-5 players, 5 at 2). So each action's pace is at most an even
part of the bound over those decisions, evenly spaced whatever the turn's length: easy 0.3 s an
action at 4 players (0.36 s at 2; a quicker pace than a table would choose, but the only one with
which a 6-action easy turn fits in 2 s, and still a beat apart), hard 0.75 s (0.9 s at 2). And at
most an even part of what the bound still leaves over the most decisions the turn may still
take, so that a turn whose thinking ran over the pace makes up for it in its later actions'
paces; thinking longer than the pace is never held back. What the bound leaves is counted after
the thinking the turn may still do: hard gives the seconds a quick decision leaves to the turn's
later ones ("carry", trias/bots/turn.py), so its turn thinks its whole 4 s whatever the holds, and a
hold of a quick decision would come on top (a 5-action hard turn showed in 4.96 s of 5 so). Never
under MIN_PACE: a fifth of a second still shows one action after another. MARGIN keeps a tenth of
the bound for writing each action and drawing it on the screens (tens of milliseconds each on a
Pi, up to 0.3 s at a phone) and for the search's overruns.

One thread thinks for every game, one decision at a time, and a decision thinks to a budget of seconds: a
second table's computer seats would wait for the first's whole decisions (two tables of 4 hard seats:
turns of a median 5.9-7.2 s, 18 of 19 over 5 s, against 3.4 s alone). So a decision's seconds are
shared among the games whose computer seat is to play (`budget_for`): each table's turns keep their
bound, each search gets its share of the one thread (as threads would under the GIL).

Its command id names the position it answers (TriasGame.play_computer), so a move
is never played twice for one position, even by two threads or across a restart.
Games still going are looked up once at start: a restart resumes them.
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass

from bank.store.journal import REWRITTEN
from bank.store.storage import StorageError
import trias.bots
from trias import TriasError
from trias.bots import TURN_BOUND
from trias.bots.turn import decisions_left, most_decisions

from bank.web.push.extensions import socketio_of
from bank.web.trias import rewrite_alarm
from bank.web.trias.live import publish

# Seconds a table waits at most for a whole computer turn, by level. Medium has no turn budget of its
# own (0.5 s a decision, at most 6 decisions): it gets hard's bound, so its paces fit as hard's do.
TABLE_TURN = {"random": TURN_BOUND["easy"], "easy": TURN_BOUND["easy"], "medium": TURN_BOUND["hard"],
              "hard": TURN_BOUND["hard"]}
MARGIN = 0.1  # of a turn's bound, kept for writing and drawing its actions and the search's overruns
MIN_PACE = 0.2  # seconds: no action sooner after the change before it (unless the table's pace is shorter)


@dataclass
class Choice:
    """A computer seat's move chosen for the position after entry `seq`, waiting for its pace."""

    seat: int
    seq: int
    command: dict
    level: str
    since: float        # monotonic time of the change that made the position (its poke)
    turn_start: float   # ... of the change that gave this seat its turn
    left: int           # the most decisions the turn may still take, this one included
    most: int = 1       # ... the turn may take in all (1 for a placement, T8)
    reserve: float = 0.0  # seconds the turn's later decisions may still think (a "carry" budget's rest)
    not_before: float = 0.0  # a write that failed is tried again no earlier than this


def thinking_left(level: str, thought: float) -> float:
    """Seconds a turn's later decisions may still think after `thought`: what a "carry" turn budget
    leaves (trias.bots.DEFAULT_BUDGET); 0 for a level whose decisions do not take what others left."""
    budget = trias.bots.DEFAULT_BUDGET.get(level) or {}
    if not budget.get("carry") or budget.get("turn") is None:
        return 0.0
    return max(0.0, float(budget["turn"]) - thought)


class Computer:
    """Which games may have a computer seat to play, when each last changed, and the moves chosen."""

    def __init__(self, app, pace: float = 1.0):
        self.app, self.pace = app, pace
        self.games = app.extensions["trias_games"]
        self.changed: dict = {}      # game id -> monotonic time of its last change
        self.chosen: dict = {}       # game id -> Choice, for the position it was chosen for
        self.turns: dict = {}        # game id -> (seat, turn number, monotonic time it started, seconds thought)
        self.lock = threading.Lock()
        self.wake = threading.Event()
        self.started = False
        self.refused: set = set()    # (game id, seq) whose computer move was refused, said once
        self.unwritten: set = set()  # game ids whose store refuses the computer's move now: said once, then when back
        self.clock = time.monotonic  # (tests give a clock of their own)

    def poke(self, game_id: str) -> None:
        """A game changed (a human moved, a game was made): its computer seat to play thinks now."""
        with self.lock:
            self.changed[game_id] = self.clock()
        self.wake.set()

    def resume(self) -> None:
        """At start: every game not over may have a computer seat waiting."""
        for entry in self.games.list():
            if not entry.get("over"):
                self.poke(entry["id"])

    def pace_of(self, choice: Choice) -> float:
        """Seconds between the change and this choice's action on the screens (see the module's doc)."""
        bound = TABLE_TURN.get(choice.level)
        if bound is None:
            return self.pace
        usable = bound * (1 - MARGIN)
        room = choice.turn_start + usable - choice.since - choice.reserve
        pace = min(usable / max(1, choice.most), room / max(1, choice.left))
        return min(self.pace, max(MIN_PACE, pace))

    def due(self, choice: Choice) -> float:
        """Monotonic time from which the choice may be written."""
        return max(choice.since + self.pace_of(choice), choice.not_before)

    def step(self, force: bool = False) -> int:
        """In each changed game: choose its computer move if none is chosen for its position yet, and write
        the chosen move once its pace has passed (at once with `force`); how many moves were written."""
        with self.lock:
            games = list(self.changed)
        played = 0
        for gid in games:
            played += self._advance(gid, force)
        return played

    def next_due(self) -> float | None:
        """Monotonic time of the first chosen move to write, or None."""
        with self.lock:
            dues = [self.due(c) for c in self.chosen.values()]
        return min(dues, default=None)

    def _advance(self, gid: str, force: bool) -> int:
        game = self.games.get(gid)
        seat = game.computer_to_play() if game is not None else None
        if seat is None:
            with self.lock:
                self.changed.pop(gid, None)  # a human's turn or the end: nothing until the next poke
                self.chosen.pop(gid, None)
                self.turns.pop(gid, None)
            return 0
        with self.lock:
            choice = self.chosen.get(gid)
        if choice is None or choice.seq != game.last_seq:
            choice = self._choose(gid, game)
            if choice is None:
                return 0
        if not force and self.clock() < self.due(choice):
            return 0
        return self._write(gid, game, choice)

    def _choose(self, gid: str, game) -> Choice | None:
        """Think for the game's position now (off its lock); None if it moved on meanwhile."""
        with self.lock:
            self.chosen.pop(gid, None)
            since = self.changed.get(gid, self.clock())
        seq = game.last_seq  # before the state: a move between the two reads makes the choice's seq newer
        state = game.state
        started = self.clock()
        chosen = game.choose_computer(self.budget_for(gid, game))  # the search: up to seconds, without the lock
        thought = self.clock() - started
        if chosen is None or chosen[1] != seq or game.last_seq != seq:
            return None  # the position moved on while it thought (an undo, a move): think again
        seat, _, command = chosen
        key, level = (seat, state.turn), game.seats[seat].get("level", "")
        with self.lock:
            known = self.turns.get(gid)
            if state.phase in ("place", "start") or known is None or known[:2] != key:
                known = (*key, since, 0.0)  # a turn's first decision (or the first seen)
            known = self.turns[gid] = (*known[:3], known[3] + thought)
            v = {"phase": state.phase, "players": state.players, "ap": state.ap}
            choice = Choice(seat, seq, command, level, since, known[2], decisions_left(v),
                            most_decisions(state.players) if state.phase != "place" else 1,
                            thinking_left(level, known[3]) if decisions_left(v) > 1 else 0.0)
            self.chosen[gid] = choice
        return choice

    def budget_for(self, gid: str, game) -> dict | None:
        """The budget of the game's next computer decision: its level's own (None) when no other game has a
        computer seat to play; else its seconds shared among those games (see the module's doc)."""
        seat = game.computer_to_play()
        base = trias.bots.DEFAULT_BUDGET.get(game.seats[seat].get("level", "")) if seat is not None else None
        tables = self.tables_thinking(gid)
        if not base or tables == 1:
            return None
        return {**base, **{key: base[key] / tables for key in ("seconds", "turn") if key in base}}

    def tables_thinking(self, gid: str) -> int:
        """How many games have a computer seat to play now, `gid`'s included (this thread thinks for each)."""
        with self.lock:
            others = [other for other in self.changed if other != gid]
        playing = (self.games.get(other) for other in others)
        return 1 + sum(1 for other in playing if other is not None and other.computer_to_play() is not None)

    def _write(self, gid: str, game, choice: Choice) -> int:
        before = choice.seq
        try:
            result = game.apply_computer(choice.seat, choice.seq, choice.command)
        except StorageError as exc:
            if exc.code == REWRITTEN:  # never written again: said once, and the seat stops (computer_to_play)
                rewrite_alarm.say(self.app, game)
                self.poke(gid)
                return 0
            # Said once (a full or read-only disk: tried again every quarter second at least, it logged a traceback
            # each time; a database away is also said once by bank/web/health.py), and again when a move is written.
            if gid not in self.unwritten:
                self.unwritten.add(gid)
                self.app.logger.error("trias %s: the computer's move could not be written (%s); trying again until "
                                      "the store answers", gid, exc)
            # The same move for the same position, after a pace (a quarter second at least: a store that
            # fails is not tried faster).
            choice.not_before = self.clock() + max(self.pace, 0.25)
            self.wake.set()
            return 0
        except TriasError:
            # A bot's refused move is replaced by a legal fallback (trias_computer_moves.py), so this is
            # a refused fallback: never seen, but the seat must not stop the table for good (a
            # stopped seat left every screen "waiting for" it until a restart). Said once per position;
            # the seat thinks again and tries after its pace, and a later move or an undo moves the game on.
            if (gid, before) not in self.refused:
                self.refused.add((gid, before))
                self.app.logger.exception("trias %s: computer seat %s's move was refused; trying again",
                                          gid, choice.seat)
            with self.lock:
                if self.chosen.get(gid) is choice:
                    del self.chosen[gid]
            self.poke(gid)
            return 0
        if gid in self.unwritten:
            self.unwritten.discard(gid)
            self.app.logger.warning("trias %s: the computer's moves are written again", gid)
        with self.lock:
            if self.chosen.get(gid) is choice:
                del self.chosen[gid]
        self.poke(gid)
        if result is not None and not result.duplicate:
            publish(self.app, game, before)
        return 1

    def start(self) -> None:
        """The one thread (`run`), started once with the games still going."""
        if self.started:
            return
        self.started = True
        self.resume()
        socketio_of(self.app).start_background_task(self.run)

    def run(self, stop: threading.Event | None = None) -> None:
        """The thread's loop, until `stop` is set: wakes on a poke, when a chosen move is due, or every
        quarter of the pace, and never dies of one failure."""
        failed = False
        while stop is None or not stop.is_set():
            timeout = max(0.02, self.pace / 4)
            due = None if failed else self.next_due()  # after a failure, not at once again
            if due is not None:
                timeout = min(timeout, max(0.0, due - self.clock()))
            self.wake.wait(timeout=timeout)
            self.wake.clear()
            if stop is not None and stop.is_set():
                return
            try:
                with self.app.app_context():
                    try:
                        self.step()
                    finally:  # a step that failed (a store refusing a seat's move) must not skip the look
                        rewrite_alarm.look(self.app, self.clock)  # a store rewritten with no move on it (every 5 s)
                failed = False
            except Exception:
                failed = True
                self.app.logger.exception("trias computer step failed")


def computer(app) -> Computer:
    """The app's computer player (made in create_app; started there only when TICKER or TRIAS_COMPUTER is set)."""
    return app.extensions["trias_computer"]
