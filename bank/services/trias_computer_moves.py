"""The computer opponents' moves in a Trias game: chosen off the game's lock, applied on their position.

A mixin of TriasGame (bank/services/trias_games.py), kept apart because it is its own concern:
the search is slow (up to a second at level hard), so it must never hold the game's lock that
screens and phones need, and a move chosen for a position that has moved on (an undo, another
process) must be dropped, not applied. Its command id names the position it answers
(trias_authority.COMPUTER_ID_PREFIX), so two threads racing for one position apply one move.
"""

from __future__ import annotations

import random

import trias
from bank.services.journal_service import Result
from trias.errors import BadCommand, IllegalMove


class ComputerMoves:
    """Needs `_service`, `seats`, `seed`, `state`, `last_seq` and `_run` (TriasGame)."""

    def computer_to_play(self) -> int | None:
        """The seat to play if it is a computer opponent and the game goes on, else None."""
        s = self.state
        if s.phase in ("over", "setup") or not s.players:
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
            seq, level = self.last_seq, self.seats[seat]["level"]
            view = trias.view(self.state, seat)
        rng = random.Random(f"{self.seed}:{seq}")
        return seat, seq, trias.bots.choose(view, level, budget or trias.bots.DEFAULT_BUDGET.get(level), rng)

    def play_computer(self, budget: dict | None = None) -> Result | None:
        """Choose and apply one computer move; None if no computer is to play (or the position moved on).

        The search runs without the game's lock (screens keep reading), and the move is
        applied only on the position it was chosen for. Its command id names that
        position, so two callers racing for it apply one move: the other gets it as a retry.
        """
        try:
            seat, seq, command = self._choose(budget)
        except IllegalMove:
            return None
        try:
            return self._run(command, f"computer:{seat}:after:{seq}", f"computer:{seat}", after_seq=seq)
        except BadCommand as exc:
            if exc.code == "id_conflict":  # chosen twice with other timings: the first one stands
                return self._service.duplicate_of(f"computer:{seat}:after:{seq}")
            if exc.code == "stale":  # an undo or another process moved the game meanwhile
                return None
            raise
