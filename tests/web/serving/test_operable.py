"""Operating several processes (operable): a stop that drains, a spread that is fair.

- SIGTERM (systemctl stop, a redeploy) with a drain window: `/readyz` says "stopping" at once
  while the process goes on answering, then it ends (bank/web/serving/stopping.py); without one, the
  worker's loop is woken at once, not at the end of its 1 s wait for events.
- The shipped nginx file spreads phones by device, not by address: 200 phones behind one
  access point's NAT (one address) reach all four processes, and each keeps to its own.
"""

from __future__ import annotations

import http.client
import json
import os
import select
import signal
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]
sys.path.insert(0, str(ROOT / "bench"))
from harness import CONFIG, TERRABANK, launch  # noqa: E402


def _get(port: int, path: str, cookie: str | None = None) -> tuple[int, dict, dict]:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    try:
        conn.request("GET", path, headers={"Cookie": cookie} if cookie else {})
        reply = conn.getresponse()
        body = reply.read()
        headers = {k.lower(): v for k, v in reply.getheaders()}
        try:
            data = json.loads(body)
        except ValueError:
            data = {}
        return reply.status, headers, data
    finally:
        conn.close()


def _serve(tmp_path: Path, env: dict) -> tuple[subprocess.Popen, int]:
    db = str(tmp_path / "field.db")
    subprocess.run([TERRABANK, "--config", CONFIG, "--db", db, "init"], check=True, capture_output=True,
                   cwd=tmp_path)
    return launch([TERRABANK, "--config", CONFIG, "--db", db, "serve", "--host", "127.0.0.1", "--port", "0"],
                  tmp_path / "serve.log", timeout=60, env=env, cwd=tmp_path)


def test_a_stopping_process_says_it_is_stopping_while_it_still_answers_then_ends(tmp_path):
    proc, port = _serve(tmp_path, {"TERRABANK_DRAIN_SECONDS": "4"})
    try:
        assert _get(port, "/readyz")[0] == 200
        proc.send_signal(signal.SIGTERM)
        time.sleep(0.5)
        status, _, body = _get(port, "/readyz")
        assert status == 503 and body["checks"]["draining"] is True
        assert "stopping" in body["reason"]
        assert _get(port, "/healthz")[0] == 200, "during the drain the process still serves"
        proc.wait(timeout=30)  # drain (4 s) + Gunicorn's graceful time (5 s) at most
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


def test_the_stop_wakes_the_workers_loop_at_once():
    """Gunicorn's own SIGTERM handler wakes its loop through the method queue's pipe; the worker's handler, which
    adds the drain window, only marked it stopped: the loop saw it at the end of its 1 s wait for events, so every
    stop without a drain (systemctl stop or restart, each server a test stops) ended up to a second later."""
    from gunicorn.workers.gthread import PollableMethodQueue

    from bank.web.serving.worker import worker_classes

    guarded_worker = worker_classes()[1]
    worker = guarded_worker.__new__(guarded_worker)  # the loop's state only: no Gunicorn arbiter
    worker.alive, worker.method_queue = True, PollableMethodQueue()
    worker.method_queue.init()
    try:
        worker._stop_now()  # what SIGTERM calls after the drain window (none here)
        assert worker.alive is False
        woken = select.select([worker.method_queue.fileno()], [], [], 0)[0]
        assert woken, "the loop's wake-up pipe is empty: it would sleep out its wait for events"
    finally:
        worker.method_queue.close()


def test_a_drain_window_that_is_not_a_number_stops_the_start_with_a_sentence(tmp_path):
    db = str(tmp_path / "field.db")
    subprocess.run([TERRABANK, "--config", CONFIG, "--db", db, "init"], check=True, capture_output=True,
                   cwd=tmp_path)
    done = subprocess.run([TERRABANK, "--config", CONFIG, "--db", db, "serve", "--host", "127.0.0.1",
                           "--port", "0"], capture_output=True, text=True, timeout=60, cwd=tmp_path,
                          env={**os.environ, "TERRABANK_DRAIN_SECONDS": "five"})
    assert done.returncode != 0
    assert "TERRABANK_DRAIN_SECONDS='five' is not a number of seconds" in done.stdout + done.stderr


@pytest.fixture
def four_processes(tmp_path, postgres_server, redis_server):
    from cluster_kit import Cluster

    made = Cluster(tmp_path, postgres_server.url, redis_server.url)
    ports = [made.serve(f"p{i}")[1] for i in range(4)]
    yield made, ports
    made.stop()


def test_two_hundred_phones_behind_one_address_spread_over_four_processes_and_each_keeps_its_own(
        four_processes, tmp_path):
    from cluster_kit import nginx_in_front

    cluster, ports = four_processes
    proxy, port = nginx_in_front(tmp_path, ports)
    try:
        pids_of = {}
        for phone in range(200):  # every one from 127.0.0.1: one access point's NAT
            status, headers, _ = _get(port, "/")  # the page first, as a phone opens its link
            assert status in (200, 302), status
            cookie = headers.get("set-cookie", "")
            assert "terrabank_route=" in cookie, "nginx gives each device its route on its first answer"
            route = cookie.split(";")[0]
            pids_of[phone] = {_get(port, "/healthz", route)[2]["process"] for _ in range(3)}
        assert all(len(pids) == 1 for pids in pids_of.values()), "a device always reaches the same process"
        spread = Counter(next(iter(pids)) for pids in pids_of.values())
        assert len(spread) == 4, f"every process gets phones: {sorted(spread.values())}"
        assert min(spread.values()) >= 25, f"a fair spread of 200 over 4: {sorted(spread.values())}"
    finally:
        proxy.terminate()
        proxy.wait(timeout=10)
