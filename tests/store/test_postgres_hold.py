"""A server's hold on its game in PostgreSQL is seen from every host (bank/store/journal_pg_hold.py).

Two folders stand for two hosts: the lock file beside `--db` is in each one's own folder, so
only the database can tell one host that the other serves the game.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from bank.errors import BankError
from bank.store.journal_pg_hold import hold

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "bench"))
from harness import CONFIG, TERRABANK, launch  # noqa: E402


def test_a_held_game_refuses_a_second_holder_and_names_the_first(postgres_server):
    with hold(postgres_server.url, "meadow", "terrabank serve"):
        with pytest.raises(BankError) as refused:
            hold(postgres_server.url, "meadow", "terrabank init")
        assert refused.value.code == "bank_running"
        assert f"terrabank serve on {os.uname().nodename}, process {os.getpid()}" in refused.value.message
        assert "nothing was changed" in refused.value.message
        hold(postgres_server.url, "another-game", "terrabank init").close()  # other games are free
    hold(postgres_server.url, "meadow", "terrabank init").close()  # let go with the first holder


def test_servers_sharing_a_queue_hold_together_and_still_refuse_init(postgres_server):
    first = hold(postgres_server.url, "festival", "terrabank serve (with a queue)", shared=True)
    second = hold(postgres_server.url, "festival", "terrabank serve (with a queue)", shared=True)
    try:
        for alone in ("terrabank init", "terrabank serve"):
            with pytest.raises(BankError, match="already running"):
                hold(postgres_server.url, "festival", alone)
        first.close()
        with pytest.raises(BankError, match="already running"):
            hold(postgres_server.url, "festival", "terrabank init")  # the second still serves
    finally:
        first.close()
        second.close()
    hold(postgres_server.url, "festival", "terrabank init").close()


def _cli(folder: Path, env: dict, *args: str, check: bool = True) -> subprocess.CompletedProcess:
    return subprocess.run([TERRABANK, "--config", CONFIG, "--db", "field", *args], cwd=folder, text=True,
                          capture_output=True, env={**os.environ, **env}, check=check, timeout=120)


def test_init_force_on_another_host_is_refused_while_a_server_runs(postgres_server, tmp_path):
    """Before: the other host's init renamed the game under the running server, which went on booking
    the phones' commands into the old one while the facilitators started the new one."""
    env = {"TERRABANK_DATABASE_URL": postgres_server.url}
    host_a, host_b = tmp_path / "a", tmp_path / "b"
    host_a.mkdir()
    host_b.mkdir()
    _cli(host_a, env, "init")
    here = os.getcwd()
    os.chdir(host_a)  # launch starts the server in the current folder: host a's
    try:
        server, _ = launch([TERRABANK, "--config", CONFIG, "--db", "field", "serve", "--host", "127.0.0.1",
                            "--port", "0"], host_a / "serve.log", timeout=60, env=env)
    finally:
        os.chdir(here)
    try:
        refused = _cli(host_b, env, "init", "--force", check=False)
        assert refused.returncode != 0
        assert "already running on game 'field'" in refused.stderr and "terrabank serve on" in refused.stderr
        assert "dated name" not in refused.stdout  # nothing was replaced
        import psycopg
        with psycopg.connect(postgres_server.url) as conn:
            names = [row[0] for row in conn.execute("SELECT name FROM terrabank.games WHERE name LIKE 'field%%'")]
        assert names == ["field"]
    finally:
        server.terminate()
        server.wait(timeout=30)
    replaced = _cli(host_b, env, "init", "--force")  # the server stopped: the game is free
    assert "dated name" in replaced.stdout
