"""Two `terrabank serve` processes on one game, over PostgreSQL and Redis.

Real processes, as an association would run them behind nginx: a command booked on one
reaches a phone connected to the other; the same command id sent to both is booked once;
killing one in the middle of a burst loses no acknowledged command; with Redis gone,
the other process still shows every row within a couple of seconds (the journal is the
truth, the notice only a wake-up).
"""

from __future__ import annotations

import http.client
import os
import signal
import sys
import threading
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]
sys.path.insert(0, str(ROOT / "bench"))
from harness import USER, Api  # noqa: E402
from sio_kit import Phone  # noqa: E402
from cluster_kit import cluster, module_cluster, nginx_in_front, start_game  # noqa: E402,F401 (the fixtures)

HARVEST = {"type": "harvest", "team": "blue", "card": "harvester-1", "resource": "water"}


@pytest.fixture(scope="module")
def pair(module_cluster):
    """Two processes on one game, shared by the tests that kill neither and need no other settings: each
    test books its own commands (harvests may repeat: min_interval_seconds = 0), its checks read those."""
    return module_cluster.serve("a"), module_cluster.serve("b")


@pytest.fixture(scope="module")
def proxied(module_cluster):
    """Two processes of the same game behind a proxy (TERRABANK_PROXIES=1), as deploy/ runs them."""
    behind = {"TERRABANK_PROXIES": "1"}
    return module_cluster.serve("p", behind), module_cluster.serve("q", behind)


def lead(port: int) -> Api:
    return Api(f"http://127.0.0.1:{port}").login()


def sees(phone: Phone, seq: int) -> bool:
    """Whether the phone is sent its team's picture (whole or patch) at entry `seq` or later within 10 s."""
    return phone.wait_for(lambda name, data: name == "team" and isinstance(data, dict)
                          and data.get("seq", 0) >= seq, timeout=10)


def state_seq(api: Api) -> int:
    status, body = api.request("GET", "/api/state")
    assert status == 200, body
    return body["seq"]


def test_a_command_booked_on_one_process_reaches_a_phone_on_the_other(pair):
    (_, port_a), (_, port_b) = pair
    on_a = lead(port_a)
    links = start_game(on_a)
    phone = Phone(port_b, {"team": links["blue"]})
    try:
        status, booked = on_a.command("harvest-1", **HARVEST)
        assert status == 200, booked
        seq = booked["seq"]
        assert sees(phone, seq), phone.events[-3:]
        # As today's live.js reads them (tests/sio_kit.Phone): one `round` message per round, nothing separate.
        assert phone.rounds and phone.separate == []
        on_b = lead(port_b)  # the same session store: the lead's account works on both
        assert state_seq(on_b) == state_seq(on_a) == seq
        _, stock_a = on_a.request("GET", "/api/state")
        _, stock_b = on_b.request("GET", "/api/state")
        # What the harvest booked; "seconds since the last harvest" may differ by the second between reads.
        for key in ("stock", "reputation", "buildings", "animals"):
            assert stock_a["teams"]["blue"][key] == stock_b["teams"]["blue"][key]
    finally:
        phone.close()


