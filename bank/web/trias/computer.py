"""The computer seats of every Trias game, played on the server by one background thread per app.

A computer seat waits `pace` seconds after the last change in its game before it
moves, so the screens can follow its turn step by step (about one move a second).
Its command id names the position it answers (TriasGame.play_computer), so a move
is never played twice for one position, even by two threads or across a restart.
Games still going are looked up once at start: a restart resumes them.
"""

from __future__ import annotations

import threading
import time

from bank.store.storage import StorageError
from trias import TriasError

from bank.web.push.extensions import socketio_of
from bank.web.trias.live import publish


class Computer:
    """Which games may have a computer seat to play, and when each last changed."""

    def __init__(self, app, pace: float = 1.0):
        self.app, self.pace = app, pace
        self.games = app.extensions["trias_games"]
        self.changed: dict = {}      # game id -> monotonic time of its last change
        self.lock = threading.Lock()
        self.wake = threading.Event()
        self.started = False
        self.refused: set = set()    # (game id, seq) whose computer move was refused, said once

    def poke(self, game_id: str) -> None:
        """A game changed (a human moved, a game was made): its computer seats start their clock."""
        with self.lock:
            self.changed[game_id] = time.monotonic()
        self.wake.set()

    def resume(self) -> None:
        """At start: every game not over may have a computer seat waiting."""
        for entry in self.games.list():
            if not entry.get("over"):
                self.poke(entry["id"])

    def step(self, force: bool = False) -> int:
        """Play at most one move in each game whose computer seat has waited `pace`; how many were played."""
        now = time.monotonic()
        with self.lock:
            due = [gid for gid, at in self.changed.items() if force or now - at >= self.pace]
        played = 0
        for gid in due:
            played += self._play(gid)
        return played

    def _play(self, gid: str) -> int:
        game = self.games.get(gid)
        seat = game.computer_to_play() if game is not None else None
        if seat is None:
            with self.lock:
                self.changed.pop(gid, None)  # a human's turn or the end: nothing until the next poke
            return 0
        before = game.last_seq
        try:
            result = game.play_computer()  # chooses and commits under the game's lock, id from the position
        except StorageError:
            self.app.logger.exception("trias %s: the computer's move could not be written; retrying", gid)
            self.poke(gid)
            return 0
        except TriasError:
            # A bot's refused move is replaced by a legal fallback (trias_computer_moves.py), so this is
            # a refused fallback: never seen, but the seat must not stop the table for good (a
            # stopped seat left every screen "waiting for" it until a restart). Said once per position;
            # the seat tries again after its pace, and a later move or an undo moves the game on.
            if (gid, before) not in self.refused:
                self.refused.add((gid, before))
                self.app.logger.exception("trias %s: computer seat %s's move was refused; trying again", gid, seat)
            self.poke(gid)
            return 0
        self.poke(gid)
        if result is not None and not result.duplicate:
            publish(self.app, game, before)
        return 1

    def start(self) -> None:
        """The one thread: wakes on a poke or every quarter of the pace, and never dies of one failure."""
        if self.started:
            return
        self.started = True
        self.resume()

        def loop():
            while True:
                self.wake.wait(timeout=max(0.02, self.pace / 4))
                self.wake.clear()
                try:
                    with self.app.app_context():
                        self.step()
                except Exception:
                    self.app.logger.exception("trias computer step failed")
        socketio_of(self.app).start_background_task(loop)


def computer(app) -> Computer:
    """The app's computer player (made in create_app; started there only when TICKER or TRIAS_COMPUTER is set)."""
    return app.extensions["trias_computer"]
