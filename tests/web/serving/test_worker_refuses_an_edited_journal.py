"""A worker started again on a journal edited since `serve` started refuses it, as `serve` refuses it at start.

`serve` checks the game file once, at start (bank/cli/serve.py check_database); Gunicorn starts a worker again
after a crash, an out-of-memory kill or a reload. Before: a row edited by hand while the bank served (an award
of 1 point made 9, the guards dropped, its chain row left as it was), then the worker killed, and the new worker
served the edited row in the standings, and answered the phones that witness the journal the very head they saw
at that entry (the stored chain): no page said anything. Now the new worker fails to boot naming the row, and
`serve` ends as it would have refused to start (bank/cli/serve_lean.py _trusted).
"""

from __future__ import annotations

import os
import signal
import sqlite3
import sys
import time
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[3] / "bench"))
from harness import Api, Server  # noqa: E402

pytestmark = pytest.mark.skipif(not hasattr(signal, "SIGKILL"), reason="POSIX signals")


def _workers(master: int) -> set[int]:
    children = Path(f"/proc/{master}/task/{master}/children")
    return {int(p) for p in children.read_text().split()} if children.exists() else set()


def test_a_worker_started_again_on_a_journal_edited_meanwhile_refuses_it(tmp_path):
    server = Server(tmp_path).prepare().start()
    try:
        api = Api(server.url, timeout=15).login()
        assert api.command("start", type="start_clock")[0] == 200
        status, booked = api.command("award", type="award", team="green", points=1, reason="fair play")
        assert status == 200, booked
        api.close()
        seen = Api(server.url, timeout=15).request("GET", f"/api/chain/{booked['seq']}")[1]["hash"]  # a phone's

        raw = sqlite3.connect(server.db)  # while the bank serves: the award's points edited in place
        raw.executescript("DROP TRIGGER journal_no_update; UPDATE journal SET command = replace(command, "
                          "'\"points\":1', '\"points\":9'), events = replace(events, '\"points\":1', '\"points\":9') "
                          f"WHERE seq = {booked['seq']};")
        assert '"points":9' in raw.execute("SELECT command FROM journal WHERE seq = ?", (booked["seq"],)).fetchone()[0]
        raw.close()
        for pid in _workers(server.pid):  # an out-of-memory kill: Gunicorn starts another worker
            os.kill(pid, signal.SIGKILL)

        deadline, answer = time.monotonic() + 60, None
        while time.monotonic() < deadline and server.proc.poll() is None:
            try:
                answer = Api(server.url, timeout=5).request("GET", f"/api/chain/{booked['seq']}")
            except OSError:
                answer = None
            if answer and answer[0] == 200:
                break  # before: the new worker served the edited game, vouching for the phone's head
            time.sleep(0.2)
        text = server.log.read_text()
        assert not (answer and answer[0] == 200), f"served the edited journal: {answer} (the phone saw {seen[:12]})"
        assert server.proc.poll() is not None, text[-3000:]  # serve ended, as it refuses such a file at start
        assert f"journal row {booked['seq']} was changed" in text, text[-3000:]
    finally:
        server.stop()
