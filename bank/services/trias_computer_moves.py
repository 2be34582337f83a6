"""The computer opponents' moves in a Trias game: chosen off the game's lock, applied on their position.

A mixin of TriasGame (bank/services/trias_games.py), kept apart because it is its own concern:
the search is slow (up to a second at level hard), so it must never hold the game's lock that
screens and phones need, and a move chosen for a position that has moved on (an undo, another
process) must be dropped, not applied. Its command id names the position it answers
(trias_authority.COMPUTER_ID_PREFIX), so two threads racing for one position apply one move.

A computer seat never stops the table: a bot that raises, or proposes a move the
rules refuse, is a bug, but the people at the table must not pay for it. The seat then plays a
legal fallback, marked `"fallback": true` in its journal row so that every screen can say so
(the row's command is what the pages announce), and the bug is logged once, in one line.
"""

from __future__ import annotations

import logging
import random

import trias
from bank.services.journal_service import Result
from trias.bots.randombot import random_action
from trias.errors import BadCommand, IllegalMove

LOG = logging.getLogger("terrabank.trias")


class ComputerMoves:
    """Needs `_service`, `seats`, `seed`, `state`, `last_seq` and `_run` (TriasGame)."""

    def computer_to_play(self) -> int | None:
        """The seat to play if it is a computer opponent and the game goes on, else None (and on a store found
        rewritten under the server: nothing is booked on it, bank/services/trias_witness.py)."""
        s = self.state
        if s.phase in ("over", "setup") or not s.players or self._service.rewritten is not None:
            return None
        return s.current if self.seats[s.current]["kind"] == "computer" else None

    def computer_command(self, budget: dict | None = None) -> dict:
        """The computer's command for the seat to play, from that seat's view only.

        The random generator is seeded from the game's seed and the last seq, so the
        same position gives the same move (within an iterations budget).
        """
        return self._choose(budget)[2]

    def _choose(self, budget) -> tuple:
        """(seat, seq, command): the position is read under the lock, the search runs outside it."""
        with self._service.lock:
            seat = self.computer_to_play()
            if seat is None:
                raise IllegalMove("not_computer_turn", "no computer opponent is to play now")
            seq, level, state = self.last_seq, self.seats[seat]["level"], self.state
            view = trias.view(state, seat)
        rng = random.Random(f"{self.seed}:{seq}")
        try:
            command = trias.bots.choose(view, level, budget or trias.bots.DEFAULT_BUDGET.get(level), rng,
                                       table=self.id)
            wrong = None if trias.is_legal(state, command) else f"proposed {command}, which the rules refuse"
        except Exception as exc:  # noqa: BLE001 (any bug of a bot: the table goes on, see the module's doc)
            wrong = f"failed ({type(exc).__name__}: {exc})"
        if wrong is not None:
            command = fallback_move(state, rng)
            LOG.error("trias %s: computer seat %s (%s) %s; it plays %s instead", self.id, seat, level, wrong, command)
        return seat, seq, command

    def play_computer(self, budget: dict | None = None) -> Result | None:
        """Choose and apply one computer move; None if no computer is to play (or the position moved on).

        The search runs without the game's lock (screens keep reading), and the move is
        applied only on the position it was chosen for. Its command id names that
        position, so two callers racing for it apply one move: the other gets it as a retry.
        """
        chosen = self.choose_computer(budget)
        return None if chosen is None else self.apply_computer(*chosen)

    def choose_computer(self, budget: dict | None = None) -> tuple | None:
        """(seat, seq, command): the computer's move for the position after entry `seq`, chosen without
        the game's lock and not applied; None if no computer is to play. The computer player
        (bank/web/trias/computer.py) chooses as soon as a position comes and applies after its pace."""
        try:
            return self._choose(budget)
        except IllegalMove:
            return None

    def apply_computer(self, seat: int, seq: int, command: dict) -> Result | None:
        """Apply a move `choose_computer` gave, on the position it was chosen for only: None if the game
        has moved on since entry `seq` (an undo, a move, another process); the first one if it was
        applied already (its command id names the position)."""
        try:
            return self._run(command, f"computer:{seat}:after:{seq}", f"computer:{seat}", after_seq=seq)
        except BadCommand as exc:
            if exc.code == "id_conflict":  # chosen twice with other timings: the first one stands
                return self._service.duplicate_of(f"computer:{seat}:after:{seq}")
            if exc.code == "stale":  # an undo or another process moved the game meanwhile
                return None
            raise


def fallback_move(state, rng) -> dict:
    """A legal move for the seat to play when its bot failed: a random legal one (the rules' own
    listing if even that were refused), marked so the screens can say it was not the bot's choice.

    It reads only what the seat may know: its own hand card, and the deck's size (T9).
    """
    command = random_action(state, rng)
    if not trias.is_legal(state, command):
        command = trias.legal_actions(state)[0]
    return {**command, "fallback": True}
