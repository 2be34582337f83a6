"""`systemctl reload` while another program holds the game file's write lock: the edit waits, then reaches the worker.

Before: the master's `config check` opened the game to read it, which a held write lock does not stop, so the
reload went through; the new worker could not open the game (it needs the write lock) and answered 503 to every
request, the pages and the admin page included, for as long as the other program held the lock, while the old
worker, which was serving, had been stopped. The log said only that a new worker served the edit, then that this
worker could not open the game. Now the check also asks for the write lock (a command's 5 s wait), a sound edit
waits with the worker serving the old config, said in one line that names what it waits for and what to do,
and the master checks the same bytes again by itself, reloading once the lock is free; `config check` says it.
"""

from __future__ import annotations

import shutil
import signal
import sqlite3
import subprocess
import time

import pytest

from pg_game_kit import wait_until
from harness import CONFIG, TERRABANK, Api, Server  # noqa: E402 (bench/ is on the path once pg_game_kit is imported)

pytestmark = pytest.mark.skipif(not hasattr(signal, "SIGHUP"), reason="POSIX signals")

TITLE = 'title = { fr = "Terraformation", en = "Terraforming" }'
EDITED = 'title = { fr = "Terraformation d’hiver ❄️", en = "Winter terraforming" }'
HELD = 14.0  # seconds the other program holds the write lock after the reload: past a check's 5 s wait, twice


def title(url: str) -> object:
    """The served config's title, or the status of a refusal (503), or None: no answer."""
    try:
        status, body = Api(url, timeout=5).request("GET", "/api/config")
    except OSError:
        return None
    return body["title"] if status == 200 else status


def test_a_sound_edit_reloaded_while_another_program_holds_the_file_waits_then_reaches_the_worker(tmp_path):
    config = tmp_path / "config.toml"
    shutil.copy(CONFIG, config)
    sound = config.read_text(encoding="utf-8")
    assert TITLE in sound
    server = Server(tmp_path / "game", config=str(config)).prepare().start()

    def lines(text: str) -> list:
        return [line for line in server.log.read_text(errors="replace").splitlines() if text in line]

    try:
        api = Api(server.url, timeout=20).login()
        assert title(server.url) == "Terraformation"
        other = sqlite3.connect(str(server.db), timeout=10, isolation_level=None)  # another program: a shell
        other.execute("BEGIN IMMEDIATE")
        held_until = time.monotonic() + HELD
        try:
            config.write_text(sound.replace(TITLE, EDITED), encoding="utf-8")
            server.proc.send_signal(signal.SIGHUP)
            assert wait_until(lambda: lines("the reload waits for the game's database"), 30), \
                server.log.read_text(errors="replace")[-3000:]
            waiting = lines("the reload waits for the game's database")[0]
            assert "another program holds the game's write lock" in waiting and "close that program" in waiting, waiting
            assert "no need to reload again" in waiting, waiting
            check = subprocess.run([TERRABANK, "--config", str(config), "--db", str(server.db), "config", "check"],
                                   capture_output=True, text=True, timeout=60)
            assert check.returncode == 75 and "another program holds the game's write lock" in check.stderr, (
                check.returncode, check.stderr)
            # The old worker goes on serving the config it had (before: a new worker answering 503 throughout).
            seen = set()
            while time.monotonic() < held_until:
                seen.add(title(server.url))
                time.sleep(0.5)
            assert seen == {"Terraformation"}, seen
        finally:
            other.execute("ROLLBACK")
            other.close()
        # Nobody reloads again: the master checks the same bytes once the lock is free.
        assert wait_until(lambda: title(server.url) == "Terraformation d’hiver ❄️", 30), \
            server.log.read_text(errors="replace")[-3000:]
        status, reply = api.command("after-the-wait", type="start_clock")
        assert status == 200, reply
        assert server.proc.poll() is None
        reloading = lines("terrabank: reloading")
        assert len(reloading) == 1 and "waited for the database" in reloading[0], reloading
        assert len(lines("the reload waits for the game's database")) == 1
        assert not lines("cannot open the game") and "Traceback" not in server.log.read_text(errors="replace")
    finally:
        server.stop()
