"""What a flood of large messages from many strangers' sockets costs the served bank (bank/web/push/message_bound.py).

`terrabank serve` (Gunicorn's worker, admission, the push hub) on a fresh game; STRANGERS clients without a
secret, each from its own address (127.0.0.x), each as fast as it can: open a WebSocket offering
permessage-deflate (as every browser does), connect to Socket.IO as a page without a secret (the big screen
without its key), send BURST_SENT `sync` messages padded to PAD bytes (a few hundred bytes each on the wire,
deflated), read until the bank closes the page, again. A team phone stays connected throughout; every second the
lead books a command and the phone's delay to see it is noted.

Prints one JSON line: the server tree's CPU-seconds over the flood and the 3 s after, the worker's peak resident
memory before and after (VmHWM), the pages the strangers opened, the messages they wrote, the pictures the bank
built for them, and the phone's delays. Run it on a commit before and after to compare:

    .venv/bin/python bench/web/push/stranger_messages.py --seconds 8 --strangers 16

Measured 2026-12-04 (2 cores shared, load 7-9), 35 s, 8 strangers: before the bound (commit d1cad93, PYTHONPATH
on a copy of it) 27.1 CPU-s of the server, 375 pages, 11,250 messages of 60 KB read, 7,591 pictures built; with
the bound 19.8 CPU-s, 2,872 pages (each closed at its first message, so opened again at once), 2,949 pictures
(the connects'); the worker's peak memory unchanged (82-85 MB) both ways. What was left was the page opens: a
WebSocket opened without a handshake was counted by no handshake pool; counted now (bank/web/serving/opens.py),
4.1 CPU-s, 226 pages (load 16-18, the suite running beside it).
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
sys.path.insert(0, str(ROOT / "bench"))
sys.path.insert(0, str(ROOT / "tests"))
from harness import Api, Server  # noqa: E402
from proctree import cpu_seconds, tree  # noqa: E402
from sio_kit import Phone, RawWebSocket, ENGINE_IO  # noqa: E402

PAD = 60_000
BURST_SENT = 30


def _peak_kb(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1])
    return 0


def _stranger(port: int, source: str, until: float, counts: dict, lock: threading.Lock) -> None:
    message = '42["sync",{"after":0,"pad":"' + "a" * PAD + '"}]'
    while time.monotonic() < until:
        try:
            page = RawWebSocket(port, ENGINE_IO, timeout=5.0, source=source, deflate=True)
        except OSError:
            time.sleep(0.2)
            continue
        try:
            if not page.wait(lambda: any(t.startswith("0") for t in page.texts), 5.0):
                time.sleep(0.2)  # refused (the strangers' handshakes spent) or no answer: again soon
                continue
            page.send_text('40{"display":true}')
            page.wait(lambda: any(t.startswith("40") for t in page.texts), 5.0)
            sent = 0
            for _ in range(BURST_SENT):
                try:
                    page.send_text(message)
                    sent += 1
                except OSError:
                    break
            page.wait(lambda: page.closed, 5.0)
            pictures = sum(1 for t in page.texts if t.startswith('42["public"') or t.startswith('42["round"'))
            with lock:
                counts["pages"] += 1
                counts["sent"] += sent
                counts["pictures"] += pictures
        except OSError:
            pass
        finally:
            page.close()


def run(seconds: float, strangers: int) -> dict:
    with tempfile.TemporaryDirectory() as folder, Server(Path(folder)).prepare().start() as server:
        lead = Api(server.url).login()
        lead.command("start", type="start_clock")
        blue = lead.request("GET", "/api/teams/links")[1]["blue"]
        phone = Phone(server.port, {"team": blue}, query=f"&team={blue}", source="127.0.0.2")
        pids = tree(server.pid)
        peak_before = max(_peak_kb(p) for p in pids)
        cpu_before = cpu_seconds(pids)
        counts, lock = {"pages": 0, "sent": 0, "pictures": 0}, threading.Lock()
        until = time.monotonic() + seconds
        threads = [threading.Thread(target=_stranger, args=(server.port, f"127.0.0.{50 + n}", until, counts, lock),
                                    daemon=True) for n in range(strangers)]
        for thread in threads:
            thread.start()
        delays = []
        n = 0
        while time.monotonic() < until:
            start = time.monotonic()
            status, reply = lead.command(f"during-{n}", type="refill", resource="water", amount=1)
            n += 1
            if status == 200 and phone.wait_for(lambda name, data: name == "public" and
                                                data.get("seq", 0) >= reply["seq"], 10.0):
                delays.append(round(time.monotonic() - start, 3))
            time.sleep(max(0.0, 1.0 - (time.monotonic() - start)))
        for thread in threads:
            thread.join(10)
        time.sleep(3)
        cpu = cpu_seconds(tree(server.pid)) - cpu_before
        peak_after = max(_peak_kb(p) for p in tree(server.pid))
        phone.close()
        lead.close()
        delays.sort()
        return {"seconds": seconds, "strangers": strangers, "pad": PAD, "cpu_s": round(cpu, 2),
                "peak_mb_before": round(peak_before / 1024, 1), "peak_mb_after": round(peak_after / 1024, 1),
                **counts, "phone_delay_median_s": delays[len(delays) // 2] if delays else None,
                "phone_delay_max_s": delays[-1] if delays else None, "phone_seen": f"{len(delays)}/{n}"}


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=8.0)
    parser.add_argument("--strangers", type=int, default=16)
    args = parser.parse_args()
    print(json.dumps(run(args.seconds, args.strangers)))
