"""Benchmarks that cannot collide: `terrabank serve --port 0` binds a free port
itself and prints it, so two servers started at once never race for one port."""

from __future__ import annotations

import http.client
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "bench"))
from harness import CONFIG, TERRABANK, launch  # noqa: E402


def serve_any_port(folder: Path):
    folder.mkdir()
    return launch([TERRABANK, "--config", CONFIG, "--db", str(folder / "game.db"), "serve",
                   "--host", "127.0.0.1", "--port", "0"], folder / "out.log", timeout=60)


def status_of(port: int, path: str) -> int:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    try:
        conn.request("GET", path)
        return conn.getresponse().status
    finally:
        conn.close()


def test_two_servers_on_port_0_each_print_their_own_port_and_answer_on_it(tmp_path):
    started = []
    try:
        for name in ("a", "b"):
            started.append(serve_any_port(tmp_path / name))
        ports = [port for _, port in started]
        assert ports[0] != ports[1] and all(port > 0 for port in ports)
        assert [status_of(port, "/display") for port in ports] == [200, 200]
        printed = (tmp_path / "a" / "out.log").read_text()
        assert f"http://127.0.0.1:{ports[0]}/console" in printed and ":0/" not in printed
    finally:
        for proc, _ in started:
            proc.terminate()
            proc.wait(timeout=15)


def test_a_server_stopped_after_port_0_restarts_at_once_on_the_port_it_had(tmp_path):
    """The harness restarts a bank on its port (fault scripts, clock-jump tests): the port
    chosen by the system must be free again as soon as the first server is gone."""
    proc, port = serve_any_port(tmp_path / "game")
    try:
        assert status_of(port, "/display") == 200
    finally:
        proc.terminate()
        proc.wait(timeout=15)
    again, same = launch([TERRABANK, "--config", CONFIG, "--db", str(tmp_path / "game" / "game.db"), "serve",
                          "--host", "127.0.0.1", "--port", str(port)], tmp_path / "again.log", timeout=60)
    try:
        assert same == port and status_of(port, "/display") == 200
    finally:
        again.terminate()
        again.wait(timeout=15)


def test_port_0_with_the_development_server_binds_its_own_port_too(tmp_path):
    """`serve --dev --port 0` (Werkzeug, for development) chooses its port as the production server
    does, so a test or a developer's second server never races another program for one."""
    import urllib.request

    (tmp_path / "dev").mkdir()
    proc, port = launch([TERRABANK, "--config", CONFIG, "--db", str(tmp_path / "dev" / "game.db"), "serve", "--dev",
                         "--host", "127.0.0.1", "--port", "0"], tmp_path / "dev" / "out.log", timeout=60)
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/display", timeout=30) as reply:
            assert reply.status == 200 and reply.headers["Server"].startswith("Werkzeug")
    finally:
        proc.terminate()
        proc.wait(timeout=15)
