"""The bank writes the game state to disk by itself, so it exists when the machine has died.

At each session end (and the game's end) and every `[print] state_every_minutes` minutes when
something was booked since the last file, the serving process writes one PDF, the game-state
sheet followed by each team's continuation ledger (printables/state_ledger.py render_takeover),
into `<game file's stem>-paper/` beside the game file, or in the state directory when one is set
(bank/store/state_dir.py), and keeps the last KEEP files. Written atomically
(printables/pack.write): a reader never sees half a file. Drawn in a child process that exits after
it (printables/state_child.py): ReportLab never stays in the serving worker. The admin page says
where, and why a write failed; the log says it once (not a traceback every few seconds), and the
next try waits a minute.
Here in the web layer, beside the routes: the services may not import the print pack.
"""

from __future__ import annotations

import errno
import os
import pickle
import subprocess
import sys
import threading
import time
from pathlib import Path

from bank.store import state_dir
from bank.store.storage import StorageError

KEEP = 8          # the newest files kept; older ones are removed (a game day writes a few dozen)
POLL_SECONDS = 5  # how often the writer looks for a session end: the sheet is on disk seconds after it
RETRY_SECONDS = 60  # after a failed write: a sheet is drawn for each try, no need to redraw it every 5 s
PREFIX = "game-state-"
CHILD_SECONDS = 300  # a sheet drawn on a Pi's loaded quarter core takes seconds; a hung child must not hold the lock


def folder_for(db) -> Path:
    """`<stem>-paper/` beside the game file (terrabank.db -> terrabank-paper/), or in the state directory.
    Made absolute, not resolved: a link standing there is refused when the sheets are written, not followed."""
    return Path(os.path.abspath(state_dir.path_for(db, "-paper")))


def install(app, db) -> "StateWriter":
    """The app's writer; its thread runs only in the serving process (TICKER), as the clock's does."""
    writer = StateWriter(app, folder_for(db), app.extensions["terrabank"].config.state_every_minutes)
    app.extensions["terrabank_state_writer"] = writer
    if app.config.get("TICKER"):
        writer.start()
    return writer


def of(app) -> "StateWriter | None":
    return app.extensions.get("terrabank_state_writer")


