"""`terrabank serve --games FOLDER` as a facilitator starts it (bank/web/serving/hosting.py): the real
command, Gunicorn's worker, the games of the folder served under /g/<name>/, the folder held."""

from __future__ import annotations

import http.client
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
sys.path.insert(0, str(ROOT / "bench"))
from harness import CONFIG, TERRABANK, launch  # noqa: E402


def _get(port: int, path: str) -> tuple[int, str]:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    try:
        conn.request("GET", path)
        reply = conn.getresponse()
        return reply.status, reply.read().decode("utf-8", "replace")
    finally:
        conn.close()


def test_serve_with_a_games_folder_serves_each_game_under_its_path_and_holds_the_folder(tmp_path):
    from bank.web import create_app
    from bank.web.serving.hosting import HostedGames

    games = tmp_path / "games"
    made = HostedGames(games, Path(CONFIG), lambda own: create_app({**own, "PASSWORD_HASH": "pbkdf2:sha256:1000"}))
    made.create("camp")
    proc, port = launch([TERRABANK, "--config", CONFIG, "--db", str(tmp_path / "host.db"), "serve",
                         "--host", "127.0.0.1", "--port", "0", "--games", str(games)], tmp_path / "out.log", timeout=60)
    try:
        printed = (tmp_path / "out.log").read_text()
        assert "Hosting 1 other game(s)" in printed and f"http://127.0.0.1:{port}/g/<name>/" in printed
        status, page = _get(port, "/g/camp/login")
        assert status == 200 and '<meta name="root" content="/g/camp">' in page
        assert _get(port, "/g/camp/socket.io/?EIO=4&transport=polling")[0] == 200  # the game's own Socket.IO
        assert _get(port, "/login")[0] == 200  # the host's own game, at /
        status, text = _get(port, "/g/nope/login")
        assert status == 404 and "nope" in text
        # A second server on the same folder is refused at once, saying who holds it.
        second = subprocess.run([TERRABANK, "--config", CONFIG, "--db", str(tmp_path / "other.db"), "serve",
                                 "--host", "127.0.0.1", "--port", "0", "--games", str(games)],
                                capture_output=True, text=True, timeout=60)
        assert second.returncode != 0 and "already running" in second.stderr
        # And so is a server of the hosted game's own file.
        alone = subprocess.run([TERRABANK, "--config", CONFIG, "--db", str(games / "camp" / "game.db"), "serve",
                                "--host", "127.0.0.1", "--port", "0"], capture_output=True, text=True, timeout=60)
        assert alone.returncode != 0 and "already running" in alone.stderr
    finally:
        proc.terminate()
        proc.wait(timeout=15)
