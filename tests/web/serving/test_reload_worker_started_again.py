"""A worker always starts on the config its master checked, never on the file as it is when it boots.

Before: the master checked the file on `systemctl reload` (bank/web/serving/reload.py), but each worker
read config.toml again when it booted. A reload refused for a typo leaves the typo in the file; the next
time Gunicorn started a worker (after a crash, an out-of-memory kill, or its 60 s watchdog) that worker
failed to boot on it, and the master exited: the bank was down mid-game until somebody fixed the file.
The same gap let a file saved again while a sound edit was being checked reach the new worker unchecked.
Now the master keeps the bytes it checked and the worker forked from it starts on those.
"""

from __future__ import annotations

import os
import shutil
import signal
import sys
import time
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[3] / "bench"))
from harness import CONFIG, Api, Server  # noqa: E402

from bank.web.serving import reload  # noqa: E402

pytestmark = pytest.mark.skipif(not hasattr(signal, "SIGHUP"), reason="POSIX signals")

TITLE = 'title = { fr = "Terraformation", en = "Terraforming" }'
EDITED = 'title = { fr = "Terraformation d’été 🌱", en = "Summer terraforming" }'
TYPO = 'titel = { fr = "Terraformation", en = "Terraforming" }'  # sound TOML, a misspelt key


def workers(master: int) -> set[int]:
    children = Path(f"/proc/{master}/task/{master}/children")
    return {int(p) for p in children.read_text().split()} if children.exists() else set()


def title(server: Server) -> str | None:
    try:
        status, body = Api(server.url, timeout=5).request("GET", "/api/config")
    except OSError:  # between two workers
        return None
    return body["title"] if status == 200 else None


def until(what, seconds: float = 60.0):
    deadline = time.monotonic() + seconds  # a reload runs `config check` first: seconds on a loaded machine
    while time.monotonic() < deadline:
        found = what()
        if found:
            return found
        time.sleep(0.2)
    return what()


def test_a_worker_killed_after_a_refused_reload_comes_back_on_the_last_checked_config(tmp_path):
    config = tmp_path / "config.toml"
    shutil.copy(CONFIG, config)
    sound = config.read_text(encoding="utf-8")
    assert TITLE in sound
    server = Server(tmp_path, config=str(config)).prepare().start()
    try:
        assert title(server) == "Terraformation"
        config.write_text(sound.replace(TITLE, EDITED), encoding="utf-8")  # a sound edit, reloaded
        os.kill(server.pid, signal.SIGHUP)
        assert until(lambda: title(server) == "Terraformation d’été 🌱"), server.log.read_text()[-2000:]

        config.write_text(sound.replace(TITLE, TYPO), encoding="utf-8")  # then a typo: its reload refused
        os.kill(server.pid, signal.SIGHUP)
        assert until(lambda: "the reload was refused" in server.log.read_text()), server.log.read_text()[-2000:]
        until(lambda: len(workers(server.pid)) == 1, 30)  # the sound edit's old worker has drained

        killed = workers(server.pid)
        for pid in killed:  # the worker dies, as an out-of-memory kill or the watchdog would end it
            os.kill(pid, signal.SIGKILL)
        assert until(lambda: workers(server.pid) - killed), "no worker started again:\n" + server.log.read_text()[-3000:]
        assert until(lambda: title(server)) == "Terraformation d’été 🌱", server.log.read_text()[-3000:]
        assert server.proc.poll() is None, server.log.read_text()[-3000:]
        status, _ = Api(server.url, timeout=15).login().command("after-the-kill", type="award", team="green",
                                                                 points=1, reason="still booking")
        assert status == 200
        assert "Worker failed to boot" not in server.log.read_text()
    finally:
        server.stop()


def test_the_reload_check_judges_the_bytes_it_was_handed_not_the_file_as_it_is_then(tmp_path):
    config = tmp_path / "config.toml"
    shutil.copy(CONFIG, config)
    sound = config.read_bytes()
    db = str(tmp_path / "none.db")  # no game yet: the check reads the config alone
    config.write_text(sound.decode("utf-8").replace(TITLE, TYPO), encoding="utf-8")  # saved again meanwhile
    assert reload.problem(str(config), db, sound) is None
    found = reload.problem(str(config), db, sound.replace(TITLE.encode(), TYPO.encode()))
    assert found and "'game.title' is missing" in found and found.startswith(str(config)), found
    config.write_bytes(sound)
    assert "'game.title' is missing" in reload.problem(str(config), db, sound.replace(TITLE.encode(), TYPO.encode()))


def test_twenty_reloads_asked_in_two_seconds_are_a_few_and_commands_go_on_being_answered(tmp_path):
    """Before: each SIGHUP was a reload of its own, one after the other (its check, then its old worker's end), each
    stopping the worker the one before had started, often before it served: 20 asked in 2 s took over a minute,
    and commands waited 15 s (timed out) for a worker that would serve them. Now those asked while a reload runs
    are one more reload."""
    import threading

    server = Server(tmp_path).prepare().start()
    answers: list = []
    stop = threading.Event()

    def console() -> None:
        api, n = Api(server.url, timeout=15).login(), 0
        while not stop.is_set():
            try:
                status, _ = api.command(f"burst-{n}", type="award", team="green", points=1, reason="reloads")
            except OSError as exc:  # a reply that never came within 15 s
                status = repr(exc)
            answers.append(status)
            n += 1
            time.sleep(0.05)

    thread = threading.Thread(target=console, daemon=True)
    thread.start()
    try:
        until(lambda: len(answers) >= 5, 30)
        for _ in range(20):
            os.kill(server.pid, signal.SIGHUP)
            time.sleep(0.1)
        lines = lambda: server.log.read_text().count("terrabank: reloading")  # noqa: E731
        assert until(lambda: len(workers(server.pid)) == 1 and lines() >= 1, 60)
        time.sleep(5)  # no more reloads come
        assert len(workers(server.pid)) == 1 and 1 <= lines() <= 5, server.log.read_text()[-3000:]
        count = len(answers)
        assert until(lambda: answers[count:].count(200) >= 5, 30)
    finally:
        stop.set()
        thread.join(30)
        server.stop()
    assert [a for a in answers if a != 200] == [], answers