class StateWriter:
    """Looks at the journal every few seconds; writes the state when a session ends or N minutes passed."""

    def __init__(self, app, folder: Path, every_minutes: int, clock=time.monotonic):
        self.app, self.folder, self.every = app, folder, every_minutes * 60
        self.clock = clock
        self.seen = None          # (the last journal entry looked at, _ends then); None: not yet, the first look writes
        self.written_seq = None   # the entry the newest file holds
        self.written_at = float("-inf")
        self.lock = threading.Lock()
        self.last_error = None
        self.said_error = False  # a failure was said in the log: its end is said too

    def start(self) -> None:
        threading.Thread(target=self._loop, name="terrabank-state-writer", daemon=True).start()

    def _loop(self) -> None:
        while True:
            time.sleep(RETRY_SECONDS if self.last_error else POLL_SECONDS)
            self.attempt()

    def attempt(self) -> None:
        """One look of the loop; a failure is kept for the admin page, never raised."""
        try:
            self.look()
        except Exception as exc:  # a full disk must not stop the next try; the admin page shows it
            self.failed(exc)

    def failed(self, exc: BaseException) -> None:
        """Say once why the state cannot be written (and again only if the reason changes)."""
        reason = (f"{exc.filename}: {exc.strerror}" if isinstance(exc, OSError) and exc.strerror and exc.filename
                  else str(exc))[:400]  # the path first: what to look at, whatever its length
        if reason != self.last_error and not _outage(exc):
            # A full disk is no wrong folder: another folder on it fills too (before, the line said to choose one).
            full = isinstance(exc, OSError) and exc.errno == errno.ENOSPC
            self.app.logger.warning(
                "terrabank: cannot write the game state to %s (%s); no state sheet is written until it can. %s",
                self.folder, reason, "Its disk is full: free some space on it; the sheet is written by itself then."
                if full else f"Give the bank a folder it may write: {state_dir.ENV_VAR}=/var/lib/terrabank "
                "(docs/DEPLOY.md)")
            self.said_error = True
        self.last_error = reason

    def look(self) -> Path | None:
        """One look: write if a session or the game ended since the last, or if it is time; the path written."""
        from bank.web.field.payloads import current

        with self.lock:
            seq, state = current(self.app.extensions["terrabank"].bank)
            ends, reason = _ends(state), None
            # Told by the state, not by the rows booked since the last look: every process of a game read them
            # all back every 5 s, 4 times the same rows with 4 processes (bench/system/bench_saturation.py).
            if self.seen is not None and seq > self.seen[0]:
                if ends[1] and not self.seen[1][1]:
                    reason = "game-end"
                elif ends[0] > self.seen[1][0]:
                    reason = "session-end"
            seen, self.seen = self.seen, (seq, ends)
            due = self.every and self.clock() - self.written_at >= self.every
            if reason is None and seq != self.written_seq and (due or self.written_seq is None):
                reason = "regular"
            try:
                return self.write(reason) if reason else None
            except BaseException:
                # Not written (the database away a moment, a full disk): the next look tells the same end again.
                # Before, it was noted as seen: no session-end sheet at all with state_every_minutes = 0.
                self.seen = seen
                raise

    def write(self, reason: str = "asked") -> Path:
        """The state now, with the continuation ledgers, as one PDF in the folder; older files pruned."""
        from bank.web.field.payloads import current
        from printables.state_data import snapshot

        services = self.app.extensions["terrabank"]
        config, bank = services.config, services.bank
        seq, state = current(bank)
        printed = time.time()
        snap = snapshot(state, config, bank.now(), seq, printed, bank.head_at(seq), bank.game_mark())
        stamp = time.strftime("%Y%m%d-%H%M%S", time.localtime(printed))
        # 0700 (a new state directory too), each file 0600 (pack.SECRET_PREFIXES): every team's stock;
        # a symbolic link standing there is refused, named on the admin page, never followed.
        state_dir.own_folder(self.folder)
        path = draw({"snap": snap, "config": config, "language": config.language, "paper": config.print_paper,
                     "folder": self.folder, "filename": f"{PREFIX}{stamp}-e{seq}-{reason}.pdf"})
        if self.said_error:  # said when it could not: said when it can again
            self.app.logger.warning("terrabank: the game state is written again to %s", self.folder)
            self.said_error = False
        self.written_seq, self.written_at, self.last_error = seq, self.clock(), None
        for old in self.files()[KEEP:]:
            old.unlink(missing_ok=True)
        return path

    def files(self) -> list:
        """The files written, newest first."""
        if self.folder.is_symlink() or not self.folder.is_dir():
            return []
        found = [p for p in self.folder.glob(f"{PREFIX}*.pdf") if p.is_file()]
        return sorted(found, key=lambda p: (p.stat().st_mtime, p.name), reverse=True)

    def describe(self) -> dict:
        """For the admin page: the folder, how often, and the files there (newest first)."""
        return {"folder": str(self.folder), "every_minutes": self.every // 60, "keep": KEEP,
                "writing": bool(self.app.config.get("TICKER")), "error": self.last_error,
                "files": [{"name": p.name, "bytes": p.stat().st_size, "written": p.stat().st_mtime} for p in self.files()]}


def _ends(state) -> tuple[int, bool]:
    """(sessions ended, whether the game ended) as the state holds them (bank/game/state.py: a session_ended
    sets session_over, a resume after it counts the next session): a look compares them with the last look's."""
    clock = state.clock
    return max(0, clock.get("session", 0) - (0 if clock.get("session_over") else 1)), state.ended is not None


def draw(job: dict) -> Path:
    """Draw and write the file in a child process that exits after it (printables/state_child.py), so
    ReportLab never stays in the serving worker: ~8 MB of a Pi's budget, for a file every few minutes.
    In a process that already holds ReportLab (a facilitator printed a sheet there) nothing is saved
    by a child, and the file is drawn here."""
    from printables import state_child

    if "reportlab" in sys.modules:
        return state_child.run(job)
    done = subprocess.run([sys.executable, "-m", "printables.state_child"], input=pickle.dumps(job),
                          capture_output=True, timeout=CHILD_SECONDS, check=False)
    try:
        kind, answer = pickle.loads(done.stdout)
    except Exception:  # it died before answering: its last words say why
        lines = done.stderr.decode(errors="replace").strip().splitlines()
        raise RuntimeError(f"the state sheet's drawing process ended ({done.returncode}): "
                           f"{lines[-1] if lines else 'no message'}") from None
    if kind == "error":
        raise answer
    return answer


def _outage(exc: BaseException) -> bool:
    """A database that does not answer: the outage's own line says it (bank/web/health.py), and the
    admin page shows the reason; a line here too made each outage three lines."""
    from bank.web.health import DATABASE_LOST

    return isinstance(exc, StorageError) and exc.code in DATABASE_LOST + ("hold_lost", "hold_taken")
