"""Two real `terrabank serve --games` processes on one PostgreSQL: a hosted game created
on one is played on the other, and both still serve it, with its accounts and its entries, after both
restart. Each process has its own working folder and its own --games folder, as two hosts would: the
game's name in the database is a name, not a path (bank/store/hosted_pg.py)."""

from __future__ import annotations

import os
import secrets
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]
sys.path.insert(0, str(ROOT / "bench"))
from harness import CONFIG, PASSWORD, TERRABANK, USER, Api, end, launch  # noqa: E402

HARVEST = {"type": "harvest", "team": "blue", "card": "harvester-1", "resource": "water"}


class GameApi(Api):
    """A facilitator of the game under `root` ("/g/camp"): every path is under it."""

    def __init__(self, port: int, root: str):
        super().__init__(f"http://127.0.0.1:{port}")
        self.root = root

    def request(self, method: str, path: str, body: dict | None = None, headers: dict | None = None):
        return super().request(method, self.root + path, body, headers)


class Host:
    """One `serve --games` process of the host game `game`, in its own folder (another machine's disk)."""

    def __init__(self, folder: Path, game: str, games: str, env: dict):
        self.folder, self.game, self.games, self.env = folder, game, games, env
        folder.mkdir(exist_ok=True)
        self.proc, self.port = None, None

    def cli(self, *args: str, stdin: str | None = None) -> None:
        subprocess.run([TERRABANK, "--config", CONFIG, "--db", self.game, *args], input=stdin, text=True,
                       check=True, capture_output=True, cwd=self.folder, env={**os.environ, **self.env})

    def start(self) -> "Host":
        self.proc, self.port = launch([TERRABANK, "--config", CONFIG, "--db", self.game, "serve", "--host",
                                       "127.0.0.1", "--port", "0", "--games", self.games],
                                      self.folder / "serve.log", timeout=90, env=self.env, cwd=self.folder)
        return self

    def stop(self) -> None:
        if self.proc is not None:
            end(self.proc, timeout=20)
            self.proc = None

    def lead(self) -> Api:
        return Api(f"http://127.0.0.1:{self.port}").login()

    def camp(self, password: str) -> GameApi:
        return GameApi(self.port, "/g/camp").login("lead", password)


@pytest.fixture
def hosts(tmp_path, postgres_server, redis_server):
    env = {"TERRABANK_DATABASE_URL": postgres_server.url, "TERRABANK_QUEUE_URL": redis_server.url}
    game = f"association-{secrets.token_hex(3)}"
    one = Host(tmp_path / "one", game, "games", env)  # relative --games folders, named differently
    other = Host(tmp_path / "other", game, str(tmp_path / "other" / "hosted-here"), env)
    one.cli("init")
    one.cli("user", USER, "--role", "lead", "--password-stdin", stdin=PASSWORD + "\n")
    yield one, other
    for host in (one, other):
        host.stop()


def _state_seq(api: Api) -> int:
    status, body = api.request("GET", "/api/state")
    assert status == 200, body
    return body["seq"]


def _listed(host: Host) -> list[str]:
    status, body = host.lead().request("GET", "/api/host/games")
    assert status == 200, body
    return [g["name"] for g in body["games"] if "error" not in g]


def test_a_game_created_on_one_serve_is_played_on_the_other_and_survives_both_restarting(hosts):
    one, other = hosts
    one.start(), other.start()
    status, made = one.lead().request("POST", "/api/host/games", {"name": "camp"})
    assert status == 201, made
    password = made["lead_password"]

    # The other process serves it at once: its lead logs in there and plays.
    on_other = other.camp(password)
    assert on_other.command("start", type="start_clock")[0] == 200
    status, booked = on_other.command("harvest-1", **HARVEST)
    assert status == 200, booked
    assert _state_seq(one.camp(password)) == _state_seq(on_other) == booked["seq"]  # one game, not two
    assert _listed(one) == _listed(other) == ["camp"]

    # Both restart: the game is still served by each, with its lead's account and its entries.
    one.stop(), other.stop()
    one.start(), other.start()
    for host in (other, one):
        assert _state_seq(host.camp(password)) == booked["seq"]
        assert _listed(host) == ["camp"]
    status, again = one.camp(password).command("harvest-2", **HARVEST)
    assert status == 200 and again["seq"] > booked["seq"], again
    # No folder of a game on either host: the database holds it all.
    assert not (one.folder / "games" / "camp").exists() and not (other.folder / "hosted-here" / "camp").exists()
