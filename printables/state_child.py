"""Draws the game-state file in a process of its own, which exits once the file is written.

The serving worker writes the state by itself every few minutes (bank/web/field/paper_writer.py);
drawing it there loaded ReportLab and the print pack into the worker for the rest of the day
(~8 MB on a Raspberry Pi's 60 MB budget). Here the worker sends one pickled job on stdin (the
snapshot, the config, the language, the paper, the folder and the file's name) and reads back one
pickled answer on stdout: ("ok", path) or ("error", the exception), so the writer's messages stay
the same (an OSError keeps its file name and reason). Only the bank's own worker starts it.
"""

from __future__ import annotations

import pickle
import sys


def run(job: dict):
    from printables import pack
    from printables.state_ledger import render_takeover

    data = render_takeover(job["snap"], job["config"], job["language"], job["paper"])
    return pack.write(job["folder"], job["filename"], data)


def main() -> int:
    job = pickle.load(sys.stdin.buffer)
    answer_to, sys.stdout = sys.stdout.buffer, sys.stderr  # a library's print must not spoil the answer
    try:
        answer = ("ok", run(job))
    except Exception as exc:  # told to the worker, which keeps it for the admin page
        answer = ("error", exc)
    pickle.dump(answer, answer_to)
    answer_to.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
