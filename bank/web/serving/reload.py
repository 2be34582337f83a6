"""`systemctl reload` that cannot take the bank down. Flask-free: Gunicorn's master runs it.

Gunicorn answers a bare SIGHUP by starting a new worker on the new config.toml and stopping the old
one. With a typo the new worker would fail to boot, the master exit (status 3) and systemd restart it
every few seconds until the file was fixed; `systemctl reload 'terrabank@*'` would take every process
down at once. And a sound edit would reach only the process reloaded, while the others went on
deciding with the old numbers. So:
- the master checks the new config first, as `terrabank config check` does (the same command, in a
  process of its own, so a master that never loaded the game stays small): a mistake leaves the old
  worker serving the config it has, with one log line naming the key; only a sound config (one whose
  ids still fit the game) gets a new worker;
- the new worker of a reload the operator asked for tells the other processes of the game on the
  queue (bank/web/push/peers.py, {"reload": true}); each asks its own master to reload, which checks
  its own file the same way. Those reloads are quiet: they announce nothing, so there is no echo.
  A master asked by a worker reloads only if its file changed since it last started a worker on it:
  the reloaded process's old worker, still draining, heard its successor's notice too and made its
  master start a second worker, and `systemctl reload 'terrabank@*'` made each process reload once
  per process of the game (their pages reconnecting each time);
- each reload a master does is one log line, so the journal shows that every process took the edit;
- a worker is started on the very bytes its master checked, held in the master's memory and inherited by
  the fork (`accepted_text`), never on the file as it is when the worker boots. Before, a worker Gunicorn
  started again after a crash, a kill or its watchdog's timeout read the file anew: after a refused reload
  (the typo still in the file) it failed to boot and the master exited, the bank down; and a file saved
  again while a sound edit was being checked reached the new worker unchecked;
- a sound edit whose game cannot be reached to check it against (PostgreSQL down or cut; the SQLite file's write
  lock held by another program past a command's wait, which a new worker would wait on too, answering 503:
  `config check` exits UNREACHED_STATUS) waits instead of being refused or served by a worker that cannot open
  the game: one line says so, the old worker goes on, and the master checks the same bytes again once its hold
  on the game is back (a file: at once), WAIT_RETRY_SECONDS after its last check, then up to WAIT_RETRY_MOST
  apart, then reloads by itself, said in its one line. Before, it was refused naming the database (the edit
  reached no worker until someone thought of reloading again after the outage), or, a file held, reloaded onto
  a worker answering 503 for as long as the lock was held. A reload asked meanwhile replaces it.
"""

from __future__ import annotations

import json
import mmap
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

CHECK_SECONDS = 60  # a `config check` that takes longer (a database that does not answer) refuses the reload
ORIGIN = "TERRABANK_RELOAD"  # in the new worker's environment: "announce" (the operator's reload) or "quiet"
MASTER = "TERRABANK_MASTER_PID"  # the master a worker may ask to reload: its parent, and nobody else
_ASKED_BY_PEER = mmap.mmap(-1, 1)  # set by a worker before its SIGHUP (shared with the master across the fork)
CODE = Path(__file__).resolve().parents[3]  # the checkout whose bank/ this is: the check runs the same code
STDIN = "/dev/stdin"  # the check reads the bytes it is handed there, not the file again
_accepted: bytes | None = None  # in a checking master: the config its workers start on (set before each fork)
UNREACHED_STATUS = 75  # `config check`: the config reads soundly, its game could not be reached (EX_TEMPFAIL)
WAIT_RETRY_SECONDS = 5.0  # a reload waiting for its game checks again no sooner (and only once the hold is back),
WAIT_RETRY_MOST = 60.0  # then twice as long after each check that still could not reach it, up to this
BOOT_WAIT = 60.0  # a reload asked while the worker the last one started builds its app waits this long at most
MOST_CHECKED = 4  # files of one burst of reloads checked at most, the newest first, until one is sound
# The master's last word on a reload, for its workers' admin page (status): JSON after its 4-byte length, in memory
# shared across the fork. Before, only the log said a reload waited or was refused: the lead who had asked for it
# at the folding table saw nothing.
_STATUS = mmap.mmap(-1, 8192)