def test_the_same_command_id_sent_to_both_processes_is_booked_once(pair):
    (_, port_a), (_, port_b) = pair
    on_a, on_b = lead(port_a), lead(port_b)
    assert on_a.command("start", type="start_clock")[0] == 200
    replies = {}

    def send(api, name):
        replies[name] = api.command("phone-retry-7", **HARVEST)

    threads = [threading.Thread(target=send, args=(api, name)) for api, name in ((on_a, "a"), (on_b, "b"))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    (status_a, body_a), (status_b, body_b) = replies["a"], replies["b"]
    assert status_a == status_b == 200, replies
    assert body_a["seq"] == body_b["seq"]
    _, rows = on_b.request("GET", f"/api/journal?after={body_a['seq'] - 1}")
    assert [r["command_id"] for r in rows["rows"]].count("phone-retry-7") == 1


def test_killing_one_process_during_a_burst_loses_no_acknowledged_command(module_cluster, pair):
    # The process killed is a third one of the shared game, started for this test; b is the pair's.
    (proc_a, port_a), (_, port_b) = module_cluster.serve("killed-in-a-burst"), pair[1]
    on_b = lead(port_b)
    assert on_b.command("start", type="start_clock")[0] == 200
    acknowledged: list[str] = []
    lock = threading.Lock()

    def burst(port: int, name: str) -> None:
        try:
            api = lead(port)
        except OSError:
            return  # killed before this device even logged in
        for n in range(60):
            key = f"{name}-{n}"
            try:
                status, _ = api.command(key, type="award", team="green", points=1, reason="burst")
            except OSError:
                return  # the process is gone: this command was never acknowledged
            if status == 200:
                with lock:
                    acknowledged.append(key)

    threads = [threading.Thread(target=burst, args=(port, name)) for port, name in ((port_a, "a"), (port_b, "b"))]
    for t in threads:
        t.start()
    deadline = time.monotonic() + 20
    while sum(k.startswith("a-") for k in acknowledged) < 5 and time.monotonic() < deadline:
        time.sleep(0.01)  # in the middle of the burst, whatever the machine's speed
    os.kill(proc_a.pid, signal.SIGKILL)  # a power cut on one host
    for t in threads:
        t.join()
    _, rows = on_b.request("GET", "/api/journal?after=0&limit=500")
    booked = [r["command_id"] for r in rows["rows"]]
    missing = [key for key in acknowledged if key not in booked]
    assert missing == [] and len(booked) == len(set(booked))
    assert any(k.startswith("a-") for k in acknowledged) and any(k.startswith("b-") for k in acknowledged)
    assert state_seq(on_b) == rows["rows"][-1]["seq"]


def test_with_redis_unreachable_the_other_process_still_shows_every_row(cluster):
    """The notice is lost (nothing listens at the queue URL): the once-a-second look catches up."""
    nowhere = {"TERRABANK_QUEUE_URL": "redis://127.0.0.1:9/0"}
    (_, port_a), (_, port_b) = cluster.serve("a", nowhere), cluster.serve("b", nowhere)
    on_a = lead(port_a)
    links = start_game(on_a)
    phone = Phone(port_b, {"team": links["blue"]})
    try:
        status, booked = on_a.command("harvest-1", **HARVEST)
        assert status == 200
        assert sees(phone, booked["seq"])
        # A command refused on b folds a's new row (under the game's lock) and books nothing:
        # b's phones must still be sent that row, not wait for b's next booking.
        on_b = lead(port_b)
        status, booked = on_a.command("harvest-2", **{**HARVEST, "card": "harvester-2"})
        assert status == 200
        assert on_b.command("refused", type="build", team="blue", building="purification_centre")[0] == 409
        assert sees(phone, booked["seq"])
    finally:
        phone.close()


class FromAddress(Api):
    """A device with its own address (127.0.0.2 and the like all reach this machine's loopback)."""

    def __init__(self, url: str, source: str):
        super().__init__(url)
        self.source = source

    def connection(self) -> http.client.HTTPConnection:
        return http.client.HTTPConnection(self.host, self.port, timeout=self.timeout, source_address=(self.source, 0))


def test_the_shipped_nginx_config_serves_two_processes_and_keeps_each_phones_address(proxied, tmp_path):
    """deploy/nginx-terrabank.conf in front of two processes (TERRABANK_PROXIES=1): pages, commands
    and a phone's live updates pass through it, and a log-in lock-out stays with the address that
    earned it: the proxy's address is not everyone's."""
    (_, port_a), (_, port_b) = proxied
    proxy, port = nginx_in_front(tmp_path, [port_a, port_b])
    try:
        on_proxy = lead(port)
        links = start_game(on_proxy)
        phone = Phone(port, {"team": links["blue"]})
        try:
            status, booked = on_proxy.command("harvest-1", **HARVEST)
            assert status == 200
            assert sees(phone, booked["seq"])
        finally:
            phone.close()
        # Someone on another device guesses the lead's password until locked out, forging the
        # header to pass for somebody else; the lead, on its own device, still logs in (behind a
        # proxy read naively, both would be the proxy's address: the lead locked out too).
        guesser = FromAddress(f"http://127.0.0.1:{port}", "127.0.0.2")
        _, body = guesser.request("GET", "/api/csrf")
        guesser.csrf = body["csrf"]
        statuses = [guesser.request("POST", "/api/login", {"username": USER, "password": "wrong guess"},
                                    {"X-Forwarded-For": "10.0.0.66"})[0] for _ in range(7)]
        assert statuses[:5] == [401] * 5 and statuses[-1] == 429, statuses
        assert lead(port).request("GET", "/api/me")[0] == 200
    finally:
        proxy.terminate()
        proxy.wait(timeout=10)


def test_a_trias_move_made_on_one_process_reaches_the_board_on_the_other(pair):
    """Trias games live in the database too: the shared screen, connected to the other process,
    is pushed the move at once (the Redis notice), not at its next reconnection."""
    (_, port_a), (_, port_b) = pair
    table = Api(f"http://127.0.0.1:{port_a}")
    _, body = table.request("GET", "/api/csrf")
    table.csrf = body["csrf"]
    status, made = table.request("POST", "/trias/api/games", {"seats": [{"name": "Ana", "kind": "human"},
                                                                      {"name": "Bo", "kind": "human"}], "seed": 7},
                                 {"Idempotency-Key": "new-game"})
    assert status == 201, made
    board = Phone(port_b, {"game": made["id"]}, namespace="/trias")
    try:
        assert board.wait_for(lambda name, data: name == "state")  # the picture on connect
        token = made["seats"][0]["link"].rsplit("/", 1)[1]
        _, seat = table.request("GET", f"/trias/api/s/{token}")
        if not seat["legal"]:  # the other seat starts
            token = made["seats"][1]["link"].rsplit("/", 1)[1]
            _, seat = table.request("GET", f"/trias/api/s/{token}")
        before = seat["seq"]
        move = next((c for c in seat["legal"] if c["type"] != "end_turn"), seat["legal"][0])
        status, reply = table.request("POST", f"/trias/api/s/{token}/commands", move, {"Idempotency-Key": "move-1"})
        assert status == 200, reply
        assert board.wait_for(lambda name, data: name == "state" and data["seq"] > before, timeout=10)
    finally:
        board.close()


def test_a_phone_whose_process_died_reconnects_through_nginx_and_sees_every_booked_row(module_cluster, proxied,
                                                                                       tmp_path):
    """The host of one process loses power: nginx sends the phone's reconnection to the other
    process, whose first picture already holds what the dead one booked, and the game goes on."""
    # The process that dies is one started for this test, beside the proxied pair's second.
    (proc_a, port_a), (_, port_b) = module_cluster.serve("dies", {"TERRABANK_PROXIES": "1"}), proxied[1]
    proxy, port = nginx_in_front(tmp_path, [port_a, port_b])
    try:
        on_a = lead(port_a)
        links = start_game(on_a)
        last = on_a.command("on-a", **HARVEST)[1]["seq"]  # booked by the process about to die
        os.kill(proc_a.pid, signal.SIGKILL)
        proc_a.wait(timeout=10)
        phone = Phone(port, {"team": links["blue"]})  # through nginx, whichever process it picked first
        try:
            first = next(data for name, data in phone.events if name == "team")
            assert first["seq"] >= last and "v" in first and "patch" not in first  # the whole picture, caught up
            status, booked = lead(port_b).command("on-b", **{**HARVEST, "card": "harvester-2"})
            assert status == 200 and sees(phone, booked["seq"])
        finally:
            phone.close()
    finally:
        proxy.terminate()
        proxy.wait(timeout=10)
