"""A server process cut from PostgreSQL, or from Redis, by a network that drops packets.

Never tried before: every outage tested was a server stopped, whose connections close at once.
A cut closes nothing: a statement sent into it waited for TCP's retries (a quarter of an
hour), /readyz with it, and a subscription to Redis waited for its next message forever,
the process saying all the while that it heard the others.

Two servers of one game hear each other through Redis: `a` inside a network namespace this
test makes (tests/netns_kit.py), `b` on the host. `a` is cut for 30 s while both are sent
commands one after the other, then the cut heals. One writer (the servers' shared epoch
throughout), no acknowledged command lost or booked twice, `a`'s /readyz telling the truth
meanwhile, and `a` back within seconds of the healing.
"""

from __future__ import annotations

import threading
import time

import pytest

import netns_kit
from pg_game_kit import AWARD, Game, TERRABANK, CONFIG, sql, wait_until
from harness import Api  # noqa: E402 (bench/ is on the path once test_postgres_fencing is imported)

CUT = 30.0  # seconds each cut lasts
ANSWER = 5.0  # seconds within which a command is answered (a 503 with Retry-After) during a cut
READY_ANSWER = 1.0  # seconds within which /readyz answers, in every state
READY_SAYS = 5.0  # seconds after the cut within which /readyz says 503
SLACK = 1.0  # a loaded machine's scheduling, on top of each figure
BACK = 5.0  # seconds within which the cut process must be back; the margin below is the loaded machine's
MARGIN = 5.0

_why = netns_kit.missing_reason()
pytestmark = pytest.mark.skipif(_why is not None, reason=f"cannot make the test's network: {_why}")


@pytest.fixture(scope="module")
def net():
    made = netns_kit.Network()
    yield made
    made.close()


class Burst:
    """Commands sent one after the other to one server until stopped; what it acknowledged, and when."""

    def __init__(self, api: Api, name: str):
        self.api, self.name = api, name
        self.acknowledged: list[str] = []
        self.replies: list[tuple[float, str, int, object]] = []
        self.timings: list[tuple] = []  # (sent at, seconds to the reply, status, Retry-After, the refusal's code)
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def _run(self) -> None:
        n = 0
        while not self._stop.is_set():
            key, n = f"{self.name}-{n}", n + 1
            sent = time.monotonic()
            try:
                status, body = self.api.command(key, **AWARD)
            except OSError:
                status, body = 0, "no answer"
            self.replies.append((time.monotonic(), key, status, body))
            self.timings.append((sent, time.monotonic() - sent, status, self.api.last_headers.get("retry-after")
                                 if status else None, body.get("error", {}).get("code") if isinstance(body, dict) else body))
            if status == 200:
                self.acknowledged.append(key)
            self._stop.wait(0.05)

    def stop(self) -> None:
        self._stop.set()
        self._thread.join(timeout=60)


def readyz(base: str) -> tuple[int, object]:
    try:
        return Api(base, timeout=20).request("GET", "/readyz")
    except OSError as exc:
        return 0, f"no answer ({exc})"


class ReadyPoll:
    """/readyz asked every 0.25 s, as a balancer does: (asked at, seconds to the answer, status)."""

    def __init__(self, base: str):
        self.base, self.answers = base, []
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def _run(self) -> None:
        while not self._stop.wait(0.25):
            asked = time.monotonic()
            status = readyz(self.base)[0]
            self.answers.append((asked, time.monotonic() - asked, status))

    def stop(self) -> None:
        self._stop.set()
        self._thread.join(timeout=30)


class Pair:
    """The game, `a` in the namespace and `b` on the host, a burst on each."""

    def __init__(self, net, folder):
        self.game = Game(folder, net.pg_url)
        self.game.env["TERRABANK_QUEUE_URL"] = net.redis_url
        self.a_proc, self.a = net.spawn_inside([TERRABANK, "--config", CONFIG, "--db", self.game.name, "serve",
                                                "--host", net.ns_ip, "--port", "0"], folder / "a.log", self.game.env)
        self.game.procs.append(self.a_proc)
        self.b = f"http://127.0.0.1:{self.game.serve('b')[1]}"
        self.bursts = [Burst(Api(base, timeout=30).login(), name) for base, name in ((self.a, "a"), (self.b, "b"))]
        assert wait_until(lambda: all(len(b.acknowledged) >= 5 for b in self.bursts), 60), self.last()
        self.epoch = self.hold_epoch()
        assert self.epoch < 0  # the servers sharing a queue share one

    def hold_epoch(self) -> int:
        return sql(self.game.url, "SELECT hold_epoch FROM terrabank.games WHERE name = %s", (self.game.name,))[0][0]

    def last(self):
        return [b.replies[-2:] for b in self.bursts]

    def finish(self) -> None:
        """Stop the bursts; then no acknowledged command is lost or doubled, and one writer held the game."""
        for burst in self.bursts:
            burst.stop()
        booked = self.game.rows()
        acknowledged = [k for b in self.bursts for k in b.acknowledged]
        assert [k for k in acknowledged if booked.count(k) != 1] == [], "lost or doubled"
        assert len(booked) == len(set(booked))
        assert self.hold_epoch() == self.epoch  # nobody else took the game meanwhile


