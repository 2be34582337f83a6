"""Nobody dropped under pressure: a real `serve` held to a Raspberry Pi's CPU budget keeps every live page
through a burst, and every page holds the bank's last entry soon after it (issue 33).

On a Pi budget (bench/pi_budget.py: a quarter of one core) with 200 team pages, the bank queued one
round per command for every page: the pages fell minutes behind, 60 s after the last command not one
held the bank's last entry, and the Engine.IO pings queued behind the rounds until pages were closed
as gone. Now a page whose socket is still sending is left out of a round and gets the newest pictures
once it has caught up (bank/web/push/rounds.py): its socket never holds more than one round besides
the one being written.

Here: the served process tree in a cgroup with 2.5 ms of CPU every 10 ms on one core, N team pages from
4 addresses (as phones behind several access points), a lead booking harvests at a peak's pace from
several tablets; then every page must still be connected and hold the last entry within a few seconds.
Needs root and a cgroup cpu controller (CI runs as root); skipped, saying why, elsewhere.
"""

from __future__ import annotations

import itertools
import os
import selectors
import sys
import threading
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]
sys.path.insert(0, str(ROOT / "bench"))

import harness  # noqa: E402
import pi_budget  # noqa: E402
from sio_kit import Phone  # noqa: E402

PAGES = int(os.environ.get("TERRABANK_TEST_PAGES", 200))  # team pages, a quarter a team (the room)
ADDRESSES = 4          # 127.0.0.2-5: the bank caps live pages per address
RATE = 20.0            # harvests asked per second: a peak (issue 33)
SECONDS = float(os.environ.get("TERRABANK_TEST_SECONDS", 20))  # of peak
TABLETS = 4            # facilitators' tablets booking at once
CAUGHT_UP_WITHIN = 8.0  # seconds after the last booking (target 5 s on a quiet machine; CI shares its cores)
KEPT_PACE = 0.7        # of the harvests asked, at least this share booked (87-89% seen; before: 19-46%)
HARVESTERS = ["harvester-1", "harvester-2"]
RESOURCES = ["water", "flora", "dioxygen", "fauna", "energy"]


def _budget_or_skip() -> pi_budget.Budget:
    if os.geteuid() != 0:
        pytest.skip("needs root to make a cgroup with a CPU quota (CI runs as root)")
    try:
        return pi_budget.Budget(core=0, quota_us=2500, period_us=10000)
    except (SystemExit, OSError) as exc:
        pytest.skip(f"no cgroup with a CPU quota here: {exc}")


class Room:
    """The live pages, read by one thread: each page's newest journal number, and whether it was dropped."""

    def __init__(self, port: int, tokens: dict):
        teams = sorted(tokens)
        self.pages = []
        for i in range(PAGES):
            team = teams[i % len(teams)]
            self.pages.append(Phone(port, {"team": tokens[team]}, timeout=30, query=f"&team={tokens[team]}",
                                    source=f"127.0.0.{2 + i % ADDRESSES}"))
        self.stop = threading.Event()
        self.selector = selectors.DefaultSelector()
        for page in self.pages:
            self.selector.register(page.sock, selectors.EVENT_READ, page)
        self.reader = threading.Thread(target=self._read, daemon=True)
        self.reader.start()

    def _read(self) -> None:
        while not self.stop.is_set():
            for key, _ in self.selector.select(timeout=0.2):
                page = key.data
                if not page.closed:
                    page.read(timeout=1.0)  # readable: returns at once; answers the pings (sio_kit.Phone)
                    if page.closed:
                        self.selector.unregister(page.sock)
                    else:
                        del page.texts[:]  # keep the newest seq only (below), not every message
                        page.newest = max([getattr(page, "newest", 0)] + [
                            d["seq"] for n, d in page.events if n == "public" and isinstance(d, dict) and "seq" in d])
                        del page.events[:]

    def dropped(self) -> int:
        return sum(page.closed for page in self.pages)

    def behind(self, seq: int) -> int:
        return sum(getattr(page, "newest", 0) < seq for page in self.pages)

    def close(self) -> None:
        self.stop.set()
        self.reader.join(timeout=5)
        for page in self.pages:
            page.close()


def _book(url: str, tablet: int, until: float, booked: list, refused: list) -> None:
    """One facilitator's tablet: harvests at RATE / TABLETS a second until `until`."""
    api = harness.Api(url, timeout=120).login()
    gap, keys = TABLETS / RATE, itertools.count()
    next_at = time.monotonic()
    try:
        while time.monotonic() < until:
            i = next(keys) * TABLETS + tablet
            status, reply = api.command(f"t{tablet}-{i}", type="harvest", team=("blue", "yellow", "red", "green")[i % 4],
                                        card=HARVESTERS[i // 4 % 2], resource=RESOURCES[i % 5])
            (booked if status == 200 else refused).append(reply.get("seq") if status == 200 else (status, reply))
            next_at += gap
            time.sleep(max(0.0, next_at - time.monotonic()))  # the asked pace; late requests go at once
    finally:
        api.close()


def test_a_served_bank_on_a_pi_budget_keeps_every_page_through_a_peak_and_they_catch_up(tmp_path):
    budget = _budget_or_skip()
    server = harness.Server(tmp_path).prepare()
    room = None
    try:
        server.start()
        budget.admit(server.pid)
        jailer = pi_budget.Jailer(budget, server.pid)  # the workers, and any process forked later
        jailer.start()
        lead = harness.Api(server.url).login()
        assert lead.command("start", type="start_clock")[0] == 200
        status, tokens = lead.request("GET", "/api/teams/links")
        assert status == 200, tokens
        room = Room(server.port, tokens)
        time.sleep(3)  # every page has its first pictures
        assert room.dropped() == 0
        booked, refused = [], []
        until = time.monotonic() + SECONDS
        tablets = [threading.Thread(target=_book, args=(server.url, t, until, booked, refused)) for t in range(TABLETS)]
        for tablet in tablets:
            tablet.start()
        for tablet in tablets:
            tablet.join()
        last_booked = time.monotonic()
        assert not refused, refused[:3]
        last = max(booked)
        deadline = last_booked + CAUGHT_UP_WITHIN
        while time.monotonic() < deadline and room.behind(last):
            time.sleep(0.1)
        behind, dropped = room.behind(last), room.dropped()
        print(f"booked {len(booked)} in {last_booked - until + SECONDS:.1f} s; pages behind {behind}, dropped {dropped}, "
              f"caught up {time.monotonic() - last_booked:.1f} s after the last booking")
        log = server.log.read_text(errors="replace")[-2000:]
        assert dropped == 0, f"{dropped} of {PAGES} pages dropped; server log: {log}"
        assert behind == 0, (f"{CAUGHT_UP_WITHIN:.0f} s after the last of {len(booked)} harvests (seq {last}), "
                             f"{behind} of {PAGES} pages did not hold it yet")
        # Booking does not wait on the fan-out: rounds come further apart when the CPU is short (broadcaster.SHARE).
        assert len(booked) >= KEPT_PACE * RATE * SECONDS, (f"{len(booked)} harvests booked in {SECONDS:.0f} s of "
                                                           f"{RATE * SECONDS:.0f} asked")
        lead.close()
    finally:
        if room is not None:
            room.close()
        server.stop()
        budget.remove()
