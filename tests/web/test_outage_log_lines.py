"""An outage of PostgreSQL or of Redis is one timestamped line when it goes and one when it
comes back, per process, and no traceback, however many pages reconnect meanwhile.

Before: each page that reconnected during a PostgreSQL outage logged a full traceback (16 to 92 per
process in the operator's 25 minutes: Engine.IO's "connect handler error"), and the status lines
("lost the database", "answers again") carried no time, so the journal could not say how long it lasted.
"""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time
import urllib.error
import urllib.request
import uuid
from pathlib import Path

import pytest

from bank.store.accounts.access_pg import PostgresAccess
from postgres_kit import _free_port as free_port
from sio_kit import Phone

ROOT = Path(__file__).resolve().parents[2]
TERRABANK = str(Path(sys.executable).with_name("terrabank"))

STAMP = re.compile(r"^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d")  # each status line starts with the date and the time
HEAD = re.compile(r"^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d \[\d+\] ")  # every line: date, time and process
DOWN, BACK = ("lost the hold", "lost the database"), ("took back the hold", "the database answers again")
PAGES = 4  # pages that (re)connect while the dependency is away


class Served:
    """One `terrabank serve` of a game in PostgreSQL with a queue, its output in a file."""

    def __init__(self, tmp_path: Path, pg, redis):
        self.game = f"outage-{uuid.uuid4().hex[:8]}"
        self.env = {**os.environ, "TERRABANK_DATABASE_URL": pg.url, "TERRABANK_QUEUE_URL": redis.url,
                    "TERRABANK_DB": self.game, "TERRABANK_CONFIG": str(ROOT / "config.toml"),
                    "TERRABANK_STATE_DIR": str(tmp_path / "state")}
        self.log = tmp_path / f"{self.game}.log"
        self.port = free_port()
        subprocess.run([TERRABANK, "init"], env=self.env, cwd=tmp_path, check=True, capture_output=True, timeout=120)
        # A lead, so that the first start prints no generated password; nobody logs in. Written here with a cheap
        # hash: a `terrabank user` process (the whole app, scrypt) costs a second of this serial pass.
        access = PostgresAccess(pg.url, self.game, hash_method="pbkdf2:sha256:1000")
        try:
            access.add_user("lead", "correct horse", "lead")
        finally:
            access.close()
        links = subprocess.run([TERRABANK, "links", "--base", "http://192.168.4.1:5000"], env=self.env, cwd=tmp_path,
                               check=True,
                               capture_output=True, text=True, timeout=120).stdout
        self.tokens = re.findall(r"/t/(\S+)", links)
        with open(self.log, "wb") as out:
            self.proc = subprocess.Popen([TERRABANK, "serve", "--host", "127.0.0.1", "--port", str(self.port),
                                          "--base", "http://192.168.4.1:5000"], env=self.env, cwd=tmp_path, stdout=out,
                                         stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
        assert wait_for(self.ready, 90), self.output()

    def ready(self) -> bool:
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{self.port}/readyz", timeout=5) as reply:
                return reply.status == 200
        except (urllib.error.URLError, OSError):
            return False

    def pages_reconnect(self) -> None:
        """PAGES pages load and open their live connection again (each as a phone does after a drop)."""
        for i in range(PAGES):
            token = self.tokens[i % len(self.tokens)]
            try:
                urllib.request.urlopen(f"http://127.0.0.1:{self.port}/t/{token}", timeout=10).close()
            except (urllib.error.URLError, OSError):
                pass  # a 503 with its sentence is the page's answer while the database is away
            try:
                # While PostgreSQL is away its connect is never answered (the handler raised): the phone gives up
                # after a second. The server has its connect by then (it came before the close), as with 3 s, which
                # made the two outage rounds 8 x 3 s of waiting in the serial pass.
                Phone(self.port, {"team": token}, query=f"&team={token}", timeout=1).close()
            except (OSError, AssertionError, json.JSONDecodeError):
                pass  # refused, or dropped: the page tries again later

    def output(self) -> str:
        return self.log.read_text(errors="replace")

    def stop(self) -> str:
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(60)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        return self.output()


def wait_for(found, timeout: float):
    deadline = time.monotonic() + timeout
    while not found() and time.monotonic() < deadline:
        time.sleep(0.25)
    return found()


def lines_with(output: str, text: str) -> list[str]:
    return [line for line in output.splitlines() if text in line]


def assert_one_each_way(output: str, down: str, back: str) -> None:
    assert "Traceback" not in output, output
    for said in (down, back):
        found = lines_with(output, said)
        assert len(found) == 1, f"{said!r} said {len(found)} times:\n{output}"
        assert STAMP.match(found[0]), f"no time on {found[0]!r}"


@pytest.mark.serial("times a whole serve's return after PostgreSQL restarts: too slow beside four workers")
def test_a_postgres_outage_is_two_lines_from_the_whole_serve_and_every_line_says_when_and_who(
        postgres_server, redis_server, tmp_path):
    """Before: 5 to 9 lines per outage from one `serve` (the hold's lost/took-back pair, the
    database's lost/answers pair, sometimes twice, the paper writer's), and lines without the date and
    process: the start banner, Gunicorn's own "[ERROR]" shape, Engine.IO's "Invalid session"."""
    served = Served(tmp_path, postgres_server, redis_server)
    try:
        served.pages_reconnect()
        urllib.request.urlopen(f"http://127.0.0.1:{served.port}/healthz", timeout=10).close()
        try:  # a page whose live session the server forgot (a restart): Engine.IO's line
            urllib.request.urlopen(f"http://127.0.0.1:{served.port}/socket.io/?EIO=4&transport=polling&sid=gone",
                                   timeout=10).close()
        except urllib.error.HTTPError:
            pass
        assert wait_for(lambda: "Invalid session" in served.output(), 10), served.output()
        before = len(served.output().splitlines())
        postgres_server._run("pg_ctl", "-D", str(postgres_server.data), "-m", "fast", "-w", "-t", "60", "stop")
        try:
            assert wait_for(lambda: not served.ready(), 30)
            served.pages_reconnect()
            time.sleep(3)  # the hold's watcher, the ticker and the paper writer meet the outage too
            served.pages_reconnect()
        finally:
            postgres_server._start(postgres_server.port)
        assert wait_for(served.ready, 60), served.output()
        served.pages_reconnect()
        assert wait_for(lambda: any(lines_with(served.output(), said) for said in BACK), 30), served.output()
        time.sleep(3)  # a second pair of lines, said late, would be here by now
        during = served.output().splitlines()[before:]
    finally:
        output = served.stop()
    assert "Traceback" not in output, output
    assert len(during) <= 2, "\n".join(during)
    assert sum(any(said in line for said in DOWN) for line in during) == 1, during
    assert sum(any(said in line for said in BACK) for line in during) == 1, during
    unstamped = [line for line in output.splitlines() if not HEAD.match(line)]
    assert unstamped == [], unstamped
    assert [line for line in output.splitlines() if "Terrabank is running" in line], output


def test_a_redis_outage_is_one_timestamped_line_each_way_with_pages_reconnecting(
        postgres_server, redis_server, tmp_path):
    served = Served(tmp_path, postgres_server, redis_server)
    try:
        served.pages_reconnect()
        redis_server.proc.terminate()
        redis_server.proc.wait(10)
        try:
            assert wait_for(lambda: lines_with(served.output(), "lost Redis"), 30), served.output()
            served.pages_reconnect()
            time.sleep(2)  # the subscriber tries again meanwhile
            served.pages_reconnect()
        finally:
            redis_server._start(redis_server.port)
        assert wait_for(lambda: lines_with(served.output(), "answers again"), 60), served.output()
        served.pages_reconnect()
    finally:
        output = served.stop()
    assert_one_each_way(output, "lost Redis", "answers again")
    # Said as the bank's other status lines, in words a facilitator reads (before: "peers: lost Redis at ...;
    # retrying every 2 s, other processes' rows still arrive within a second").
    lost, back = lines_with(output, "lost Redis")[0], lines_with(output, "answers again")[0]
    assert HEAD.sub("", lost).startswith("terrabank: lost Redis at ") and "every process goes on booking" in lost, lost
    assert HEAD.sub("", back).startswith("terrabank: Redis at ") and "at once again" in back, back
