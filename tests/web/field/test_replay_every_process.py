"""The lead's Replay plays on every big screen of the game, whichever server process it is on.

Before: `POST /api/replay/start` told only the screens connected to the process that answered it; with
several processes on one game (PostgreSQL and a Redis queue) a screen on another process stayed
on its podium, and the lead had to open it again with `&replay=1`. Now the other processes hear a
{"replay": true} notice on the game's queue (bank/web/push/replay_push.py) and tell their own screens.

Two real processes on one game in PostgreSQL with a Redis queue (tests/web/serving/test_processes_serve.py Cluster).
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[3] / "bench"))
from harness import Api  # noqa: E402
from sio_kit import Phone  # noqa: E402
from cluster_kit import Cluster, cluster, start_game  # noqa: E402,F401 (cluster: the fixture)

SOON = 10.0  # seconds: generous on a loaded machine; the notice arrives in milliseconds


def screen(port: int, key: str) -> Phone:
    """A big screen on its own link, as display.js opens it."""
    return Phone(port, {"display": True, "key": key}, query=f"&key={key}")


def test_replay_started_on_one_process_plays_on_the_screens_of_the_other(cluster: Cluster):
    (_, port_a), (_, port_b) = cluster.serve("a"), cluster.serve("b")
    lead_a = Api(f"http://127.0.0.1:{port_a}").login()
    start_game(lead_a)
    status, link = lead_a.request("GET", "/api/display/link")
    assert status == 200, link
    on_a, on_b = screen(port_a, link["key"]), screen(port_b, link["key"])
    try:
        assert lead_a.command("end", type="end_game")[0] == 200
        status, reply = lead_a.request("POST", "/api/replay/start")
        assert status == 200, reply
        assert reply == {"screens": 1, "others_told": True}
        assert on_a.wait_for(lambda name, data: name == "replay", SOON), on_a.events[-3:]
        # Before: process b's screen heard nothing and stayed on the podium.
        assert on_b.wait_for(lambda name, data: name == "replay", SOON), on_b.events[-3:]
    finally:
        on_a.close()
        on_b.close()
        lead_a.close()
