"""One thread per app sends the live updates, after the HTTP reply, in commit order.

Why a thread: emitting to 200 phones takes longer than booking a command, and a
facilitator at the counter should not wait for it. Why one: when two requests
broadcast at once, their emits interleave and a phone can end on the OLDER
picture (its `team` message carries no check); one sender reading the live
state each round can only go forward. Commits that arrive while a round is being
sent are covered by the next round, which reads the state after all of them: the
last state is never dropped, and a burst of commands costs one round, not one
each. Journal rows are never coalesced away: each round sends every row after
the last one sent.
"""

from __future__ import annotations

import threading
import time

from . import payloads

FACILITATORS = "facilitators"
# At most ten rounds a second: phones cannot show more, and 200 of them on one Wi-Fi must keep up.
MIN_GAP = 0.1


def team_room(team: str) -> str:
    return f"team:{team}"


class Broadcaster:
    def __init__(self, services, socketio, logger, journal_after: int):
        self.services, self.socketio, self.logger = services, socketio, logger
        self._wake = threading.Condition()
        self._asked = self._done = 0  # rounds asked for / sent: a commit is out once _done >= its ticket
        self._journal_seq = journal_after
        self._last_round = 0.0
        socketio.start_background_task(self._loop)

    def ask(self) -> int:
        """A commit happened: make sure a round starts after this moment. Returns a ticket for flush()."""
        with self._wake:
            self._asked += 1
            self._wake.notify_all()
            return self._asked

    def flush(self, ticket: int, timeout: float = 10.0) -> bool:
        """Wait until the round covering `ticket` has been emitted (tests want the messages at once)."""
        with self._wake:
            return self._wake.wait_for(lambda: self._done >= ticket, timeout)

    def _loop(self) -> None:
        while True:
            with self._wake:
                self._wake.wait_for(lambda: self._asked > self._done)
            # Rounds at most every MIN_GAP: a burst of commands waits a few ms and goes out as one.
            time.sleep(max(0.0, self._last_round + MIN_GAP - time.monotonic()))
            with self._wake:
                covered = self._asked  # every ask up to here is covered: the state is read after this
            self._last_round = time.monotonic()
            try:
                self._send()
            except Exception:  # one failed round must not stop the updates; the next commit retries
                self.logger.exception("broadcast failed")
            with self._wake:
                self._done = covered
                self._wake.notify_all()

    def _send(self) -> None:
        bank, config = self.services.bank, self.services.config
        seq, state = payloads.current(bank)
        now = bank.now()
        # Each payload computed once per round, then the same encoded packet goes to a whole room.
        self.socketio.emit("public", payloads.public_of(seq, state, config, now))
        for team in config.teams:
            self.socketio.emit("team", payloads.team_of(seq, state, config, team, now), to=team_room(team))
        rows = list(bank.journal_rows(self._journal_seq))
        if rows:
            self._journal_seq = rows[-1]["seq"]
            self.socketio.emit("journal", {"rows": rows}, to=FACILITATORS)
