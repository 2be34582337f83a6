"""Note each computer move a Trias server plays (asked, decided, written; its thread's CPU) in a JSON-lines file.

For `phone_game_pi.py`: `terrabank serve` re-executes itself as a lean Gunicorn master and builds the app in
its worker, so the bench cannot wrap the moves from its own process. It starts the server with a folder on
PYTHONPATH whose `sitecustomize.py` (written by the bench) calls `install(log)` in every interpreter of the
server: when `bank.services.trias_computer_moves` is imported, `ComputerMoves._choose` and `apply_computer`
are wrapped to note the times; the moves chosen and applied are the same. Standard library only at the top,
as the lean master imports nothing else.
"""

from __future__ import annotations

import importlib.abc
import importlib.util
import json
import sys
import threading
import time

MODULE = "bank.services.trias_computer_moves"


def wrap(moves, log: str) -> None:
    """Wrap the module's ComputerMoves so that each move played is one line of `log`.

    The computer player chooses a move (`_choose`, via `choose_computer`) as soon as a position comes
    and applies it (`apply_computer`) after its pace: a move's line joins the two by game, seat and
    position, the last choice for a position standing (one dropped when the position moved on is
    not written)."""
    lock, chosen, files = threading.Lock(), {}, []
    choose, apply = moves.ComputerMoves._choose, moves.ComputerMoves.apply_computer

    def timed_choose(self, budget):
        asked, cpu = time.time(), time.thread_time()
        phase, turn = self.state.phase, self.state.turn
        seat, seq, command = choose(self, budget)
        noted = {"seat": seat, "after": seq, "phase": phase, "turn": turn, "type": command.get("type"),
                 "tile": "tile" in command,  # a card played with a drift (a "play" without one moves nothing)
                 "fallback": bool(command.get("fallback")), "level": self.seats[seat].get("level"),
                 "asked": asked, "decided": time.time(), "cpu_s": round(time.thread_time() - cpu, 4)}
        with lock:
            chosen[(self.id, seat, seq)] = noted
        return seat, seq, command

    def timed_apply(self, seat, seq, command):
        started = time.time()
        result = apply(self, seat, seq, command)
        with lock:
            noted = chosen.pop((self.id, seat, seq), None)
            if noted is not None:
                noted.update(applying=started, written=time.time(), seq=self.last_seq,
                             applied=result is not None and not result.duplicate)
                if not files:
                    files.append(open(log, "a", buffering=1))
                files[0].write(json.dumps(noted) + "\n")
        return result

    moves.ComputerMoves._choose, moves.ComputerMoves.apply_computer = timed_choose, timed_apply


class _Hook(importlib.abc.MetaPathFinder):
    """Finds the module the usual way, and wraps it once it has run."""

    def __init__(self, log: str):
        self.log = log

    def find_spec(self, name, path, target=None):
        if name != MODULE:
            return None
        sys.meta_path.remove(self)
        spec = importlib.util.find_spec(name)
        run, log = spec.loader.exec_module, self.log

        def exec_module(module):
            run(module)
            wrap(module, log)
        spec.loader.exec_module = exec_module
        return spec


def install(log: str) -> None:
    if MODULE in sys.modules:
        wrap(sys.modules[MODULE], log)
    else:
        sys.meta_path.insert(0, _Hook(log))
