"""A real console in Chromium whose server process is killed moves to the other one and shows every
journal row once, in order.

Two `terrabank serve` processes on one game (PostgreSQL, Redis); the browser reaches them through a
TCP proxy standing for nginx: to the first until it dies, then to the survivor. Counters book a
burst on both processes; in its middle the first is killed with SIGKILL and the burst goes on while
the console reconnects. Without the fix the console, reconnected, got the survivor's next rows
before the reply to its `sync` and dropped the older rows of that reply for good.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

from needs import module, needs
from browserkit import log_in_to

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "bench"))
sys.path.insert(0, str(ROOT / "bench" / "system"))  # failover_pages
from failover_pages import Commanders, _wait, all_rows  # noqa: E402
from harness import PASSWORD, USER, Api  # noqa: E402
from processes_cluster import Cluster  # noqa: E402
from tcp_proxy import Proxy  # noqa: E402

sync_api = module("playwright.sync_api")  # a stand-in without Playwright: pytestmark skips the tests
pytestmark = needs("playwright", "chromium")


def shown_seqs(page) -> list[int]:
    """The journal rows the console shows, newest first (console_journal.js: <li data-seq>)."""
    return page.eval_on_selector_all("#journal li", "items => items.map(li => +li.dataset.seq)")


def test_a_console_moved_by_a_kill_shows_every_journal_row_once_and_in_order(tmp_path, postgres_server,
                                                                             redis_server, chromium):
    cluster = Cluster(tmp_path, "failover-browser", postgres_server.url, redis_server.url, processes=2)
    port_a, port_b = cluster.ports
    proxy = Proxy(port_a)  # nginx: this browser's process is the first one, while it lives
    context = chromium.new_context()
    burst = None
    try:
        lead = Api(f"http://127.0.0.1:{port_b}").login()
        status, links = lead.request("GET", "/api/teams/links")
        assert status == 200 and lead.command("start", type="start_clock")[0] == 200
        page = context.new_page()
        errors: list[str] = []
        page.on("pageerror", lambda error: errors.append(str(error)))
        log_in_to(page, proxy.url, "/console", USER, PASSWORD)
        badge = page.locator("#conn-badge")
        sync_api.expect(badge).to_have_class(re.compile("badge-live"), timeout=30_000)
        apis = []
        for n in range(4):
            api = Api(f"http://127.0.0.1:{(port_a, port_b)[n % 2]}")
            api.cookie, api.csrf = lead.cookie, lead.csrf
            apis.append(api)
        # Paced (20 commands a second at most) so that the rows around the move stay in the console's 200.
        burst = Commanders(apis, list(links), pause=0.2).start()
        assert _wait(lambda: burst.count() >= 30, 120)
        cluster.procs[0].kill()  # SIGKILL: the console's process is gone
        at_kill = burst.max_seq()
        proxy.target = ("127.0.0.1", port_b)  # nginx's next upstream
        burst.survivor = port_b
        sync_api.expect(badge).not_to_have_class(re.compile("badge-live"), timeout=30_000)
        sync_api.expect(badge).to_have_class(re.compile("badge-live"), timeout=60_000)  # reconnected
        mark = burst.count()
        assert _wait(lambda: burst.count() >= mark + 40, 120)  # the burst goes on once it is back
        burst.stop.set()
        burst.join(60)
        truth = all_rows(lead)
        last = truth[-1]["seq"]
        page.wait_for_function(f"() => {{ var li = document.querySelector('#journal li'); "
                               f"return li && +li.dataset.seq >= {last}; }}", timeout=60_000)
        shown = shown_seqs(page)
        assert shown[0] == last
        missing = sorted(set(range(shown[-1], last + 1)) - set(shown))
        assert missing == [], f"the console lost {len(missing)} rows: {missing[:20]}"
        assert shown == list(range(last, shown[-1] - 1, -1)), "rows doubled or out of order"
        assert shown[-1] <= at_kill  # the rows around the move are on the console, not only the end
        ids = {row["seq"]: row["command_id"] for row in truth}
        assert all(seq in ids for seq in shown)
        assert errors == []
    finally:
        if burst is not None:
            burst.stop.set()
        context.close()
        proxy.close()
        cluster.stop()