def test_a_process_cut_from_postgres_refuses_says_so_and_is_back_within_seconds(net, tmp_path):
    pair = Pair(net, tmp_path)
    poll = ReadyPoll(pair.a)
    try:
        a, b = pair.bursts
        with net.cut(net.postgres.port):
            cut_at = time.monotonic()
            # a tells the truth within seconds (a statement into the cut fails after 5 s): not ready, why.
            said = wait_until(lambda: (lambda r: r if r[0] == 503 else None)(readyz(pair.a)), 25, step=0.5)
            assert said, readyz(pair.a)
            assert "database" in said[1]["reason"] or "hold" in said[1]["reason"], said
            counts = len(b.acknowledged)
            assert wait_until(lambda: len(b.acknowledged) >= counts + 10, 25), pair.last()  # b books on
            time.sleep(max(0.0, CUT - (time.monotonic() - cut_at)))
            still = readyz(pair.a)
            assert still[0] == 503, still  # and says so to the end of the cut
        healed_at = time.monotonic()
        assert wait_until(lambda: readyz(pair.a)[0] == 200, BACK + MARGIN, step=0.2), readyz(pair.a)
        ready_after = time.monotonic() - healed_at
        booked_before = len(a.acknowledged)
        assert wait_until(lambda: len(a.acknowledged) >= booked_before + 5, 20), pair.last()
        print(f"a ready {ready_after:.1f} s after the cut healed")
        # Replies from 10 s into the cut on (one sent just before it may wait 5 s, then a loaded machine's delay).
        during = [(key, status) for at, key, status, _ in a.replies if cut_at + 10 < at < healed_at]
        assert during and all(status != 200 for _, status in during), during[:5]  # refused, not acknowledged
    finally:
        poll.stop()
        pair.game.stop()
    pair.finish()
    # Fail fast (one command took 43.5 s, /readyz 19.9 s then time-outs): every command sent
    # during the cut answered within 5 s, a 503 saying when to send again; /readyz answered within 1 s
    # all along, and said 503 within 5 s of the cut.
    cut_commands = [t for t in a.timings if cut_at - 1 <= t[0] < healed_at]
    slowest = max(t[1] for t in cut_commands)
    refused = [(t[2], t[3]) for t in cut_commands if t[2] != 200]
    assert slowest < ANSWER + SLACK, sorted(cut_commands, key=lambda t: -t[1])[:3]
    assert refused and all(status == 503 and after for status, after in refused), refused[:5]
    asked = [t for t in poll.answers if cut_at - 1 <= t[0] < healed_at + BACK]
    slowest_ready = max(seconds for _, seconds, _ in asked)
    assert slowest_ready < READY_ANSWER + SLACK, sorted(asked, key=lambda t: -t[1])[:3]
    said = min(at + seconds for at, seconds, status in asked if at >= cut_at and status == 503) - cut_at
    assert said < READY_SAYS + SLACK, said
    print(f"during the cut: slowest command {slowest:.1f} s, slowest /readyz {slowest_ready:.2f} s, "
          f"/readyz 503 {said:.1f} s after the cut")


def test_a_process_cut_from_redis_stays_ready_degraded_books_and_hears_again(net, tmp_path):
    pair = Pair(net, tmp_path)
    try:
        a, b = pair.bursts
        on_a = Api(pair.a, timeout=20).login()
        with net.cut(net.redis.port):
            cut_at = time.monotonic()
            degraded = wait_until(lambda: readyz(pair.a)[1].get("degraded") if readyz(pair.a)[0] == 200 else None,
                                  25, step=0.5)
            assert degraded and "queue" in degraded, readyz(pair.a)
            counts = (len(a.acknowledged), len(b.acknowledged))
            assert wait_until(lambda: len(a.acknowledged) >= counts[0] + 10 and len(b.acknowledged) >= counts[1] + 10,
                              25), pair.last()  # both book on
            # b's rows reach a without the queue: a reads the journal once a second.
            seen = len(pair.game.rows())
            assert wait_until(lambda: on_a.request("GET", "/api/state")[1]["seq"] >= seen, 10)
            time.sleep(max(0.0, CUT - (time.monotonic() - cut_at)))
        healed_at = time.monotonic()
        assert wait_until(lambda: "degraded" not in readyz(pair.a)[1], BACK + MARGIN, step=0.2), readyz(pair.a)
        print(f"a heard the queue again {time.monotonic() - healed_at:.1f} s after the cut healed")
    finally:
        pair.game.stop()
    pair.finish()
