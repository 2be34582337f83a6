"""The floor of cross-process delivery: a bare Redis PUBLISH reaching N subscriber processes.

What bank/web/push/peers.py does per booked row, and nothing else: one process PUBLISHes a
short JSON notice on a channel, N other processes (one per server process) hear it
through redis-py's pubsub.listen(), as each server's listener does. For each notice:
the time from just before PUBLISH to the moment the LAST subscriber has it (CLOCK_MONOTONIC
is one clock for every process of the machine). Run beside the cluster's load, it pays
the same CPU contention; run alone, it says what the queue costs on a quiet machine.

    python bench/processes_floor.py URL CHANNEL     # one subscriber (FloorRun starts them)
"""

from __future__ import annotations

import json
import secrets
import subprocess
import sys
import threading
import time
from pathlib import Path

HERE = Path(__file__).resolve()


class FloorRun(threading.Thread):
    """Publish a notice every `gap` s to `subscribers` processes until stop() or `count` notices."""

    def __init__(self, url: str, subscribers: int, gap: float = 0.25, count: int | None = None):
        super().__init__(name="redis-floor", daemon=True)
        import redis

        self.url, self.gap, self.count = url, gap, count
        self.channel = f"terrabank-bench:floor:{secrets.token_hex(4)}"  # never a game's channel
        self.redis = redis.Redis.from_url(url)
        self.subs = [subprocess.Popen([sys.executable, str(HERE), url, self.channel], stdout=subprocess.PIPE,
                                      text=True) for _ in range(subscribers)]
        for sub in self.subs:
            if sub.stdout.readline().strip() != "ready":
                raise RuntimeError("a Redis floor subscriber did not start")
        while self.redis.pubsub_numsub(self.channel)[0][1] < subscribers:  # each one's SUBSCRIBE is done
            time.sleep(0.01)
        self.sent: dict[int, float] = {}
        self.halt = threading.Event()

    def run(self) -> None:
        n = 0
        while not self.halt.is_set() and (self.count is None or n < self.count):
            n += 1
            notice = json.dumps({"seq": n, "from": "floor"})
            self.sent[n] = time.monotonic()
            self.redis.publish(self.channel, notice)
            self.halt.wait(self.gap)

    def stop(self) -> dict:
        """End the run; {"ms": [publish -> last subscriber], "missed": notices some subscriber never got}."""
        self.halt.set()
        self.join(30)
        self.redis.publish(self.channel, json.dumps({"stop": True}))
        heard = []
        for sub in self.subs:
            out, _ = sub.communicate(timeout=30)
            heard.append({int(k): v for k, v in json.loads(out.strip().splitlines()[-1]).items()})
        self.redis.close()
        ms, missed = [], 0
        for seq, sent in self.sent.items():
            times = [h.get(seq) for h in heard]
            if None in times:
                missed += 1
            else:
                ms.append((max(times) - sent) * 1000)
        return {"ms": ms, "missed": missed}


def measure(url: str, subscribers: int, count: int = 200, gap: float = 0.02) -> dict:
    """The floor on its own: `count` notices, `gap` s apart."""
    run = FloorRun(url, subscribers, gap, count)
    run.start()
    run.join()
    return run.stop()


def subscribe(url: str, channel: str) -> None:
    """One subscriber: note when each notice arrives; print them all as JSON when told to stop."""
    import redis

    pubsub = redis.Redis.from_url(url).pubsub(ignore_subscribe_messages=True)
    pubsub.subscribe(channel)
    print("ready", flush=True)
    heard = {}
    for message in pubsub.listen():
        at = time.monotonic()
        notice = json.loads(message["data"])
        if notice.get("stop"):
            break
        heard[notice["seq"]] = at
    print(json.dumps(heard), flush=True)


if __name__ == "__main__":
    subscribe(sys.argv[1], sys.argv[2])