def problem(config_path: str, db: str, text: bytes | None = None) -> str | None:
    """What `terrabank config check` finds wrong with the config for the game `db`, or None: with `text`, those
    bytes (named `config_path` in the answer), else the file at `config_path` as it is now."""
    return checked(config_path, db, text)[0]


def checked(config_path: str, db: str, text: bytes | None = None) -> tuple[str | None, bool]:
    """(`problem`, whether it is only that the game could not be reached to check the config against it)."""
    script = f"import sys; sys.path.insert(0, {str(CODE)!r}); from bank.cli.main import main; sys.exit(main(sys.argv[1:]))"
    source = config_path if text is None else STDIN
    try:
        done = subprocess.run([sys.executable, "-c", script, "--config", source, "--db", str(db), "config", "check"],
                              capture_output=True, input=text if text is not None else b"", timeout=CHECK_SECONDS)
    except subprocess.TimeoutExpired:
        return f"`terrabank config check` did not answer within {CHECK_SECONDS} s", False
    if done.returncode == 0:
        return None, False
    said = [line for line in (done.stderr or done.stdout).decode("utf-8", "replace").splitlines() if line.strip()]
    found = (said[-1] if said else f"`terrabank config check` ended with status {done.returncode}").removeprefix(
        "terrabank: ")
    return (found.replace(STDIN, config_path) if text is not None else found), done.returncode == UNREACHED_STATUS


def tell(state: str, **said) -> None:
    """In the master: the reload is `state` ("checking", "waiting" with `why` "boot", "file" or "database",
    "refused", with `still_waiting` "file" or "database" when a sound edit reloaded before it still waits, or
    "reloaded"), with `problem` (the check's sentence) where there is one."""
    if "problem" in said:
        said["problem"] = said["problem"][:1500]  # one sentence; the whole JSON always fits _STATUS
    text = json.dumps({"state": state, "at": time.time(), **said}, ensure_ascii=False).encode("utf-8")
    _STATUS[:4] = bytes(4)  # a reader meanwhile finds nothing rather than half of it
    _STATUS[4:4 + len(text)] = text
    _STATUS[:4] = len(text).to_bytes(4, "big")


def status() -> dict | None:
    """In a worker: its master's last word on a reload, with its `age` in seconds; None when there was none (or
    no checking master: a test's app, `serve --dev`)."""
    for _ in range(3):  # a read that met the master writing
        size = int.from_bytes(_STATUS[:4], "big")
        if not size:
            return None
        try:
            said = json.loads(_STATUS[4:4 + size].decode("utf-8"))
        except ValueError:
            time.sleep(0.01)
            continue
        at = said.pop("at", 0.0)
        return {**said, "age": max(0.0, time.time() - at)}
    return None


def accepted_text() -> str | None:
    """In a worker of a checking master: the config text its master checked and started it on; None elsewhere
    (`serve --dev`, the commands, a test's app), where the file is read."""
    return None if _accepted is None else _accepted.decode("utf-8")


def _accept(text: bytes | None) -> None:
    global _accepted
    _accepted = text


