"""The clock's loop outlives a game file whose write lock another program holds, in two lines of the log.

Before: while another program held the SQLite file's write lock (an `sqlite3` shell left in a transaction, a
copy tool), every heartbeat of the running clock was refused after its 5 s wait and logged "tick failed" with
a 30-line traceback, one every 6 s for as long as the lock was held (20 in two 40 s holds). Now the refusal is
one line and the clock's next write one line; the loop goes on, and the session ends on time after the lock.
"""

from __future__ import annotations

import json
import shutil
import sqlite3
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[3] / "bench"))
from harness import CONFIG, Api, Server  # noqa: E402

HELD = 14.0  # seconds the other program holds the write lock: two heartbeats refused after their 5 s wait


def session_ended(db) -> bool:
    conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    try:
        rows = conn.execute("SELECT events FROM journal WHERE command_id LIKE 'tick:%'").fetchall()
    finally:
        conn.close()
    return any(event["type"] == "session_ended" for (events,) in rows for event in json.loads(events))


def test_a_write_lock_held_by_another_program_is_two_lines_and_the_session_still_ends_on_time(tmp_path):
    config = tmp_path / "config.toml"
    shutil.copy(CONFIG, config)
    text = config.read_text(encoding="utf-8")
    assert "duration_minutes = 180" in text and "sessions = 2" in text
    config.write_text(text.replace("duration_minutes = 180", "duration_minutes = 1"), encoding="utf-8")  # 30 s sessions
    server = Server(tmp_path / "game", config=str(config)).prepare().start()
    try:
        api = Api(server.url, timeout=20).login()
        assert api.command("start", type="start_clock")[0] == 200
        started = time.monotonic()
        time.sleep(2)
        other = sqlite3.connect(str(server.db), timeout=10, isolation_level=None)  # another program: a shell
        other.execute("BEGIN IMMEDIATE")
        try:
            time.sleep(HELD)
        finally:
            other.execute("ROLLBACK")
            other.close()
        status, reply = api.command("after", type="award", team="green", points=1, reason="the file is free")
        assert status == 200, reply
        deadline = started + 30 + 15  # the session's 30 s, and a loaded machine's seconds
        while not session_ended(server.db) and time.monotonic() < deadline:
            time.sleep(0.5)
        assert session_ended(server.db), server.log.read_text(errors="replace")[-3000:]
        time.sleep(1)
    finally:
        server.stop()
    log = server.log.read_text(errors="replace")
    assert "Traceback" not in log and "tick failed" not in log, log[-3000:]
    refused = [line for line in log.splitlines() if "refuses the bank's writes" in line]
    again = [line for line in log.splitlines() if "takes the bank's writes again" in line]
    assert len(refused) == 1 and "held by another program" in refused[0], refused
    assert len(again) == 1, again
