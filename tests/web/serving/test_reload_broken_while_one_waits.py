"""A sound edit waiting for the database, then a broken save reloaded before it answers: the sound edit is still
taken once the database answers, nobody reloading again; the broken save is refused in one line that says so.

Before: the refusal dropped the waiting edit. The bank had said "no need to reload again" for it, and once
PostgreSQL answered it went on with the config of before the outage, for good, until somebody thought of
reloading again (had the database answered, the sound edit would have been served before the broken save came,
and stayed served: so a burst of reloads ends on the last sound config asked, bank/web/serving/reload.py).
A mended save reloaded after the broken one replaces the waiting edit, as any newer reload does.
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import uuid

import pytest

from pg_game_kit import add_lead, wait_until
from harness import CONFIG, TERRABANK, Api, end, launch  # noqa: E402 (bench/ is on the path once pg_game_kit is imported)

pytestmark = pytest.mark.skipif(not hasattr(signal, "SIGHUP"), reason="POSIX signals")

TITLE = 'title = { fr = "Terraformation", en = "Terraforming" }'


def version(n: int) -> str:
    return f'title = {{ fr = "Version {n}", en = "Version {n}" }}'


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


def test_a_broken_save_reloaded_while_a_sound_edit_waits_for_postgres_leaves_that_edit_waiting(
        postgres_server, tmp_path):
    config = tmp_path / "config.toml"
    shutil.copy(CONFIG, config)
    sound = config.read_text(encoding="utf-8")
    assert TITLE in sound
    name = f"reload-broken-{uuid.uuid4().hex[:8]}"
    env = {"TERRABANK_DATABASE_URL": postgres_server.url, "TERRABANK_QUEUE_URL": ""}
    subprocess.run([TERRABANK, "--config", str(config), "--db", name, "init"], check=True, capture_output=True,
                   cwd=tmp_path, env={**os.environ, **env}, timeout=120)
    add_lead(postgres_server.url, name)
    (tmp_path / "a").mkdir()
    log = tmp_path / "a.log"
    proc, port = launch([TERRABANK, "--config", str(config), "--db", name, "serve", "--host", "127.0.0.1", "--port",
                         "0"], log, timeout=90, env=env, cwd=tmp_path / "a")
    stopped = False
    said = lambda: log.read_text(errors="replace")  # noqa: E731
    lines = lambda text: [line for line in said().splitlines() if text in line]  # noqa: E731

    def reload_with(text: str, line: str, count: int) -> None:
        config.write_text(text, encoding="utf-8")
        proc.send_signal(signal.SIGHUP)
        assert wait_until(lambda: len(lines(line)) == count, 60), said()[-3000:]

    try:
        assert title(port) == "Terraformation"
        postgres_server._run("pg_ctl", "-D", str(postgres_server.data), "-m", "fast", "-w", "-t", "60", "stop")
        stopped = True
        assert wait_until(lambda: not ready(port), 30)

        # A sound edit waits; a broken save after it is refused, and the refusal says the edit still waits.
        reload_with(sound.replace(TITLE, version(1)), "the reload waits for the game's database", 1)
        reload_with(sound + "\nbroken = = 1\n", "the reload was refused", 1)
        refused = lines("the reload was refused")[0]
        assert "at line" in refused and "still waits" in refused, refused
        assert title(port) == "Terraformation"  # the old worker goes on meanwhile

        postgres_server._start(postgres_server.port)
        stopped = False
        # Nobody reloads again: the sound edit is taken (before: dropped by the refusal, "Terraformation" for good).
        assert wait_until(lambda: title(port) == "Version 1", 60), said()[-3000:]
        reloading = lines("terrabank: reloading")
        assert len(reloading) == 1 and "waited for the database" in reloading[0], reloading

        # Broken then mended while the database is away again: the mended save is the one taken.
        postgres_server._run("pg_ctl", "-D", str(postgres_server.data), "-m", "fast", "-w", "-t", "60", "stop")
        stopped = True
        assert wait_until(lambda: not ready(port), 30)
        reload_with(sound.replace(TITLE, version(2)), "the reload waits for the game's database", 2)
        reload_with(sound + "\nbroken = = 2\n", "the reload was refused", 2)
        reload_with(sound.replace(TITLE, version(3)), "the reload waits for the game's database", 3)
        postgres_server._start(postgres_server.port)
        stopped = False
        assert wait_until(lambda: title(port) == "Version 3", 60), said()[-3000:]
        assert len(lines("terrabank: reloading")) == 2, lines("terrabank: reloading")
        assert proc.poll() is None and "Traceback" not in said()
    finally:
        if stopped:
            postgres_server._start(postgres_server.port)
        end(proc, timeout=30)
