"""20 reloads asked in 2 s, the file saved sound and broken in turn, the last save broken: the bank ends on the last
sound config asked, each refusal said, every command acknowledged meanwhile booked once.

Before: the master read the file when it ran a reload, and the reloads asked while one ran were one more (so that a
burst settles in seconds): by then the file was whatever was saved last. The bank ended on the first sound version
("Version 0", the last sound one asked being "Version 18"), one refusal said, the nine sound reloads between
gone unsaid. Now each reload asked keeps the file as it was then (bank/web/serving/reload.py `signal`), and a
burst checks the newest, then, refused, the one asked before it. A real `terrabank serve`, about 25 s: its start,
the burst's few reloads (a check and a new worker each) and the 5 s it must stay settled.
"""

from __future__ import annotations

import collections
import os
import re
import shutil
import signal
import sys
import threading
import time
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[3] / "bench"))
from harness import CONFIG, Api, Server  # noqa: E402

pytestmark = pytest.mark.skipif(not hasattr(signal, "SIGHUP"), reason="POSIX signals")

TITLE = 'title = { fr = "Terraformation", en = "Terraforming" }'


def booked_ids(server: Server) -> collections.Counter:
    api, after, ids = Api(server.url, timeout=20).login(), 0, collections.Counter()
    while True:
        status, body = api.request("GET", f"/api/journal?after={after}&limit=500")
        assert status == 200, body
        if not body["rows"]:
            return ids
        ids.update(row["command"].get("id") for row in body["rows"])
        after = body["rows"][-1]["seq"]


def test_a_burst_of_reloads_sound_and_broken_in_turn_ends_on_the_last_sound_one(tmp_path):
    config = tmp_path / "config.toml"
    shutil.copy(CONFIG, config)
    sound = config.read_text(encoding="utf-8")
    assert TITLE in sound
    server = Server(tmp_path / "game", config=str(config)).prepare().start()
    answers, stop = {}, threading.Event()

    def console() -> None:
        api, n = Api(server.url, timeout=20).login(), 0
        while not stop.is_set():
            try:
                answers[f"burst-{n}"], _ = api.command(f"burst-{n}", type="award", team="green", points=1,
                                                       reason="reloads")
            except OSError as exc:  # no reply within 20 s
                answers[f"burst-{n}"] = repr(exc)
            n += 1
            time.sleep(0.05)

    booking = threading.Thread(target=console, daemon=True)
    booking.start()
    log = lambda: server.log.read_text(errors="replace")  # noqa: E731
    try:
        for i in range(20):
            if i % 2 == 0:
                config.write_text(sound.replace(TITLE, f'title = {{ fr = "Version {i}", en = "Version {i}" }}'),
                                  encoding="utf-8")
            else:
                config.write_text(sound + f"\nbroken{i} = = 1\n", encoding="utf-8")
            os.kill(server.pid, signal.SIGHUP)
            time.sleep(0.1)
        # Settled: the same title and no new reload line for 5 s.
        deadline, last, since = time.monotonic() + 90, None, time.monotonic()
        while time.monotonic() < deadline:
            now = (server.title(), log().count("terrabank: reloading"), log().count("reload was refused"))
            if now != last:
                last, since = now, time.monotonic()
            elif now[0] and time.monotonic() - since > 5:
                break
            time.sleep(0.25)
        assert last and last[0] == "Version 18", (last, log()[-3000:])
        stop.set()
        booking.join(30)
        lines = [line for line in log().splitlines() if "terrabank: reloading" in line or "reload was refused" in line]
        # Each refusal said, each with the typo's line; a reload of an older file only after a newer one's refusal.
        assert all(re.search(r"at line \d+", line) for line in lines if "refused" in line), lines
        for n, line in enumerate(lines):
            if "asked before the newer one" in line:
                assert n and "refused" in lines[n - 1], lines
        acknowledged = [cid for cid, status in answers.items() if status == 200]
        ids = booked_ids(server)
        assert len(acknowledged) >= 10 and [cid for cid in acknowledged if ids[cid] != 1] == [], answers
        assert [cid for cid, n in ids.items() if n > 1] == []
        assert server.proc.poll() is None and "Traceback" not in log()
    finally:
        stop.set()
        server.stop()
