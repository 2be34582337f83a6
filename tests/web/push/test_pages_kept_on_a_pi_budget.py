"""Nobody dropped under pressure: a real `serve` held to a Raspberry Pi's CPU budget keeps every live page
through a peak, books at the pace asked, and every page holds the bank's last entry soon after.

On a Pi budget (bench/system/pi_budget.py: a quarter of one core) with 200 team pages, the bank queued one
round per command for every page and spent the CPU the bookings needed on them: it booked 2.1-9 of the
20 harvests asked a second (the issue saw 2.8), and the Engine.IO pings queued behind the rounds until
pages were closed as gone. Now a page whose socket is still sending is left out of a round and gets the
newest pictures once it has caught up, and rounds come further apart when the CPU is short
(bank/web/push/rounds.py, broadcaster.py).

Here: the served process tree in a cgroup with 2.5 ms of CPU every 10 ms on one core, 200 team pages from
4 addresses (as phones behind several access points), 4 tablets booking harvests at 20 a second for 20 s;
then every page must still be connected and hold the last entry within a few seconds, and at least 70%
of the harvests asked must have been booked. Needs root and a cgroup cpu controller (CI runs as root);
skipped, saying why, elsewhere. The same room, measured with floors: bench/web/push/pages_under_pressure.py.
"""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]
sys.path.insert(0, str(ROOT / "bench"))
sys.path.insert(0, str(ROOT / "bench" / "web" / "push"))
sys.path.insert(0, str(ROOT / "bench" / "system"))  # pi_budget

import harness  # noqa: E402
import pi_budget  # noqa: E402
from page_room import Room, book_at_pace  # noqa: E402

PAGES = int(os.environ.get("TERRABANK_TEST_PAGES", 200))  # team pages, a quarter a team (the room)
RATE, SECONDS = 20.0, 20.0   # harvests asked a second (a peak), for so long
CAUGHT_UP_WITHIN = 8.0       # seconds after the last booking (target 5 s on a quiet machine; CI shares its cores)
KEPT_PACE = 0.7              # of the harvests asked, at least this share booked (87-89% seen; before: 19-46%)

# A quarter of core 0 and a booking pace measured against it: the other workers' tests on that core
# would take the server's quarter. Run alone (run.py's serial pass).
pytestmark = pytest.mark.serial("a Pi's CPU budget on core 0 and a booking pace measured against it")


def _budget_or_skip() -> pi_budget.Budget:
    if os.geteuid() != 0:
        pytest.skip("needs root to make a cgroup with a CPU quota (CI runs as root)")
    try:
        return pi_budget.Budget(core=0, quota_us=2500, period_us=10000)
    except (SystemExit, OSError) as exc:
        pytest.skip(f"no cgroup with a CPU quota here: {exc}")


def test_a_served_bank_on_a_pi_budget_keeps_every_page_through_a_peak_and_they_catch_up(tmp_path):
    budget = _budget_or_skip()
    server = harness.Server(tmp_path).prepare()
    room = jailer = None
    try:
        server.start()
        budget.admit(server.pid)
        jailer = pi_budget.Jailer(budget, server.pid)  # the workers, and any process forked later
        jailer.start()
        lead = harness.Api(server.url).login()
        status, started_clock = lead.command("start", type="start_clock")
        assert status == 200, started_clock
        status, tokens = lead.request("GET", "/api/teams/links")
        assert status == 200, tokens
        lead.close()
        room = Room(server.port, tokens, PAGES)
        room.held_by_all(started_clock["seq"], 10)  # every page has its first pictures (it waited a fixed 3 s)
        assert room.dropped() == 0
        booked, refused = book_at_pace(server.url, RATE, SECONDS)
        done = time.monotonic()
        assert not refused, refused[:3]
        last = booked[-1][0]
        while time.monotonic() < done + CAUGHT_UP_WITHIN and room.behind(last):
            time.sleep(0.1)
        behind, dropped = room.behind(last), room.dropped()
        print(f"booked {len(booked)} of {RATE * SECONDS:.0f} asked; pages behind {behind}, dropped {dropped}, "
              f"caught up {time.monotonic() - done:.1f} s after the last booking")
        log = server.log.read_text(errors="replace")[-2000:]
        assert dropped == 0, f"{dropped} of {PAGES} pages dropped; server log: {log}"
        assert behind == 0, (f"{CAUGHT_UP_WITHIN:.0f} s after the last of {len(booked)} harvests (seq {last}), "
                             f"{behind} of {PAGES} pages did not hold it yet")
        # Booking does not wait on the fan-out: rounds come further apart when the CPU is short (broadcaster.SHARE).
        assert len(booked) >= KEPT_PACE * RATE * SECONDS, f"{len(booked)} harvests booked of {RATE * SECONDS:.0f} asked"
    finally:
        if room is not None:
            room.close()
        if jailer is not None:
            jailer.stop.set()
        server.stop()
        budget.remove()
