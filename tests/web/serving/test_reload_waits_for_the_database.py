"""`systemctl reload` while PostgreSQL is down: the sound edit waits for the database, then reaches the worker.

Before: the master's `config check` could not open the game to check the edit against it, so the reload was
refused naming the database ("Cannot connect to PostgreSQL ..."), and the edit never reached a worker: after
the outage the bank went on with the old config (an old title, old prices) until somebody thought of
reloading again. Now a typo is still refused at once, in one line, database or not (the file is read before
the game is); a sound edit is said to wait, in one line, and once the database answers the master checks the
same bytes against the game and reloads by itself, said in one line.
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import uuid

import pytest

from pg_game_kit import add_lead, settled, wait_until
from harness import CONFIG, TERRABANK, Api, end, launch  # noqa: E402 (bench/ is on the path once pg_game_kit is imported)

pytestmark = pytest.mark.skipif(not hasattr(signal, "SIGHUP"), reason="POSIX signals")

TITLE = 'title = { fr = "Terraformation", en = "Terraforming" }'
EDITED = 'title = { fr = "Terraformation d’hiver ❄️", en = "Winter terraforming" }'
TYPO = 'titel = { fr = "Terraformation", en = "Terraforming" }'  # sound TOML, a misspelt key


def title(port: int) -> str | None:
    try:
        status, body = Api(f"http://127.0.0.1:{port}", timeout=5).request("GET", "/api/config")
    except OSError:
        return None
    return body["title"] if status == 200 else None


def ready(port: int) -> bool:
    try:
        return Api(f"http://127.0.0.1:{port}", timeout=5).request("GET", "/readyz")[0] == 200
    except OSError:
        return False


def test_a_sound_edit_reloaded_while_postgres_is_down_reaches_the_worker_once_it_answers(postgres_server, tmp_path):
    config = tmp_path / "config.toml"
    shutil.copy(CONFIG, config)
    sound = config.read_text(encoding="utf-8")
    assert TITLE in sound
    name = f"reload-wait-{uuid.uuid4().hex[:8]}"
    env = {"TERRABANK_DATABASE_URL": postgres_server.url, "TERRABANK_QUEUE_URL": ""}
    subprocess.run([TERRABANK, "--config", str(config), "--db", name, "init"], check=True, capture_output=True,
                   cwd=tmp_path, env={**os.environ, **env}, timeout=120)
    add_lead(postgres_server.url, name)
    (tmp_path / "a").mkdir()
    log = tmp_path / "a.log"
    proc, port = launch([TERRABANK, "--config", str(config), "--db", name, "serve", "--host", "127.0.0.1", "--port",
                         "0"], log, timeout=90, env=env, cwd=tmp_path / "a")
    stopped = False
    try:
        assert title(port) == "Terraformation"
        lines = lambda text: [line for line in log.read_text(errors="replace").splitlines() if text in line]  # noqa: E731
        postgres_server._run("pg_ctl", "-D", str(postgres_server.data), "-m", "fast", "-w", "-t", "60", "stop")
        stopped = True
        assert wait_until(lambda: not ready(port), 30)

        # A typo is refused at once, as ever: the file is read before the game is looked for.
        config.write_text(sound.replace(TITLE, TYPO), encoding="utf-8")
        proc.send_signal(signal.SIGHUP)
        assert wait_until(lambda: lines("the reload was refused"), 60), log.read_text(errors="replace")[-3000:]
        assert "'game.title'" in lines("the reload was refused")[0]

        # A sound edit waits for the database, said once (before: "the reload was refused ... Cannot connect").
        config.write_text(sound.replace(TITLE, EDITED), encoding="utf-8")
        proc.send_signal(signal.SIGHUP)
        assert wait_until(lambda: lines("the reload waits for the game's database"), 60), \
            log.read_text(errors="replace")[-3000:]
        assert len(lines("the reload was refused")) == 1, lines("the reload was refused")
        assert title(port) == "Terraformation"  # the old worker goes on meanwhile
        # The unit's ExecReload check passes a sound file whose game cannot be reached (before, it failed the reload
        # before the SIGHUP was sent); a plain `config check` says the game was not reached, with its own status.
        check = [TERRABANK, "--config", str(config), "--db", name, "config", "check"]
        plain = subprocess.run(check, capture_output=True, text=True, cwd=tmp_path, env={**os.environ, **env}, timeout=60)
        assert plain.returncode == 75 and "could not be reached" in plain.stderr, (plain.returncode, plain.stderr)
        unit = subprocess.run(check + ["--game-may-wait"], capture_output=True, text=True, cwd=tmp_path,
                              env={**os.environ, **env}, timeout=60)
        assert unit.returncode == 0 and "A reload waits for the game" in unit.stdout, (unit.returncode, unit.stderr)

        postgres_server._start(postgres_server.port)
        stopped = False
        # Nobody reloads again: the master checks the same bytes against the game once it answers.
        assert wait_until(lambda: title(port) == "Terraformation d’hiver ❄️", 60), \
            log.read_text(errors="replace")[-3000:]
        status, reply = settled(Api(f"http://127.0.0.1:{port}", timeout=15).login(), "after-the-wait")
        assert status == 200, reply
        assert proc.poll() is None
        reloading = lines("terrabank: reloading")
        assert len(reloading) == 1 and "waited for the database" in reloading[0], reloading
        assert len(lines("the reload waits for the game's database")) == 1
        assert len(lines("the reload was refused")) == 1
        assert "Traceback" not in log.read_text(errors="replace")
    finally:
        if stopped:
            postgres_server._start(postgres_server.port)
        end(proc, timeout=30)