def checked_arbiter(config_path: str, db: str, say):
    """Gunicorn's Arbiter whose SIGHUP reloads only a config that passes `problem`; `say(line)` logs."""
    from gunicorn.arbiter import Arbiter

    class CheckedArbiter(Arbiter):
        loaded = None  # the config file's bytes when the running worker was started on it
        waiting = None  # (bytes, asked by a peer, when last checked, checks so far): a sound reload waiting for its game

        def run(self):
            os.environ[MASTER] = str(os.getpid())  # the workers forked from here may ask this process
            self.loaded = _read(config_path)  # `serve` checked the file just before: its first worker starts on it
            _accept(self.loaded)
            self.booting, self.deferred = {}, False  # workers not serving yet; a SIGHUP held until they do
            self.asked = []  # (the file's bytes, asked by a peer) of each SIGHUP not handled yet, in order
            super().run()

        def spawn_worker(self):
            pid = super().spawn_worker()  # only the master comes back here
            self.booting[pid] = (self.WORKERS[pid].tmp.last_update(), time.monotonic())
            return pid

        def wait_for_signals(self, timeout=1.0):
            signals = self._after_boot(self._one_hup(super().wait_for_signals(timeout)))
            if self.waiting is not None and signal.SIGHUP not in signals and not self._a_worker_boots() \
                    and self._may_try_again():
                self._reload(*self.waiting[:2], waited=True)
            return signals

        def _after_boot(self, signals: list) -> list:
            # A reload asked while the worker the last one started still builds its app waits until it serves.
            # Else it stopped that worker before it served (once a burst of reloads in a probe, 0.1 s after its
            # start), and the commands waiting for it waited for one more worker's start (up to 3.8 s at load 5).
            if signal.SIGHUP not in signals and not self.deferred:
                return signals
            if self._a_worker_boots():
                if not self.deferred and _ASKED_BY_PEER[0] != 1:  # a peer's reload of the same file may start none
                    tell("waiting", why="boot")
                self.deferred = True
                return [sig for sig in signals if sig != signal.SIGHUP]
            self.deferred = False
            return signals if signal.SIGHUP in signals else [*signals, signal.SIGHUP]

        def _a_worker_boots(self) -> bool:
            """Whether a worker this master started has not served yet: its heartbeat file, touched by its loop once
            its app is built, unchanged since the fork (BOOT_WAIT at most; a worker gone is not booting)."""
            for pid, (mark, since) in list(self.booting.items()):
                worker = self.WORKERS.get(pid)
                if worker is None or worker.tmp.last_update() != mark or time.monotonic() - since > BOOT_WAIT:
                    del self.booting[pid]
            return bool(self.booting)

        @staticmethod
        def _one_hup(signals: list) -> list:
            # SIGHUPs that came while the last reload ran (its check, its old worker's end: seconds each) are one
            # reload: each started a worker and stopped the one before, often before it had served anything, so
            # 20 reloads asked in 2 s took two minutes and commands waited 15 s for a worker that was serving.
            if signals.count(signal.SIGHUP) > 1:
                first = signals.index(signal.SIGHUP)
                signals = [sig for n, sig in enumerate(signals) if sig != signal.SIGHUP or n == first]
            return signals

        def _may_try_again(self) -> bool:
            """A waiting reload is checked again once the database answers this master's hold (its watcher
            probes it each second), WAIT_RETRY_SECONDS after its last check, twice as long after each check that
            still failed (a database that answers the hold but refuses new connections), WAIT_RETRY_MOST at most:
            each check is a process of its own, a CPU-second on a Pi."""
            holds = sys.modules.get("bank.store.journal_pg_hold")  # not imported: no hold (a game in a file)
            _, _, checked_at, checks = self.waiting
            wait = min(WAIT_RETRY_MOST, WAIT_RETRY_SECONDS * 2 ** max(0, checks - 1))
            return time.monotonic() - checked_at >= wait and (holds is None or holds.all_held())

        def signal(self, sig, frame):
            # Each reload asked is the file as it was when asked: a burst of reloads is one (_one_hup), and the file
            # read once it ran was the newest only. Before, 20 asked in 2 s alternating a sound and a broken file
            # ended on the first sound one (a probe: "Version 0", the last asked sound being "Version 18"), one
            # refusal said, and the nine sound reloads between vanished unsaid.
            if sig == signal.SIGHUP:
                self.asked.append((_read(config_path), _ASKED_BY_PEER[0] == 1))
                _ASKED_BY_PEER[0] = 0
            super().signal(sig, frame)

        def handle_hup(self):
            asked, self.asked = self.asked, []
            if not asked:  # a SIGHUP this master sent itself (no handler ran): the file as it is now
                asked = [(_read(config_path), _ASKED_BY_PEER[0] == 1)]
                _ASKED_BY_PEER[0] = 0
            texts, peer = [], all(by_peer for _, by_peer in asked)  # each file asked once, the newest first
            for text, _ in reversed(asked):
                if text not in texts:
                    texts.append(text)
            if peer and texts[0] == self.loaded:  # this process already serves this file: no second worker
                return
            # The newest first; refused, the one asked before it, down to the one served (already the last sound
            # one) or MOST_CHECKED checks: the bank ends on the last sound config asked, each refusal said.
            for n, text in enumerate(texts[:MOST_CHECKED]):
                if n and text == self.loaded:
                    return
                together = "" if len(asked) == 1 else (
                    f"{'the newest' if not n else 'asked before the newer one'}, of {len(asked)} reloads asked together")
                if self._reload(text, peer, together=together) != "refused":
                    return

        def _reload(self, now: bytes | None, peer: bool, waited: bool = False, together: str = "") -> str:
            """Check `now` and reload it: "reloaded", "refused" or "waiting" (for its game)."""
            if not waited:
                tell("checking")
            found, unreached = checked(config_path, db, now)  # None (the file gone): the check says so, naming it
            if found and unreached:
                if not waited:  # said once: the tries again are quiet
                    say("terrabank: the reload waits for the game's database (this process goes on with the config "
                        f"it had, and reloads by itself once it can check it against the game: no need to reload "
                        f"again): {found}")
                    tell("waiting", why="database" if "bank.store.journal_pg_hold" in sys.modules else "file",
                         problem=found)
                self.waiting = (now, peer, time.monotonic(), self.waiting[3] + 1 if waited else 1)
                return "waiting"
            if found and self.waiting is not None and not waited:
                # A broken save after a sound edit that waits for its game: that edit, the last sound config asked,
                # still waits (had the game answered, it would be served by now, and stay served). Before, the
                # refusal dropped it: the bank, which had said "no need to reload again", went on with the config
                # of before the outage for good.
                why = "database" if "bank.store.journal_pg_hold" in sys.modules else "file"
                say("terrabank: the reload was refused" + (f" ({together})" if together else "")
                    + ", the sound edit reloaded before it still waits for the game's "
                    + ("database" if why == "database" else "file") + f" and is taken by itself once it can be "
                    f"checked (reload a mended file to replace it): {found}")
                tell("refused", problem=found, still_waiting=why)
                return "refused"
            self.waiting = None  # checked at last, or replaced by a reload asked since
            if found:
                say("terrabank: the reload was refused" + (f" ({together})" if together else "")
                    + f", this process goes on with the config it had: {found}")
                tell("refused", problem=found)
                return "refused"
            tell("reloaded", waited=waited)
            self.loaded = now
            _accept(now)  # the new worker (and any started again later) starts on these bytes
            say(f"terrabank: reloading {config_path}: a new worker serves it"
                + (" (another process of the game reloaded it)" if peer else "")
                + (" (it waited for the database)" if waited else "")
                + (f" ({together})" if together else ""))
            os.environ[ORIGIN] = "quiet" if peer else "announce"  # read by the new worker (forked in there)
            try:
                super().handle_hup()
            finally:
                os.environ.pop(ORIGIN, None)  # not for a worker restarted later after a crash
            return "reloaded"

    return CheckedArbiter


def _read(path: str) -> bytes | None:
    try:
        with open(path, "rb") as file:
            return file.read()
    except OSError:  # gone or unreadable: `problem` says so when a reload asks
        return None


def announces() -> bool:
    """In a worker: whether it was started by a reload the operator asked for (it tells the other processes)."""
    return os.environ.pop(ORIGIN, "") == "announce"


def ask_master() -> bool:
    """In a worker: another process of the game reloaded a sound config; ask this process's master to reload
    too (quietly). False where no checking master is this process's parent (a test, `serve --dev`)."""
    master = os.environ.get(MASTER, "")
    if not master.isdigit() or int(master) != os.getppid():
        return False
    _ASKED_BY_PEER[0] = 1
    os.kill(int(master), signal.SIGHUP)
    return True
