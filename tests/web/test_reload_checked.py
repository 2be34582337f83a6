"""`systemctl reload` cannot take the bank down, and a sound edit reaches every process.

Before: the unit's ExecReload is a bare SIGHUP. With a typo in config.toml, Gunicorn's new worker failed
to boot and the master exited (status 3): the bank was down until the file was fixed, and the documented
`systemctl reload 'terrabank@*'` took every process down at once. A sound edit reached only the process
that was reloaded.

Here two `terrabank serve` processes of one game in PostgreSQL hear each other through Redis, as the
units run them, with consoles booking on both. The test sends SIGHUP to one server's process, as
`ExecReload=/bin/kill -HUP $MAINPID` does: first with a typo (refused in one line naming the key; the
same worker goes on answering), then with a sound change of the game's title (both processes show it,
the one reloaded and the other, told on the queue), each with one new worker and one line saying so.
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import threading
import time
import uuid
from pathlib import Path

import pytest

from pg_game_kit import AWARD, wait_until
from harness import CONFIG, PASSWORD, TERRABANK, USER, Api, end, launch  # noqa: E402 (bench/ is on the path now)

TITLE = 'title = { fr = "Terraformation", en = "Terraforming" }'
NEW_TITLE = 'title = { fr = "Terraformation estivale", en = "Summer terraforming" }'


class Consoles:
    """A console on each server booking awards one after the other until stopped; what each got."""

    def __init__(self, ports: list[int]):
        self.apis = [Api(f"http://127.0.0.1:{port}", timeout=15).login() for port in ports]
        self.replies: list[tuple[int, int]] = []  # (server index, status)
        self._stop = threading.Event()
        self._threads = [threading.Thread(target=self._run, args=(i,), daemon=True) for i in range(len(ports))]
        for thread in self._threads:
            thread.start()

    def _run(self, i: int) -> None:
        for n in range(100000):
            if self._stop.is_set():
                return
            try:
                status, _ = self.apis[i].command(f"reload-{i}-{n}-{uuid.uuid4().hex[:6]}", **AWARD)
            except OSError:
                status = 0
            self.replies.append((i, status))
            self._stop.wait(0.05)

    def stop(self) -> None:
        self._stop.set()
        for thread in self._threads:
            thread.join(30)


def title(port: int) -> str:
    status, body = Api(f"http://127.0.0.1:{port}", timeout=10).request("GET", "/api/config")
    assert status == 200, body
    return body["title"]


def worker(port: int) -> int:
    return Api(f"http://127.0.0.1:{port}", timeout=10).request("GET", "/healthz")[1]["process"]


@pytest.fixture
def two_servers(postgres_server, redis_server, tmp_path):
    config = tmp_path / "config.toml"
    shutil.copy(CONFIG, config)
    name = f"reload-{uuid.uuid4().hex[:8]}"
    # The unit's drain: a reload's old worker goes on serving (and hearing the queue) for 5 s.
    env = {"TERRABANK_DATABASE_URL": postgres_server.url, "TERRABANK_QUEUE_URL": redis_server.url,
           "TERRABANK_DRAIN_SECONDS": "5"}
    full = {**os.environ, **env}

    def cli(*args, stdin=None):
        subprocess.run([TERRABANK, "--config", str(config), "--db", name, *args], input=stdin, text=True, check=True,
                       capture_output=True, cwd=tmp_path, env=full, timeout=120)

    cli("init")
    cli("user", USER, "--role", "lead", "--password-stdin", stdin=PASSWORD + "\n")
    servers = []
    try:
        for host in ("a", "b"):
            (tmp_path / host).mkdir()
            servers.append(launch([TERRABANK, "--config", str(config), "--db", name, "serve", "--host", "127.0.0.1",
                                   "--port", "0"], tmp_path / f"{host}.log", timeout=90, env=env, cwd=tmp_path / host))
        yield config, servers, tmp_path
    finally:
        for proc, _ in servers:
            end(proc, timeout=30)


def test_a_reload_with_a_typo_is_refused_in_one_line_and_a_sound_one_reaches_every_process(two_servers):
    config, servers, folder = two_servers
    (a, port_a), (b, port_b) = servers
    assert title(port_a) == title(port_b) == "Terraformation"
    workers = worker(port_a), worker(port_b)
    consoles = Consoles([port_a, port_b])
    try:
        assert wait_until(lambda: sum(status == 200 for _, status in consoles.replies) >= 10, 60), consoles.replies
        text = config.read_text(encoding="utf-8")
        config.write_text(text.replace("duration_minutes = 180", "duraton_minutes = 180"), encoding="utf-8")
        a.send_signal(signal.SIGHUP)  # as ExecReload=/bin/kill -HUP $MAINPID
        log_a = folder / "a.log"
        assert wait_until(lambda: "the reload was refused" in log_a.read_text(errors="replace"), 60), \
            log_a.read_text(errors="replace")[-3000:]
        refused = [line for line in log_a.read_text(errors="replace").splitlines() if "reload was refused" in line]
        assert len(refused) == 1 and "'game.duration_minutes'" in refused[0] and "duraton_minutes" in refused[0], refused
        booked_before = sum(status == 200 for i, status in consoles.replies if i == 0)
        assert wait_until(lambda: sum(status == 200 for i, status in consoles.replies if i == 0) >= booked_before + 5,
                          60), consoles.replies[-10:]
        assert a.poll() is None and worker(port_a) == workers[0]  # the same worker, never stopped
        assert title(port_a) == "Terraformation"

        config.write_text(text.replace(TITLE, NEW_TITLE), encoding="utf-8")
        a.send_signal(signal.SIGHUP)
        assert wait_until(lambda: title(port_a) == "Terraformation estivale", 90), log_a.read_text(errors="replace")[-3000:]
        # b was not signalled: it heard a's reload on the queue, checked its own file and reloaded.
        assert wait_until(lambda: title(port_b) == "Terraformation estivale", 90), \
            (folder / "b.log").read_text(errors="replace")[-3000:]
        # The old workers drain for 5 s, answering beside the new ones meanwhile: then they are gone.
        assert wait_until(lambda: worker(port_a) != workers[0] and worker(port_b) != workers[1]
                          and title(port_a) == title(port_b) == "Terraformation estivale", 60)
        assert a.poll() is None and b.poll() is None
        # One new worker in each process, each said in one line. Before, a's old worker, still draining, heard
        # its successor's notice too and made a's master start a second one (pages reconnecting twice), and
        # nothing in either log said that a reload had happened at all.
        def reloads(log: str) -> list:
            return [line for line in (folder / log).read_text(errors="replace").splitlines()
                    if "terrabank: reloading" in line]
        assert not wait_until(lambda: len(reloads("a.log")) > 1, 8), reloads("a.log")
        assert len(reloads("a.log")) == 1 and "another process" not in reloads("a.log")[0], reloads("a.log")
        assert len(reloads("b.log")) == 1 and "another process of the game reloaded it" in reloads("b.log")[0], \
            reloads("b.log")
        count = len(consoles.replies)
        assert wait_until(lambda: sum(status == 200 for _, status in consoles.replies[count:]) >= 10, 60), \
            consoles.replies[-10:]
    finally:
        consoles.stop()
    # The bank answered all along: nothing but a reply, and no more than a handful of the refusals a worker
    # that is stopping gives (a command in flight while the old worker drains is answered, or refused to retry).
    assert not [status for _, status in consoles.replies if status in (0, 500, 502)], consoles.replies
    for log in ("a.log", "b.log"):
        text = (folder / log).read_text(errors="replace")
        assert "Traceback" not in text and "Worker failed to boot" not in text, text[-3000:]


def _ready_checks(port: int) -> dict:
    try:
        return Api(f"http://127.0.0.1:{port}", timeout=10).request("GET", "/readyz")[1].get("checks", {})
    except OSError:
        return {}


def test_a_reload_while_a_process_is_cut_from_redis_reaches_every_process_once_the_queue_answers(
        postgres_server, redis_server, tmp_path):
    """A reload's notice goes on the queue: a process that missed it, or a reloaded process that could not send
    it, still ends on the new config once its queue answers. Before: `b` cut from Redis while `a` reloaded went
    on with the old config for good (the notice was gone), and `a` cut for over 30 s gave its notice up."""
    from tcp_proxy import Proxy

    config = tmp_path / "config.toml"
    shutil.copy(CONFIG, config)
    name = f"reload-cut-{uuid.uuid4().hex[:8]}"
    env = {"TERRABANK_DATABASE_URL": postgres_server.url}
    host, port = redis_server.url.removeprefix("redis://").split("/")[0].split(":")
    proxies = {n: Proxy(int(port), host) for n in "ab"}  # each process reaches Redis through a link that can be cut
    subprocess.run([TERRABANK, "--config", str(config), "--db", name, "init"], check=True, capture_output=True,
                   cwd=tmp_path, env={**os.environ, **env, "TERRABANK_QUEUE_URL": redis_server.url}, timeout=120)
    servers = {}
    try:
        for n in "ab":
            (tmp_path / n).mkdir()
            servers[n] = launch([TERRABANK, "--config", str(config), "--db", name, "serve", "--host", "127.0.0.1",
                                 "--port", "0"], tmp_path / f"{n}.log", timeout=90, cwd=tmp_path / n,
                                env={**env, "TERRABANK_QUEUE_URL": f"redis://127.0.0.1:{proxies[n].port}/0"})
        (a, port_a), (b, port_b) = servers["a"], servers["b"]
        text = config.read_text(encoding="utf-8")

        def reload_a(new_title: str) -> None:
            config.write_text(text.replace(TITLE, f'title = {{ fr = "{new_title}", en = "Summer" }}'), encoding="utf-8")
            a.send_signal(signal.SIGHUP)
            assert wait_until(lambda: title(port_a) == new_title, 90), (tmp_path / "a.log").read_text()[-3000:]

        # b cut from the queue while a reloads: b misses the notice, and takes the edit once its queue answers.
        proxies["b"].cut()
        assert wait_until(lambda: _ready_checks(port_b).get("queue") is False, 30)
        reload_a("Été 🌱")
        assert title(port_b) == "Terraformation"
        proxies["b"].restore()
        assert wait_until(lambda: title(port_b) == "Été 🌱", 60), (tmp_path / "b.log").read_text()[-3000:]

        # a cut from the queue for longer than 30 s while it reloads: its notice goes once its queue answers.
        cut_at = time.monotonic()
        proxies["a"].cut()
        assert wait_until(lambda: _ready_checks(port_a).get("queue") is False, 30)
        reload_a("Automne 🍂")
        time.sleep(max(0.0, 35 - (time.monotonic() - cut_at)))
        assert title(port_b) == "Été 🌱"
        proxies["a"].restore()
        assert wait_until(lambda: title(port_b) == "Automne 🍂", 60), (tmp_path / "b.log").read_text()[-3000:]
        assert a.poll() is None and b.poll() is None
        # One line per reload in each process; a's own return to the queue starts no other worker.
        assert not wait_until(lambda: (tmp_path / "a.log").read_text().count("terrabank: reloading") > 2, 5)
        assert (tmp_path / "b.log").read_text().count("terrabank: reloading") == 2
    finally:
        for proc, _ in servers.values():
            end(proc, timeout=30)
        for proxy in proxies.values():
            proxy.close()
