"""A page whose server process dies moves to another and loses nothing.

Two `terrabank serve` processes on one game in PostgreSQL with a Redis queue, 100 pages of each
kind (consoles with their journal, team phones, big screens) spread over both, a burst of commands
from four counters; in its middle one process is killed with SIGKILL. Each page of the dead process
connects to the survivor (as nginx sends it) naming the last journal row it holds, and must end
showing exactly what the database holds: every journal row once, in order, and the same picture.

The pages are Python twins of their scripts (bench/system/failover_pages.py: tests/delta_page.Page for
live.js's pictures, JournalTwin for console_journal.js) on tests/sio_kit.Phone connections.
Without the fix, a moved console was sent the survivor's next rows before the rows it missed, which
the page dropped as older than the newest shown, and a page still connecting was sent a patch of a
picture it never got (and asked for the whole one again).
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "bench"))
sys.path.insert(0, str(ROOT / "bench" / "system"))  # failover_pages
from failover_pages import run  # noqa: E402
from processes_cluster import Cluster  # noqa: E402

PAGES_PER_KIND = 100
# Run alone: 300 pages on two processes keep their heartbeats only on a machine that is not starved. At load
# 13-30 pages dropped on ping timeouts before the kill ("no survivor"), and consoles saw gaps. It happened
# on the code CI had passed and on today's alike (the same run, side by side), and it made CI fail in the
# parallel pass.
pytestmark = pytest.mark.serial("300 live pages on two processes and a kill: pages drop on heartbeats when the machine is starved")


@pytest.fixture(scope="module")
def failover(tmp_path_factory, postgres_server, redis_server):
    """One run shared by the assertions below: the crowd, the burst, the kill, the database at the end."""
    folder = tmp_path_factory.mktemp("failover")
    # 100 big screens on the one key, all on the survivor after the kill: more than a game's screens, so
    # this crowd's config lets a link or the key hold 100 live pages (config.toml says 60).
    config = folder / "config.toml"
    config.write_text((ROOT / "config.toml").read_text().replace("phones_per_team = 50", "phones_per_team = 100"))
    cluster = Cluster(folder, "failover", postgres_server.url, redis_server.url, processes=2, config=str(config))
    try:
        outcome, killed_at = run(cluster, PAGES_PER_KIND)
    finally:
        cluster.stop()
    # What the servers said went wrong: a round that failed, with its traceback's error.
    outcome.problems = [line[:300] for log in sorted(folder.rglob("*.log")) for line in log.read_text(errors="replace")
                        .splitlines() if any(w in line for w in ("broadcast failed", "Error"))]
    return outcome


def test_the_kill_fell_in_the_middle_of_the_burst_and_moved_a_third_of_the_pages(failover):
    assert 0 < failover.kill_after < len(failover.acked)
    assert failover.failed_moves == []
    assert len(failover.moved()) >= PAGES_PER_KIND  # every page of the dead process: half of 3 x 100
    assert {p.kind for p in failover.moved()} == {"console", "phone", "display"}


def test_every_acknowledged_command_is_in_the_database_once(failover):
    seqs = {row["command_id"]: row["seq"] for row in failover.rows}
    assert len(seqs) == len(failover.rows)
    assert all(key in seqs for key in failover.acked)


def test_a_moved_console_is_sent_every_journal_row_once_and_in_order(failover):
    """The server's side: after the row a console names on connecting, it is sent the rows that follow
    in order, so even a page that only appends rows newer than its newest loses none.
    A row it already holds may come again (the survivor's rounds were behind the dead process's): the
    page skips it, as it always did. On a slow host a move took long enough for 500 more rows to be booked:
    the connect reply stops at 500 rows, and the rounds' newer rows came next (a gap, then late rows once
    asked: the 10 and 21 of a serial pass fit it); the rounds now send the rest first (Broadcaster._owed)."""
    consoles = [p for p in failover.pages if p.kind == "console"]
    # (connection, last row held in order, first and last row of each journal message) of the first few at fault
    # and, for a row that came after a newer one, the last 10 messages up to it: (connection, moved, row held, first, last)
    faulty = [(p.journal.late, p.journal.asks, p.story, p.around_late) for p in consoles
              if p.journal.late or p.journal.asks][:3]
    said = failover.problems[:20]  # the servers' lines of the run that report a failure
    assert sum(p.journal.late for p in consoles) == 0, ("rows sent after a newer one (dropped by the page "
                                                         "before the fix)", faulty, said)
    assert sum(p.journal.asks for p in consoles) == 0, ("a console saw a gap in its journal and had to ask", faulty,
                                                        said)


def test_every_console_ends_with_the_database_journal_in_order(failover):
    assert failover.behind == [], [(p.kind, p.pictures.picture("public") and p.pictures.picture("public")["seq"],
                                    p.journal.seq) for p in failover.behind][:5]
    assert failover.journal_faults() == {"lost": 0, "extra": 0}
    last = failover.rows[-1]["seq"]
    for page in failover.pages:
        if page.kind == "console":
            shown = page.journal.shown()
            assert shown == list(range(shown[0], last + 1))


def test_every_page_ends_with_the_database_picture_and_never_went_back(failover):
    assert failover.picture_faults() == []
    assert sum(p.backwards for p in failover.pages) == 0


def test_no_page_is_sent_a_patch_of_a_picture_it_does_not_hold(failover):
    """A page that just (re)connected gets its whole pictures first, then patches of what it holds only:
    before the fix, ~half of the moved pages asked for the whole pictures again."""
    assert sum(p.misfits for p in failover.pages) == 0
    assert sum(p.pictures.asks for p in failover.pages) == 0
