"""Note each computer move a Trias server plays (asked, decided, written; its thread's CPU) in a JSON-lines file.

For `phone_game_pi.py`: `terrabank serve` re-executes itself as a lean Gunicorn master and builds the app in
its worker, so the bench cannot wrap the moves from its own process. It starts the server with a folder on
PYTHONPATH whose `sitecustomize.py` (written by the bench) calls `install(log)` in every interpreter of the
server: when `bank.services.trias_computer_moves` is imported, `ComputerMoves._choose` and `play_computer`
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
    """Wrap the module's ComputerMoves so that each move played is one line of `log`."""
    lock, local, files = threading.Lock(), threading.local(), []
    choose, play = moves.ComputerMoves._choose, moves.ComputerMoves.play_computer

    def timed_choose(self, budget):
        asked, cpu = time.time(), time.thread_time()
        phase, turn = self.state.phase, self.state.turn
        seat, seq, command = choose(self, budget)
        local.noted = {"seat": seat, "after": seq, "phase": phase, "turn": turn, "type": command.get("type"),
                       "fallback": bool(command.get("fallback")), "level": self.seats[seat].get("level"),
                       "asked": asked, "decided": time.time(), "cpu_s": round(time.thread_time() - cpu, 4)}
        return seat, seq, command

    def timed_play(self, budget=None):
        local.noted = None
        result = play(self, budget)
        noted = local.noted
        if noted is not None:
            noted.update(written=time.time(), seq=self.last_seq, applied=result is not None and not result.duplicate)
            with lock:
                if not files:
                    files.append(open(log, "a", buffering=1))
                files[0].write(json.dumps(noted) + "\n")
        return result

    moves.ComputerMoves._choose, moves.ComputerMoves.play_computer = timed_choose, timed_play


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
